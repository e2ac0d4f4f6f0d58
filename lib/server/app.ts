/**
 * The server, asm's composition root: it binds 127.0.0.1 only, holds the writer lock, owns the background timers
 * (the drain every 2 s, and the services of `services.ts`), keeps the server's state (`state.ts`), decides who
 * gets in (`security.ts`) and serves the routes it is handed. The only writer of the ledger.
 * @module
 */
import { join } from "node:path";
import { drainOnce, type DrainReport } from "../inbox/mod.ts";
import { type HookEvent, isoAt, Ledger } from "../ledger/mod.ts";
import { ASM_VERSION, harnessRoots, loadSettings, syncedRefusal } from "../config/mod.ts";
import { loadAgents, orphanEventReason } from "../agents/mod.ts";
import { acquireWriterLock, type WriterLock } from "./lock.ts";
import { directFetch } from "./client.ts";
import { BackgroundTask } from "./tasks.ts";
import { createRouter, json, jsonError, type Route, type ServerContext } from "./router.ts";
import { newServerState } from "./state.ts";
import { admit, FOREIGN_HOST, installToken } from "./security.ts";
import { OneTimeCodes } from "./codes.ts";
import { PeerLookup, type PeerOwner } from "../procs/mod.ts";
import {
  connectionCaps,
  listenConnections,
  type ListenedConnections,
  openFileLimit,
  type Peer,
} from "./connections.ts";
import { appendRotating, NODE_FILES } from "../files/mod.ts";
import { islandBundle, refusalPage, shellPage } from "../ui/mod.ts";
import { tightenDataFolder } from "./data_folder.ts";
import { type Service, SERVICES } from "./services.ts";
import { errorText, type Log, type LogLine } from "../lang/mod.ts";
import { ServerFaults } from "./faults.ts";
import { previousServerLine } from "./lifecycle.ts";
import { configuredBoard, readRealLists, realListRefusal } from "../reconcile/mod.ts";

/** Options of `startServer`. */
export interface ServerOptions {
  asmHome: string;
  /** 0 picks a free port (tests) */
  port: number;
  /** overrides config.toml's `mode` (`./asm serve --testing`); absent: config's, default live */
  mode?: "live" | "testing";
  drainEveryMs?: number;
  /** the rule for events of sessions with no row yet; see DrainDeps */
  orphanReason?: (event: HookEvent) => string | null;
  /** the routes, matched in order (the app's are `routes/mod.ts`, handed in by `main.ts`) */
  routes: readonly Route[];
  /** the background services besides the drain (default: lib/server/services.ts) */
  services?: readonly Service[];
  /** where agent folders are resolved from (default: the process environment) */
  env?: Record<string, string>;
  /** who opened a connection (default: the kernel's socket table); tests hand in "unknown" or another uid */
  peerOwner?: (peer: { hostname: string; port: number }, serverPort: number) => PeerOwner;
  /** the file reads requests trigger (default: node:fs, regular files only); tests count or hold them */
  files?: ServerContext["files"];
}

/** A running server. */
export interface RunningServer {
  port: number;
  url: string;
  ledger: Ledger;
  /** what handlers and services see */
  context: ServerContext;
  /** the install token (tests send it as a Bearer) */
  token: string;
  /** a request to this server with the token as its Bearer (what `asm` commands and scripts send) */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** runs one drain now (tests and `./asm drain` share the code path) */
  drainNow(): DrainReport;
  close(): Promise<void>;
}

/**
 * The drain's rule for events of sessions the ledger has no row for yet: each agent's own adapter decides (e.g.
 * Codex's notify for its hidden title thread is kept as evidence, not made a row), looking in the agent folders
 * of `agentEnv` (the server's own environment: the one its poll and import read).
 */
export function registryOrphanReason(
  asmHome: string,
  agentEnv: Record<string, string> = Deno.env.toObject(),
): (event: HookEvent) => string | null {
  const env = { ...agentEnv, ASM_HOME: asmHome };
  return orphanEventReason(loadAgents({ asmHome, env }), env);
}

