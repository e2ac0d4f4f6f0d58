/**
 * The server: binds 127.0.0.1 only, holds the writer lock, owns the background timers (the drain every 2 s for
 * now; the poll, the import and the sweep join here) and serves the API. The only writer of the ledger.
 * @module
 */
import { join } from "node:path";
import { tmpdir } from "node:os";
import { drainOnce, type DrainReport } from "../inbox/mod.ts";
import { type HookEvent, isoAt, Ledger } from "../ledger/mod.ts";
import { repoRoot } from "../config/paths.ts";
import { loadAgents, orphanEventReason } from "../agents/registry.ts";
import { acquireWriterLock, type WriterLock } from "./lock.ts";
import { BackgroundTask } from "./tasks.ts";

/** Options of `startServer`. */
export interface ServerOptions {
  asmHome: string;
  /** 0 picks a free port (tests) */
  port: number;
  mode?: "live" | "testing";
  drainEveryMs?: number;
  /** a reason to store an event without applying it; see DrainDeps */
  ignoreReason?: (event: HookEvent, ledger: Ledger) => string | null;
}

/** A running server. */
export interface RunningServer {
  port: number;
  url: string;
  ledger: Ledger;
  /** runs one drain now (tests and `./asm drain` share the code path) */
  drainNow(): DrainReport;
  close(): Promise<void>;
}

/** The folders whose sessions are the harness's own (hidden): system temp, asm's data folder, the hooks folder. */
export function harnessRoots(asmHome: string): string[] {
  return [tmpdir(), "/tmp", asmHome, join(repoRoot(), "hooks")];
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

function hostAllowed(host: string | null, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
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

  let port = options.port;
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port,
    onListen: () => {},
    handler: (req) => {
      const url = new URL(req.url);
      // DNS rebinding: a page on another name that resolves to 127.0.0.1 must not reach the API
      if (!hostAllowed(req.headers.get("host"), port)) {
        return json({ error: "this server answers only to 127.0.0.1 and localhost on its own port" }, 403);
      }
      if (req.method === "GET" && url.pathname === "/api/health") {
        return json({
          ok: true,
          mode,
          port,
          pid: Deno.pid,
          asm_home: asmHome,
          schema_version: ledger.schemaVersion(),
          counts: ledger.counts(),
          tasks: [drain.status()],
          lock: lock.holder,
        });
      }
      return json({ error: `no route for ${req.method} ${url.pathname}` }, 404);
    },
  });
  port = server.addr.port;
  lock.setPort(port);
  drain.start();
  log({ what: "listening", port, mode, pid: Deno.pid });

  let closed = false;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    ledger,
    drainNow,
    async close() {
      if (closed) return;
      closed = true;
      drain.stop();
      await server.shutdown();
      ledger.close();
      lock.release();
      log({ what: "stopped", port });
    },
  };
}
