/**
 * The server's connections, below HTTP. `Deno.serve` owns its accept loop, and three things about it let any local
 * user end or starve the server: when the process runs out of file descriptors its listener fails for good (its
 * `finished` promise rejects and nothing is accepted again); it reads a request's headers before anyone can ask
 * who opened the connection; and it waits for those headers for ever. So asm accepts connections itself and hands
 * each one it admits to Deno's HTTP/1.1 engine for one connection (`Deno.serveHttp`):
 *
 * 1. an accept that fails is a fault of the server ("out of file descriptors"), named by the health and retried
 *    with a growing pause, never the end of the server; the first accept that works again ends the fault;
 * 2. who opened a connection is asked of the kernel as it is accepted, before one byte of it is read (one read of
 *    the socket table for all the connections accepted since the last read): another user's connection is
 *    answered one 403 sentence and closed (`security.ts` decides, {@link judgePeer} here);
 * 3. caps: connections served at once, all users together, stay below half the process's file limit (the ledger,
 *    the logs, the agents' files and tmux always have descriptors left), and one user may hold at most three
 *    quarters of them; a connection over a cap is closed at once;
 * 4. a new connection must send its first request's head within {@link HEADER_TIMEOUT_MS}; a kept-alive one
 *    waiting longer than {@link IDLE_TIMEOUT_MS} for its next request is closed, as any HTTP server does (which
 *    also ends one whose client never reads a whole answer the engine holds); a piped answer that is not one of
 *    asm's streams must be sent within {@link SEND_TIMEOUT_MS}. A connection its client reset before it was
 *    accepted is no fault at all: the next is accepted at once.
 *
 * The decisions ({@link judgePeer}, {@link connectionCaps}) are pure; {@link listenConnections} is the shell.
 * @module
 */
import type { PeerOwner } from "../procs/mod.ts";
import { type Log } from "../lang/mod.ts";
import type { ServerFaults } from "./faults.ts";
import { peerRefusal } from "./security.ts";

/** How long a new connection may take to send its first request's head. */
export const HEADER_TIMEOUT_MS = 5_000;
/** How long a kept-alive connection may wait for its next request before it is closed. */
export const IDLE_TIMEOUT_MS = 60_000;
/**
 * How long an answer that is not a stream may take to be sent: one a client does not read would otherwise be held
 * in memory for as long as the client kept the connection.
 */
export const SEND_TIMEOUT_MS = 60_000;
/** Refusals being answered at once for one refused uid; more of its connections are closed without an answer. */
const MAX_REFUSING_PER_UID = 32;
/** How long a refused connection is read on (what its client sent) before it is closed. */
const REFUSAL_LINGER_MS = 1_000;
/** How long an accepted connection may wait to be judged while the socket table cannot be read. */
const LOOKUP_WAIT_MS = 10_000;
/** The pauses after failed accepts: the first at once, then growing to a second. */
const ACCEPT_PAUSES_MS = [10, 50, 100, 250, 500, 1000];

/** Who is at the other end of a connection, as the handler of each of its requests sees it. */
export interface Peer {
  /** the uid that opened it, "unknown" where the platform cannot say (then every request must bring the key) */
  owner: PeerOwner;
  hostname: string;
  port: number;
}

/** The caps on connections served at once. */
export interface ConnectionCaps {
  /** all users together */
  total: number;
  /** any one uid */
  perUid: number;
}

/** The caps for a process whose soft limit on open files is `fileLimit` (null: unknown). Pure. */
export function connectionCaps(fileLimit: number | null): ConnectionCaps {
  // half the descriptors for connections: the rest is the ledger's, the logs', the agents' files' and the
  // children's; at least 32 (a page, its streams and a few commands), at most 4096
  const total = Math.max(32, Math.min(4096, Math.floor((fileLimit ?? 1024) / 2)));
  return { total, perUid: Math.floor(total * 3 / 4) };
}

/** The soft limit on this process's open files, from /proc/self/limits (null where there is none). */
export function openFileLimit(limitsText: string | null): number | null {
  const m = limitsText?.match(/^Max open files\s+(\d+|unlimited)\s/m);
  if (!m) return null;
  return m[1] === "unlimited" ? null : Number(m[1]);
}