/** Creates asm's data folder layout: every folder 0700 (the data is the user's, and nobody else's). */
export function ensureDataFolder(asmHome: string): void {
  for (const dir of ["", "inbox", "processed", "rejected", "launches", "bin", "rules", "backups"]) {
    const path = join(asmHome, dir);
    Deno.mkdirSync(path, { recursive: true, mode: 0o700 });
    Deno.chmodSync(path, 0o700);
  }
}

/**
 * Appends one JSON line to `$ASM_HOME/server.log` (created 0600; past 10 MiB it moves to `server.log.1`). It never
 * throws: a line that cannot be written (a full disk) is counted as a fault of the log in `faults`, which the
 * health names while it lasts, and the first line written after it says how many were lost, when and why.
 */
export function serverLogger(asmHome: string, faults: ServerFaults = new ServerFaults()): Log {
  const path = join(asmHome, "server.log");
  return (line) => {
    const spell = faults.current("log");
    // after a full disk the last line may have been cut mid-way: the record of the loss starts a line of its own
    const lost = spell
      ? "\n" + logText({
        what: "server log lines lost",
        lines: spell.count,
        since: isoAt(spell.since),
        error: spell.error,
      })
      : "";
    try {
      // rotated by size: a server that runs for months keeps a bounded log
      appendRotating(path, lost + logText(line));
      faults.recovered("log");
    } catch (err) {
      faults.failed("log", err);
    }
  };
}

/** One log line's text; a value JSON cannot hold (a bigint from SQLite) is written as its digits. */
function logText(line: LogLine): string {
  return JSON.stringify(
    { ts: isoAt(), ...line },
    (_key, value) => typeof value === "bigint" ? value.toString() : value,
  ) + "\n";
}

/**
 * The server will not start on this data folder as configured, and says why in a sentence: config.toml's mode
 * cannot be read, or a testing server's board is one of the real lists (`lib/reconcile/real_lists.ts`).
 */
export class StartRefused extends Error {
  override name = "StartRefused";
}

/**
 * The mode a server runs in and its settings; a sentence when it must not start. The option (`--testing`) wins;
 * else `ASM_MODE=testing` in the process's environment (`./asm test` sets it: every test's server is a testing
 * one unless the test asks for live by name; the variable can only ever force testing); else config's.
 */
function modeAndSettings(asmHome: string, asked: "live" | "testing" | undefined) {
  const loaded = loadSettings(asmHome);
  const forced = Deno.env.get("ASM_MODE") === "testing" ? "testing" : undefined;
  if ((asked ?? forced) === undefined && loaded.refusal !== null) throw new StartRefused(loaded.refusal);
  const mode = asked ?? forced ?? loaded.settings.mode;
  const board = configuredBoard(asmHome, mode, loaded.settings.board);
  const refusal = realListRefusal(mode, board, readRealLists(asmHome, { home: Deno.env.get("HOME") }));
  if (refusal !== null) throw new StartRefused(refusal);
  return { mode, ...loaded };
}

/** Bodies of state-changing requests are read up to this many bytes unless the route says otherwise. */
export const DEFAULT_BODY_BYTES = 64 * 1024;
/** Heavy requests (search, the session page) served at once; more wait for none: they get a 503 at once. */
export const MAX_HEAVY = 4;

/** The request with its body read into memory, or how many bytes were read before the limit was passed. */
async function boundedBody(req: Request, limit: number): Promise<Request | { over: number }> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await req.body?.cancel();
    return { over: 0 };
  }
  if (req.body === null) return req;
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel();
      return { over: total };
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.length;
  }
  // no signal carried over: the body is read, and reading `req.signal` makes Deno print its legacy-abort notice
  // on the person's terminal (no route of a bounded body waits on the connection)
  return new Request(req.url, { method: req.method, headers: req.headers, body });
}

