/**
 * Who gets in. asm launches agents, types into their windows and ends processes, so every hole is code execution
 * on the person's machine; this module decides, for every request, page or API, before any route runs:
 *
 * 1. **Host**: only `127.0.0.1:<port>` or `localhost:<port>` (a DNS-rebinding page names its own host).
 * 2. **The peer's uid** (Linux): the kernel's socket table names the local user that opened the connection; a uid
 *    other than the server's own (or one listed in config `allowed_uids`) is refused, with the uid named. A
 *    connection the table does not show is refused too (fail closed). This is asked as the connection is
 *    accepted, before any of it is read (`connections.ts`), and again for each request.
 * 3. **The install token**, a second factor on every `/api/*` request, GET included, as `Authorization: Bearer`
 *    (a WebSocket sends it in `Sec-WebSocket-Protocol` as `asm.token.<token>`, with its Origin checked). No cookie
 *    carries it: cookies ignore ports, so every other service on 127.0.0.1 would receive it. The page gets it once
 *    by trading a one-time code (`asm open`) at `POST /api/token`. `/api/health` without it answers only "up".
 * 4. **Origin**: a state-changing request from another origin is refused, and so is any API request (a stream's
 *    GET included) that names another origin: asm's page sends none on its own GETs, or its own. No CORS headers,
 *    ever.
 *
 * Pages carry private data only behind the peer-uid check; where the platform cannot name the peer, a page is its
 * shell (no data), which loads the real page with the token. Pure: {@link admit} takes the facts and decides.
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import type { PeerOwner } from "../procs/mod.ts";

/** The WebSocket subprotocol prefix that carries the token (browsers cannot set headers on a WebSocket). */
export const WS_TOKEN_PREFIX = "asm.token.";
/** The subprotocol a WebSocket route answers with. */
export const WS_PROTOCOL = "asm.v1";