/** What the server knows when it judges a new connection. */
export interface PeerFacts {
  serverUid: number;
  allowedUids: readonly number[];
  caps: ConnectionCaps;
  /** connections being served now, all together and of this connection's uid */
  open: { total: number; ofUid: number };
  /** refusals of this connection's uid being answered now */
  refusing: number;
}

/** What happens to a new connection. */
export type PeerVerdict =
  | { kind: "serve" }
  /** answered one sentence (403), then closed */
  | { kind: "refuse"; message: string }
  /** closed at once: the answer itself would cost what the cap protects */
  | { kind: "drop"; why: string };

/** Decides a new connection from who opened it. Pure. */
export function judgePeer(owner: PeerOwner, facts: PeerFacts): PeerVerdict {
  const refusal = peerRefusal(owner, facts);
  if (refusal !== null) {
    return facts.refusing >= MAX_REFUSING_PER_UID
      ? { kind: "drop", why: `${facts.refusing} refusals of this user are being answered` }
      : { kind: "refuse", message: refusal };
  }
  if (facts.open.total >= facts.caps.total) {
    return { kind: "drop", why: `${facts.open.total} connections are open, the most asm serves at once` };
  }
  if (facts.open.ofUid >= facts.caps.perUid) {
    return {
      kind: "drop",
      why: `this user has ${facts.open.ofUid} connections open, the most one user may hold`,
    };
  }
  return { kind: "serve" };
}

/** One request of Deno's engine for one connection (`Deno.serveHttp`). */
interface RequestEvent {
  readonly request: Request;
  respondWith(response: Response): Promise<void>;
}

/** Deno's HTTP/1.1 engine on one accepted connection. */
interface HttpConnection {
  nextRequest(): Promise<RequestEvent | null>;
  close(): void;
}

/**
 * `Deno.serveHttp`: present in the pinned Deno (2.9.6), no longer in its types (decision 207 says why asm uses
 * it). A runtime without it cannot serve: said in one sentence at start.
 */
function httpEngine(): (conn: Deno.Conn) => HttpConnection {
  const engine = (Deno as unknown as { serveHttp?: (conn: Deno.Conn) => HttpConnection }).serveHttp;
  if (typeof engine !== "function") {
    throw new Error("this Deno has no Deno.serveHttp, which asm's server needs; run asm with Deno 2.9.6");
  }
  return (conn) => engine.call(Deno, conn);
}

/** Options of {@link listenConnections}. */
export interface ListenOptions {
  hostname: string;
  /** 0 picks a free port */
  port: number;
  /** answers one request; never throws (the server's handler catches its routes' errors) */
  handler(req: Request, peer: Peer): Promise<Response>;
  /** who opened each of the connections to `serverPort` (one read of the kernel's table for them all) */
  ownersOf(
    peers: { hostname: string; port: number }[],
    serverPort: number,
  ): PeerOwner[] | Promise<PeerOwner[]>;
  serverUid: number;
  allowedUids: readonly number[];
  /** the caps now (asked for each batch: the file limit can be changed under a running process) */
  caps(): ConnectionCaps;
  log: Log;
  faults: ServerFaults;
  /** default {@link HEADER_TIMEOUT_MS} */
  headerTimeoutMs?: number;
  /** default {@link IDLE_TIMEOUT_MS} */
  idleTimeoutMs?: number;
  /** default {@link SEND_TIMEOUT_MS} */
  sendTimeoutMs?: number;
}

/** What {@link ListenedConnections.counts} reports: /api/health shows it. */
export interface ConnectionCounts {
  open: number;
  /** another user's connections refused since the start */
  refused: number;
  /** connections closed at a cap since the start */
  dropped: number;
  /** connections closed for sending no request head in time since the start */
  timed_out: number;
  /** connections closed for not reading their answer within {@link SEND_TIMEOUT_MS} since the start */
  stalled: number;
  /** connections gone before they could be accepted (reset by their client) since the start */
  aborted: number;
  caps: ConnectionCaps;
}

