/**
 * The server: binds 127.0.0.1 only, holds the writer lock, owns the background timers (the drain every 2 s for
 * now; the poll, the import and the sweep join here) and serves the API. The only writer of the ledger.
 * @module
 */
import { join } from "node:path";
import { drainOnce, type DrainReport } from "../inbox/mod.ts";
import { type HookEvent, isoAt, Ledger } from "../ledger/mod.ts";
import { harnessRoots } from "../config/paths.ts";
import { loadAgents, orphanEventReason } from "../agents/registry.ts";
import { acquireWriterLock, type WriterLock } from "./lock.ts";
import { BackgroundTask } from "./tasks.ts";
import { jsonError, matchRoute, type Route, type ServerContext } from "./router.ts";
import { installToken, refusal } from "./security.ts";
import { type Service, SERVICES } from "./services.ts";
import { ROUTES } from "../../routes/mod.ts";

/** Options of `startServer`. */
export interface ServerOptions {
  asmHome: string;
  /** 0 picks a free port (tests) */
  port: number;
  mode?: "live" | "testing";
  drainEveryMs?: number;
  /** a reason to store an event without applying it; see DrainDeps */
  ignoreReason?: (event: HookEvent, ledger: Ledger) => string | null;
  /** the routes (default: routes/mod.ts) */
  routes?: readonly Route[];
  /** the background services besides the drain (default: lib/server/services.ts) */
  services?: readonly Service[];
  /** where agent folders are resolved from (default: the process environment) */
  env?: Record<string, string>;
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
  /** runs one drain now (tests and `./asm drain` share the code path) */
  drainNow(): DrainReport;
  close(): Promise<void>;
}

/**
 * The drain's rule for events of sessions the ledger has no row for yet: each agent's own adapter decides (e.g.
 * Codex's notify for its hidden title thread is kept as evidence, not made a row).
 */
export function registryIgnoreReason(asmHome: string): (event: HookEvent, ledger: Ledger) => string | null {
  const env = { ...Deno.env.toObject(), ASM_HOME: asmHome };
  const orphan = orphanEventReason(loadAgents({ asmHome, env }), env);
  return (event, ledger) => ledger.hasSession(event.asm_id) ? null : orphan(event);
}

/** Creates asm's data folder layout. */
export function ensureDataFolder(asmHome: string): void {
  for (const dir of ["", "inbox", "processed", "rejected", "launches", "bin", "rules", "backups"]) {
    Deno.mkdirSync(join(asmHome, dir), { recursive: true });
  }
}

/** Appends one JSON line to `$ASM_HOME/server.log`. */
export function serverLogger(asmHome: string): (line: Record<string, unknown>) => void {
  const path = join(asmHome, "server.log");
  return (line) => {
    Deno.writeTextFileSync(path, JSON.stringify({ ts: isoAt(), ...line }) + "\n", { append: true });
  };
}

/** Takes the writer lock, opens the ledger, binds 127.0.0.1 and starts the background tasks. */
export function startServer(options: ServerOptions): RunningServer {
  const { asmHome } = options;
  const mode = options.mode ?? "live";
  ensureDataFolder(asmHome);
  const lock: WriterLock = acquireWriterLock(asmHome, { mode: "serve", port: options.port || null });
  const log = serverLogger(asmHome);
  let ledger: Ledger;
  try {
    ledger = Ledger.open(join(asmHome, "ledger.sqlite"), { harnessRoots: harnessRoots(asmHome) });
  } catch (err) {
    lock.release();
    throw err;
  }
  const failures = new Map<string, number>();
  const ignoreReason = options.ignoreReason ?? registryIgnoreReason(asmHome);
  const drainNow = () => drainOnce({ asmHome, ledger, log, failures, ignoreReason });
  const drain = new BackgroundTask("drain", options.drainEveryMs ?? 2000, () => {
    const report = drainNow();
    if (report.listed > 0) log({ what: "drain", ...report });
  }, log);

  const token = installToken(asmHome);
  const routes = options.routes ?? ROUTES;
  let port = options.port;
  const tasks: BackgroundTask[] = [drain];
  const context: ServerContext = {
    asmHome,
    env: options.env ?? Deno.env.toObject(),
    mode,
    port: () => port,
    ledger,
    log,
    tasks: () => tasks.map((t) => t.status()),
    lock: lock.holder,
    token,
  };
  for (const service of options.services ?? SERVICES) {
    tasks.push(new BackgroundTask(service.name, service.everyMs, () => service.run(context), log));
  }
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port,
    onListen: () => {},
    handler: async (req) => {
      const refused = refusal(req, port, token);
      if (refused !== null) return jsonError(403, refused);
      const url = new URL(req.url);
      const found = matchRoute(routes, req.method, url.pathname);
      if (!found) return jsonError(404, `no route for ${req.method} ${url.pathname}`);
      try {
        return await found.route.handle(req, context, found.params);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log({ what: "route failed", route: found.route.pattern, error: message });
        return jsonError(500, message);
      }
    },
  });
  port = server.addr.port;
  lock.setPort(port);
  for (const task of tasks) task.start();
  log({ what: "listening", port, mode, pid: Deno.pid });

  let closed = false;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    ledger,
    context,
    token,
    drainNow,
    async close() {
      if (closed) return;
      closed = true;
      for (const task of tasks) task.stop();
      await server.shutdown();
      ledger.close();
      lock.release();
      log({ what: "stopped", port });
    },
  };
}

export { harnessRoots };