/** Takes the writer lock, opens the ledger, binds 127.0.0.1 and starts the background tasks. */
export function startServer(options: ServerOptions): RunningServer {
  const { asmHome } = options;
  // checked at every start, not only at install: ASM_HOME may have moved since
  const synced = syncedRefusal(asmHome);
  if (synced !== null) throw new StartRefused(synced);
  ensureDataFolder(asmHome);
  // before the lock: a server that must not start leaves nothing behind
  const { mode, settings, problem: settingsProblem } = modeAndSettings(asmHome, options.mode);
  // no port yet: the lock names one only once it is bound (lock.setPort below), so a client that reads the lock
  // (`asm open`, `asm install`'s address, `asm doctor`) never calls a port nothing listens on yet
  const lock: WriterLock = acquireWriterLock(asmHome, { mode: "serve", port: null, boardMode: mode });
  // what the machine does to the server itself (a full disk, no file descriptors left): the health names it
  const faults = new ServerFaults();
  const log = serverLogger(asmHome, faults);
  const tightened = tightenDataFolder(asmHome);
  if (tightened.changed.length) {
    log({
      what: "data folder tightened",
      paths: tightened.changed.length,
      first: tightened.changed.slice(0, 5),
    });
  }
  for (const { path, error } of tightened.failed.slice(0, 5)) {
    log({ what: "data folder: could not make private", path, error });
  }
  if (settingsProblem) log({ what: "config.toml", problem: settingsProblem });
  let ledger: Ledger;
  try {
    ledger = Ledger.open(join(asmHome, "ledger.sqlite"), { harnessRoots: harnessRoots(asmHome) });
  } catch (err) {
    lock.release();
    throw err;
  }
  const failures = new Map<string, number>();
  const orphanReason = options.orphanReason ?? registryOrphanReason(asmHome, options.env);
  // the state is the context's (created below): the first pass runs only once the tasks start
  const drainNow = () =>
    drainOnce({ asmHome, ledger, log, failures, orphanReason, state: context.state.drain });
  const drain = new BackgroundTask("drain", options.drainEveryMs ?? 2000, () => {
    const report = drainNow();
    // a pass that only met files still waiting (a full disk) has nothing new to say: its health says it
    if (report.listed > report.write_failed + report.unread) log({ what: "drain", ...report });
    // a log that failed is tried again every pass, so its fault ends as soon as the disk has room again, even
    // when nothing else has anything to say
    else if (faults.current("log")) log({ what: "server log tried again" });
  }, log);

  const token = installToken(asmHome);
  const router = createRouter(options.routes);
  let port = options.port;
  const tasks: BackgroundTask[] = [drain];
  const env = options.env ?? Deno.env.toObject();
  const context: ServerContext = {
    asmHome,
    env,
    mode,
    port: () => port,
    ledger,
    log,
    tasks: () => tasks.map((t) => t.status()),
    lock: lock.holder,
    token,
    codes: new OneTimeCodes(),
    files: options.files ?? NODE_FILES,
    settings,
    faults,
    connections: () => server.counts(),
    state: newServerState({ ledger, asmHome, env, log, mode, settings }),
  };
  for (const service of options.services ?? SERVICES) {
    const run = () => service.run(context);
    tasks.push(new BackgroundTask(service.name, service.everyMs, run, log, service.startAfterMs));
  }
  const serverUid = Deno.uid() ?? -1;
  let heavy = 0;
  /** One request of an admitted connection (its peer was judged as it was accepted: connections.ts). */
  const handle = async (req: Request, peer: Peer): Promise<Response> => {
    // a Host that makes no address (`127.0.0.1:7777.evil.example`) is a foreign Host: refused as admit refuses
    // one, before anything reads the address (nothing of it echoed, nothing logged)
    const url = urlOf(req);
    if (url === null) return jsonError(403, FOREIGN_HOST);
    const api = url.pathname === "/api" || url.pathname.startsWith("/api/");
    const verdict = admit(req, {
      port,
      token,
      owner: peer.owner,
      serverUid,
      allowedUids: settings.allowedUids,
    });
    if (verdict.kind === "refuse") {
      return api ? jsonError(verdict.status, verdict.message) : refusalPage(verdict.status, verdict.message);
    }
    if (verdict.kind === "health") return json({ ok: true, status: "up", version: ASM_VERSION });
    if (verdict.kind === "shell") return shellPage((await islandBundle()).url);
    const found = router.match(req.method, url.pathname);
    if (!found) return jsonError(404, `no route for ${req.method} ${url.pathname}`);
    let request = req;
    if (req.method !== "GET" && req.method !== "HEAD") {
      const limit = found.route.maxBodyBytes ?? DEFAULT_BODY_BYTES;
      const bounded = await boundedBody(req, limit);
      if (!(bounded instanceof Request)) {
        log({ what: "request body refused", route: found.route.pattern, limit, read: bounded.over });
        return jsonError(413, `a request to ${found.route.pattern} may carry at most ${limit} bytes`);
      }
      request = bounded;
    }
    if (found.route.heavy) {
      if (heavy >= MAX_HEAVY) {
        const busy = jsonError(503, `asm is busy with ${heavy} heavy requests; try again in a moment`);
        busy.headers.set("retry-after", "1");
        return busy;
      }
      heavy++;
    }
    try {
      return await found.route.handle(request, context, found.params, peer);
    } catch (err) {
      const message = errorText(err);
      log({ what: "route failed", route: found.route.pattern, error: message });
      return jsonError(500, message);
    } finally {
      if (found.route.heavy) heavy--;
    }
  };
  // the socket table is read on its own thread (lib/procs PeerLookup): a large table must not stop the loop
  const peers = new PeerLookup();
  const ownersOf = options.peerOwner
    ? (list: { hostname: string; port: number }[], serverPort: number) =>
      list.map((p) => options.peerOwner!(p, serverPort))
    : (list: { hostname: string; port: number }[], serverPort: number) => peers.owners(list, serverPort);
  let server: ListenedConnections;
  try {
    server = listenConnections({
      hostname: "127.0.0.1",
      port: options.port,
      handler: async (req, peer) => {
        try {
          return await handle(req, peer);
        } catch (err) {
          // reading the request itself failed (its body cut short): that request fails, the server goes on
          log({ what: "request failed", error: errorText(err) });
          return jsonError(500, errorText(err));
        }
      },
      ownersOf,
      serverUid,
      allowedUids: settings.allowedUids,
      // read again for each batch: the file limit can be changed under a running process (prlimit)
      caps: () => connectionCaps(openFileLimit(readTextOrNull("/proc/self/limits"))),
      log,
      faults,
    });
  } catch (err) {
    // a port that is taken (or not ours to bind) leaves nothing behind: the lock and the ledger go back
    ledger.close();
    lock.release();
    throw err;
  }
  port = server.port;
  lock.setPort(port);
  for (const task of tasks) task.start();
  // a predecessor that died where no line could be written (SIGKILL, out of memory) is named before this start
  const predecessor = previousServerLine(options.asmHome);
  if (predecessor) log(predecessor);
  log({ what: "listening", port, mode, pid: Deno.pid });

  let closed = false;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    ledger,
    context,
    token,
    api(path, init = {}) {
      const headers = new Headers(init.headers);
      headers.set("authorization", `Bearer ${token}`);
      return directFetch(port, path, { ...init, headers });
    },
    drainNow,
    async close() {
      if (closed) return;
      closed = true;
      for (const task of tasks) task.stop();
      await context.state.transcripts.close();
      await context.state.board.close();
      // a followed transcript's stream never ends by itself: the shutdown would wait for it
      context.state.streams.closing.abort();
      await context.state.views.closeAll();
      // a response a client never reads (its socket full) would hold a graceful shutdown for ever: stop waiting
      await server.close(SHUTDOWN_WAIT_MS);
      peers.close();
      ledger.close();
      lock.release();
      log({ what: "stopped", port, pid: Deno.pid });
    },
  };
}

/** The request's address, or null when its Host makes none. */
function urlOf(req: Request): URL | null {
  try {
    return new URL(req.url);
  } catch {
    return null;
  }
}

/** A small kernel file's text, or null where there is none (not Linux). */
function readTextOrNull(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

/** How long closing waits for the responses still being sent. */
const SHUTDOWN_WAIT_MS = 5000;

export { harnessRoots };