/** The listening server. */
export interface ListenedConnections {
  port: number;
  counts(): ConnectionCounts;
  /**
   * Stops accepting, closes the idle connections, waits up to `waitMs` for the responses being sent, then
   * closes the rest.
   */
  close(waitMs: number): Promise<void>;
}

/** One connection being served. */
interface Served {
  uid: number | null;
  http: HttpConnection | null;
  /** a request is being answered */
  busy: boolean;
  done: Promise<void>;
}

/** Binds `hostname:port` (throws as Deno.listen does: AddrInUse, PermissionDenied) and serves connections. */
export function listenConnections(options: ListenOptions): ListenedConnections {
  const serveHttp = httpEngine();
  const listener = Deno.listen({ hostname: options.hostname, port: options.port, transport: "tcp" });
  const port = (listener.addr as Deno.NetAddr).port;
  const headerTimeoutMs = options.headerTimeoutMs ?? HEADER_TIMEOUT_MS;
  const idleTimeoutMs = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const sendTimeoutMs = options.sendTimeoutMs ?? SEND_TIMEOUT_MS;
  const served = new Set<Served>();
  const ofUid = new Map<number | null, number>();
  const refusing = new Map<number, number>();
  const refusals = new Set<Promise<void>>();
  const loggedUids = new Set<number>();
  const counts = { refused: 0, dropped: 0, timed_out: 0, stalled: 0, aborted: 0 };
  let dropSpell = false;
  let closing = false;
  /** connections accepted and not judged yet, with when they were accepted */
  const waiting: { conn: Deno.Conn; at: number }[] = [];
  let judging = false;
  /** the judging in progress (or the last): closing waits for it, so no connection it holds is left open */
  let judged: Promise<void> = Promise.resolve();
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const acceptLoop = (async () => {
    let failures = 0;
    while (!closing) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (err) {
        if (closing || err instanceof Deno.errors.BadResource) break;
        // a connection its client reset before it was accepted: that connection's end, not the server's trouble,
        // and the next one is accepted at once (a pause here would let any user keep the server deaf)
        if (goneBeforeAccept(err)) {
          counts.aborted++;
          continue;
        }
        // out of file descriptors (or any other failed accept): the server goes on and tries again shortly
        if (options.faults.failed("accept", err)) {
          options.log({ what: "accept failed", error: options.faults.current("accept")?.error });
        }
        await pause(ACCEPT_PAUSES_MS[Math.min(failures++, ACCEPT_PAUSES_MS.length - 1)]);
        continue;
      }
      failures = 0;
      const spell = options.faults.recovered("accept");
      if (spell) {
        options.log({
          what: "accept recovered",
          failed: spell.count,
          since: new Date(spell.since).toISOString(),
        });
      }
      waiting.push({ conn, at: Date.now() });
      if (!judging && retryTimer === undefined) judged = judgeWaiting();
    }
  })();

  /**
   * Judges every connection accepted so far with one read of the socket table, until none waits. While a read
   * runs (on its own thread), the connections accepted meanwhile wait and are judged together by the next.
   */
  async function judgeWaiting(): Promise<void> {
    judging = true;
    try {
      while (waiting.length > 0 && !closing) {
        const caps = options.caps();
        const batch = waiting.splice(0);
        // over the cap, a connection is closed before the table is read for it: the cap protects that cost too
        const inCap = batch.filter((c) => {
          if (served.size < caps.total) return true;
          drop(c.conn, `${served.size} connections are open, the most asm serves at once`);
          return false;
        });
        if (inCap.length === 0) continue;
        const peers = inCap.map((c) => c.conn.remoteAddr as Deno.NetAddr);
        let owners: PeerOwner[];
        try {
          owners = await options.ownersOf(peers, port);
        } catch (err) {
          if (closing) {
            for (const c of inCap) closeQuietly(c.conn);
            return;
          }
          // the table could not be read (the process is out of file descriptors): the server's trouble, not
          // the peers', so they wait to be judged once it can be read; nobody is let in unjudged (fail closed),
          // and a connection that waited too long is refused
          if (options.faults.failed("peers", err)) {
            options.log({ what: "peer lookup failed", error: options.faults.current("peers")?.error });
          }
          const now = Date.now();
          for (const c of inCap) {
            if (now - c.at < LOOKUP_WAIT_MS) waiting.push(c);
            else admit(c.conn, c.conn.remoteAddr as Deno.NetAddr, "not found", caps);
          }
          if (waiting.length > 0 && retryTimer === undefined && !closing) {
            retryTimer = setTimeout(() => {
              retryTimer = undefined;
              if (!judging && !closing) judged = judgeWaiting();
            }, 200);
          }
          return;
        }
        const spell = options.faults.recovered("peers");
        if (spell) options.log({ what: "peer lookup recovered", failed: spell.count });
        inCap.forEach((c, i) => admit(c.conn, peers[i], owners[i], caps));
      }
    } finally {
      judging = false;
    }
  }

  function admit(conn: Deno.Conn, address: Deno.NetAddr, owner: PeerOwner, caps: ConnectionCaps): void {
    if (closing) return closeQuietly(conn);
    const uid = typeof owner === "object" ? owner.uid : null;
    const verdict = judgePeer(owner, {
      serverUid: options.serverUid,
      allowedUids: options.allowedUids,
      caps,
      open: { total: served.size, ofUid: ofUid.get(uid) ?? 0 },
      refusing: uid === null ? 0 : refusing.get(uid) ?? 0,
    });
    if (verdict.kind === "drop") return drop(conn, verdict.why);
    if (verdict.kind === "refuse") {
      counts.refused++;
      if (uid !== null && !loggedUids.has(uid)) {
        loggedUids.add(uid); // one line per uid: a client retrying must not fill the log
        options.log({ what: "refused", uid, why: verdict.message });
      }
      const key = uid ?? -1;
      refusing.set(key, (refusing.get(key) ?? 0) + 1);
      const refusal = refuse(conn, verdict.message).finally(() => {
        refusing.set(key, refusing.get(key)! - 1);
        refusals.delete(refusal);
      });
      refusals.add(refusal);
      return;
    }
    dropSpell = false;
    const peer: Peer = { owner, hostname: address.hostname, port: address.port };
    const entry: Served = { uid, http: null, busy: false, done: Promise.resolve() };
    served.add(entry);
    ofUid.set(uid, (ofUid.get(uid) ?? 0) + 1);
    entry.done = serve(conn, peer, entry).finally(() => {
      served.delete(entry);
      ofUid.set(uid, ofUid.get(uid)! - 1);
    });
  }

  function drop(conn: Deno.Conn, why: string): void {
    counts.dropped++;
    if (!dropSpell) {
      dropSpell = true; // one line until a connection is served again
      options.log({ what: "connection dropped", why });
    }
    closeQuietly(conn);
  }

  async function serve(conn: Deno.Conn, peer: Peer, entry: Served): Promise<void> {
    let http: HttpConnection;
    try {
      http = serveHttp(conn);
    } catch (err) {
      options.log({ what: "connection failed", error: String(err) });
      closeQuietly(conn);
      return;
    }
    entry.http = http;
    let first = true;
    try {
      for (;;) {
        const next = await withTimeout(http.nextRequest(), first ? headerTimeoutMs : idleTimeoutMs);
        if (next === TIMED_OUT) {
          if (first) counts.timed_out++;
          break;
        }
        // null: the client closed, or the engine did after an answer that said `connection: close`
        if (next === null) break;
        first = false;
        entry.busy = true;
        try {
          const response = await options.handler(next.request, peer);
          // closing: the engine closes the connection once this answer is sent (closing it here would cut the
          // answer short), and the next nextRequest() says so
          if (closing) closeAfter(response);
          // an answer that is not a stream is sent within a minute, or its client is not reading it: the
          // connection ends (its answer held in memory for as long as the client liked)
          const sent = isStream(response)
            ? await next.respondWith(response)
            : await withTimeout(next.respondWith(response), sendTimeoutMs);
          if (sent === TIMED_OUT) {
            counts.stalled++;
            break;
          }
        } finally {
          entry.busy = false;
        }
      }
    } catch {
      // the client went away mid-request or mid-answer, or sent what is not HTTP: that connection ends, alone
    } finally {
      try {
        http.close();
      } catch {
        // already closed by the engine
      }
    }
  }

  return {
    port,
    counts: () => ({ open: served.size, ...counts, caps: options.caps() }),
    async close(waitMs) {
      if (closing) return;
      closing = true;
      listener.close();
      await acceptLoop;
      clearTimeout(retryTimer);
      await judged;
      for (const { conn } of waiting.splice(0)) closeQuietly(conn);
      // idle connections at once; those answering a request finish it first, for at most `waitMs`
      for (const entry of served) if (!entry.busy) entry.http?.close();
      const all = Promise.all([...served].map((e) => e.done.catch(() => {})));
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([all, new Promise((r) => (timer = setTimeout(r, waitMs)))]);
      clearTimeout(timer);
      for (const entry of served) {
        try {
          entry.http?.close();
        } catch {
          // closed as the race ended
        }
      }
      await Promise.all([all, ...refusals]);
    },
  };
}

