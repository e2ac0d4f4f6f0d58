/**
 * Security is a feature: the server binds 127.0.0.1 only; a request whose Host is not this server's own
 * (`127.0.0.1:<port>` or `localhost:<port>`) is refused (DNS rebinding); a state-changing request needs no foreign
 * Origin and the install token (the page's SameSite=Strict cookie, or `Authorization: Bearer` for scripts, read
 * from `$ASM_HOME/token`). No CORS headers, ever.
 * @module
 */
import { join } from "node:path";

/** The cookie that carries the install token for the page. */
export const TOKEN_COOKIE = "asm_token";

/** Reads `$ASM_HOME/token`, creating it (0600, 32 random bytes as hex) when missing. */
export function installToken(asmHome: string): string {
  const path = join(asmHome, "token");
  try {
    const token = Deno.readTextFileSync(path).trim();
    if (/^[0-9a-f]{64}$/.test(token)) return token;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const token = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  Deno.writeTextFileSync(path, token + "\n", { mode: 0o600 });
  Deno.chmodSync(path, 0o600);
  return token;
}

/** True when the Host header names this server itself. */
export function hostAllowed(host: string | null, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

function cookieValue(header: string | null, name: string): string | null {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return null;
}

/** Constant-time comparison, so the token cannot be guessed a character at a time. */
function sameToken(a: string | null, b: string): boolean {
  if (a === null || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Why a request must be refused, as a sentence, or null when it may go on. GETs need only the right Host; a
 * POST also needs a same-origin (or no) Origin and the token.
 */
export function refusal(req: Request, port: number, token: string): string | null {
  if (!hostAllowed(req.headers.get("host"), port)) {
    return "this server answers only to 127.0.0.1 and localhost on its own port";
  }
  if (req.method === "GET" || req.method === "HEAD") return null;
  const origin = req.headers.get("origin");
  if (origin !== null && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) {
    return `a request from ${origin} may not change anything here`;
  }
  const bearer = req.headers.get("authorization")?.match(/^Bearer (\S+)$/)?.[1] ?? null;
  const cookie = cookieValue(req.headers.get("cookie"), TOKEN_COOKIE);
  if (!sameToken(bearer, token) && !sameToken(cookie, token)) {
    return "this action needs asm's install token (the page's cookie, or Authorization: Bearer from $ASM_HOME/token)";
  }
  return null;
}