/** Reads `$ASM_HOME/token`, creating it (0600, 32 random bytes as hex) when missing; re-tightens its mode. */
export function installToken(asmHome: string): string {
  const path = join(asmHome, "token");
  try {
    const token = Deno.readTextFileSync(path).trim();
    if (/^[0-9a-f]{64}$/.test(token)) {
      Deno.chmodSync(path, 0o600);
      return token;
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const token = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  Deno.writeTextFileSync(path, token + "\n", { mode: 0o600 });
  Deno.chmodSync(path, 0o600);
  return token;
}

/** The refusal of a request whose Host is not this server (DNS rebinding). */
export const FOREIGN_HOST = "this server answers only to 127.0.0.1 and localhost on its own port";

/** True when the Host header names this server itself. */
export function hostAllowed(host: string | null, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** Constant-time comparison, so the token cannot be guessed a character at a time. */
export function sameToken(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token a request carries: the Bearer header, or a WebSocket's subprotocol. */
export function presentedToken(req: Request): string | null {
  const bearer = req.headers.get("authorization")?.match(/^Bearer (\S+)$/)?.[1];
  if (bearer) return bearer;
  if (!isWebSocket(req)) return null;
  for (const p of (req.headers.get("sec-websocket-protocol") ?? "").split(",")) {
    const v = p.trim();
    if (v.startsWith(WS_TOKEN_PREFIX)) return v.slice(WS_TOKEN_PREFIX.length);
  }
  return null;
}

function isWebSocket(req: Request): boolean {
  return req.headers.get("upgrade")?.toLowerCase() === "websocket";
}

/** What the server knows about a connection besides the request itself. */
export interface AdmissionFacts {
  /** The port this server listens on. */
  port: number;
  /** The install token. */
  token: string;
  /** Who opened the connection (lib/procs `peerOwner`). */
  owner: PeerOwner;
  /** The server's own uid. */
  serverUid: number;
  /** Other uids config lets in. */
  allowedUids: readonly number[];
}

/** The decision on one request. */
export type Admission =
  | { kind: "refuse"; status: 401 | 403; message: string }
  /** `/api/health` without the token: it answers only that the server is up. */
  | { kind: "health" }
  /** A page whose peer cannot be named and that brought no token: its shell, without private data. */
  | { kind: "shell" }
  | { kind: "pass" };

/** The sentence a page without a key shows, and the API's 401 says. */
export const NO_KEY =
  "this needs asm's key: open the page with `asm open`, or send Authorization: Bearer <the token in $ASM_HOME/token>";

function sameOrigin(origin: string, port: number): boolean {
  return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
}

/**
 * Why a connection opened by `owner` is refused, or null when its user may come in: the server's own uid, a uid
 * config lets in, or a platform that cannot name the peer (its requests then need the token, {@link admit}).
 * Asked once per connection as it is accepted (`connections.ts`), and again by {@link admit} for each request.
 * Pure.
 */
export function peerRefusal(
  owner: PeerOwner,
  facts: { serverUid: number; allowedUids: readonly number[] },
): string | null {
  if (owner === "not found") {
    return "asm could not tell which local user opened this connection, so it refuses it";
  }
  if (owner === "unknown" || owner.uid === facts.serverUid || facts.allowedUids.includes(owner.uid)) {
    return null;
  }
  return `asm answers only to the user running it (uid ${facts.serverUid}); this connection came from ` +
    `uid ${owner.uid}. To let that user in, add ${owner.uid} to allowed_uids in asm's config.toml`;
}

/** Decides one request. Pure. */
export function admit(req: Request, facts: AdmissionFacts): Admission {
  const { port, owner } = facts;
  if (!hostAllowed(req.headers.get("host"), port)) {
    return { kind: "refuse", status: 403, message: FOREIGN_HOST };
  }
  const refusal = peerRefusal(owner, facts);
  if (refusal !== null) return { kind: "refuse", status: 403, message: refusal };
  const peerKnown = owner !== "unknown";
  const path = new URL(req.url).pathname;
  const origin = req.headers.get("origin");
  const changes = req.method !== "GET" && req.method !== "HEAD";
  const api = path === "/api" || path.startsWith("/api/");
  if ((changes || api || isWebSocket(req)) && origin !== null && !sameOrigin(origin, port)) {
    return { kind: "refuse", status: 403, message: `a request from ${origin} may not reach asm` };
  }
  const keyed = sameToken(presentedToken(req), facts.token);
  if (isWebSocket(req)) {
    // a browser always sends Origin on a WebSocket: one without it is not the page
    if (origin === null) {
      return { kind: "refuse", status: 403, message: "a WebSocket to asm must come from its page" };
    }
    return keyed ? { kind: "pass" } : { kind: "refuse", status: 401, message: NO_KEY };
  }
  if (path.startsWith("/static/")) return { kind: "pass" }; // the page's script: no private data
  if (path === "/api/token" && req.method === "POST") {
    // trading a one-time code for the token: the code is the credential, and only the page trades it
    if (origin === null) {
      return { kind: "refuse", status: 403, message: "only asm's page trades a code for its key" };
    }
    return { kind: "pass" };
  }
  if (path === "/api" || path.startsWith("/api/")) {
    if (keyed) return { kind: "pass" };
    if (path === "/api/health" && req.method === "GET") return { kind: "health" };
    return { kind: "refuse", status: 401, message: NO_KEY };
  }
  // a page another site's document asks for (an image, a script, a frame, a fetch): refused before any work. The
  // browser says where a request comes from (Sec-Fetch-*); other ports of localhost are the same "site", so only
  // asm's own origin or the person (an address typed, a bookmark, a link followed to a top-level page) gets one
  const from = req.headers.get("sec-fetch-site");
  if (from === "cross-site" || from === "same-site") {
    const followed = req.headers.get("sec-fetch-mode") === "navigate" &&
      (req.headers.get("sec-fetch-dest") ?? "document") === "document";
    if (!followed) {
      return { kind: "refuse", status: 403, message: "another site's page may not load asm's pages" };
    }
  }
  // a page: its private data only to a peer the kernel named, or to a request that brought the token
  if (peerKnown || keyed) return { kind: "pass" };
  return { kind: "shell" };
}