const TIMED_OUT = Symbol("timed out");

/** `promise`, or TIMED_OUT when it has not settled within `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((r) => (timer = setTimeout(() => r(TIMED_OUT), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A streamed answer (asm's streams are JSON lines): it lasts as long as it lasts, never timed out. */
function isStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").startsWith("application/x-ndjson");
}

/**
 * An accept that failed because the connection went away first (its client reset it: ECONNABORTED, ECONNRESET,
 * ENOTCONN, EPROTO): nothing is wrong with the server.
 */
function goneBeforeAccept(err: unknown): boolean {
  if (err instanceof Deno.errors.ConnectionAborted || err instanceof Deno.errors.ConnectionReset) return true;
  if (err instanceof Deno.errors.NotConnected) return true;
  return /os error (103|104|107|71)\b|not connected|connection (reset|aborted)/i.test(String(err));
}

/** Marks an answer as the connection's last; an answer whose headers cannot change goes as it is. */
function closeAfter(response: Response): void {
  try {
    response.headers.set("connection", "close");
  } catch {
    // immutable headers (a fetched response): the close after the timeout ends the connection instead
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // the client closed it first
  }
}

/**
 * Answers a refused connection with one 403 sentence, without reading its request first, then reads what the
 * client sent until it closes (or a second passes): closing with its request unread would reset the connection
 * before the client read the answer.
 */
