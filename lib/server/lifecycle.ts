/**
 * How the serving process lives and dies, so that why a server stopped is always written: a person finding the
 * page gone reads `server.log`, and a server that vanished without a line there (an audit saw one) leaves them
 * nothing to go on. Each way out leaves one line with its cause before the process ends:
 * - a signal that ends a process by default (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2): `stopping`
 *   with the signal, then the close's own `stopped`;
 * - `Deno.exit` from anywhere: `process exiting` with the cause recorded so far;
 * - an error or rejection nothing caught: logged once each, and the server goes on (a daemon that dies for one
 *   takes every status with it);
 * - what no process can catch (SIGKILL, the out-of-memory killer, a power cut): the NEXT server's start writes
 *   `previous server stopped without a word` for the pid whose `listening` line has no stop after it.
 * @module
 */
import { join } from "node:path";
import { errorText, type Log, type LogLine } from "../lang/mod.ts";

/** The signals whose default action ends a process and that a process may catch. */
export const STOP_SIGNALS: readonly Deno.Signal[] = [
  "SIGINT",
  "SIGTERM",
  "SIGHUP",
  "SIGQUIT",
  "SIGUSR1",
  "SIGUSR2",
];

/** The `what` of the lines that say a server stopped on purpose or knew it was exiting. */
const STOP_LINES = new Set(["stopping", "stopped", "process exiting"]);

/** How much of the end of `server.log` is read for the previous server's last words. */
const TAIL_BYTES = 256 * 1024;

/**
 * Keeps the serving process alive through an error nothing caught (a promise rejected with no handler, a throw
 * in a timer): by default Deno ends the process for it, and with it the page and every status. Each distinct
 * error is logged once with its stack, then the server goes on; installed by `asm serve` only (a test's
 * unhandled error must still fail its test).
 */
export function keepServingThroughUncaught(log: Log): void {
  const seen = new Set<string>();
  const report = (what: string, err: unknown) => {
    const error = errorText(err);
    if (seen.has(error)) return;
    if (seen.size < 100) seen.add(error);
    log({ what, error, stack: err instanceof Error ? err.stack ?? null : null });
  };
  globalThis.addEventListener("unhandledrejection", (e) => {
    e.preventDefault();
    report("uncaught rejection kept the server up", e.reason);
  });
  globalThis.addEventListener("error", (e) => {
    e.preventDefault();
    report("uncaught error kept the server up", e.error);
  });
}

/** What {@link stopOnSignals} needs of the running server. */
export interface Closable {
  close(): Promise<void>;
}

/** What {@link stopOnSignals} returns: hand it the server once it has started. */
export interface StopOnSignals {
  serving(server: Closable): void;
}

/**
 * Installed before the server starts, so no signal finds the default (a silent end): every stop signal closes
 * the server and ends the process, each leaving `stopping` with the signal first; one that comes while the
 * server is still starting closes it as soon as it has started. A close that fails is logged and the process still ends (exit code 1). A second
 * signal during the close ends it at once, logged too. Any `Deno.exit` (this one or another's) logs `process
 * exiting` with the cause known.
 */
export function stopOnSignals(log: Log, exit: (code: number) => void = Deno.exit): StopOnSignals {
  let server: Closable | null = null;
  let cause: string | null = null;
  globalThis.addEventListener("unload", () => {
    log({ what: "process exiting", pid: Deno.pid, cause: cause ?? "Deno.exit, with no cause recorded" });
  });
  const close = async (running: Closable) => {
    try {
      await running.close();
    } catch (err) {
      log({ what: "stop failed", pid: Deno.pid, error: errorText(err) });
      exit(1);
      return;
    }
    exit(0);
  };
  for (const signal of STOP_SIGNALS) {
    Deno.addSignalListener(signal, () => {
      if (cause !== null) {
        log({ what: "stopping at once", pid: Deno.pid, cause: `signal ${signal} during the close` });
        exit(1);
        return;
      }
      cause = `signal ${signal}`;
      log({ what: "stopping", pid: Deno.pid, cause, starting: server === null });
      // still starting: the close waits for the server (a second signal ends it at once)
      if (server !== null) void close(server);
    });
  }
  return {
    serving(started) {
      server = started;
      if (cause !== null) void close(started);
    },
  };
}

/**
 * The line the starting server writes for its predecessor, or null: the last `listening` line in the log's tail
 * whose pid never wrote a stop line after it was a server that died where no line could be written. Pure over
 * the log's text.
 */
export function unrecordedStop(logText: string, ownPid: number): LogLine | null {
  let last: { pid: number; ts: string | null } | null = null;
  for (const raw of logText.split("\n")) {
    if (!raw.startsWith("{")) continue;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(raw);
    } catch {
      continue; // a line cut by a full disk, or the tail's first, partial line
    }
    const pid = typeof line.pid === "number" ? line.pid : null;
    if (pid === null || pid === ownPid) continue;
    if (line.what === "listening") last = { pid, ts: typeof line.ts === "string" ? line.ts : null };
    else if (last !== null && pid === last.pid && STOP_LINES.has(String(line.what))) last = null;
  }
  if (last === null) return null;
  return {
    what: "previous server stopped without a word",
    pid: last.pid,
    listening_since: last.ts,
    cause: "it was ended by what no process can catch (SIGKILL, the out-of-memory killer, a crash of the " +
      "runtime) or the machine stopped",
  };
}

/** {@link unrecordedStop} over the end of `$ASM_HOME/server.log`; null when there is no log to read. */
export function previousServerLine(asmHome: string, ownPid = Deno.pid): LogLine | null {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(join(asmHome, "server.log"), { read: true });
  } catch {
    return null;
  }
  try {
    const size = file.statSync().size;
    const start = Math.max(0, size - TAIL_BYTES);
    file.seekSync(start, Deno.SeekMode.Start);
    const buffer = new Uint8Array(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = file.readSync(buffer.subarray(read));
      if (n === null || n === 0) break;
      read += n;
    }
    return unrecordedStop(new TextDecoder().decode(buffer.subarray(0, read)), ownPid);
  } catch {
    return null; // a log that cannot be read says nothing of the previous server
  } finally {
    file.close();
  }
}