async function refuse(conn: Deno.Conn, message: string): Promise<void> {
  const body = new TextEncoder().encode(JSON.stringify({ error: message }) + "\n");
  const head = new TextEncoder().encode(
    "HTTP/1.1 403 Forbidden\r\ncontent-type: application/json; charset=utf-8\r\n" +
      `content-length: ${body.length}\r\ncache-control: no-store\r\nx-content-type-options: nosniff\r\n` +
      "connection: close\r\n\r\n",
  );
  const answer = new Uint8Array(head.length + body.length);
  answer.set(head);
  answer.set(body, head.length);
  const deadline = Date.now() + REFUSAL_LINGER_MS;
  try {
    let written = 0;
    while (written < answer.length) {
      const n = await withTimeout(conn.write(answer.subarray(written)), deadline - Date.now());
      if (n === TIMED_OUT) return;
      written += n;
    }
    await conn.closeWrite();
    const sink = new Uint8Array(16 * 1024);
    for (let read = 0; read < 64 * 1024;) {
      const n = await withTimeout(conn.read(sink), Math.max(0, deadline - Date.now()));
      if (n === TIMED_OUT || n === null) return;
      read += n;
    }
  } catch {
    // the client went away first: nothing more to tell it
  } finally {
    closeQuietly(conn);
  }
}

/** The uid of a connection's user, or null where the platform cannot name it. */
export function peerUid(peer: Peer): number | null {
  return typeof peer.owner === "object" ? peer.owner.uid : null;
}
