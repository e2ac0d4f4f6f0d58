/**
 * The writer lock: exactly one process writes the ledger. A lock file created with O_EXCL holding the owner's
 * pid, start ticks and boot id; a lock whose owner is provably gone (pid missing, start ticks differ, other
 * boot) is stale and taken over. Not a port probe: two servers on one ASM_HOME collide here even on two ports.
 * @module
 */
import { join } from "node:path";
import { isoAt } from "../ledger/mod.ts";
import { identityOf, isSameProcess } from "../procs/mod.ts";
import { readRegularTextSync, RefusedFile } from "../files/mod.ts";

/** Who holds the lock. */
export interface LockHolder {
  pid: number;
  proc_start: number;
  boot_id: string | null;
  port: number | null;
  mode: string;
  /** A server's board mode ("live" or "testing"), so `asm restart` starts the same kind; absent for others. */
  board_mode?: string;
  started_at: string;
}

/** The lock is held by another live process. The message names its pid and port. */
export class AlreadyRunningError extends Error {
  override name = "AlreadyRunningError";
  constructor(readonly holder: LockHolder) {
    super(
      holder.port !== null
        ? `asm is already running (pid ${holder.pid}, port ${holder.port}); open http://127.0.0.1:${holder.port} ` +
          "or stop it first with asm stop"
        : `asm ${holder.mode} is already running (pid ${holder.pid}) and holds the ledger; wait for it to finish`,
    );
  }
}

/** A held lock. */
export interface WriterLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** records the port once the server is bound */
  setPort(port: number): void;
  /** removes the lock file if it is still ours */
  release(): void;
}

function readHolder(path: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readRegularTextSync(path, 64 << 10));
    return typeof parsed?.pid === "number" && typeof parsed?.proc_start === "number"
      ? parsed as LockHolder
      : null;
  } catch (err) {
    // a lock that is not a small regular JSON file names no live server
    if (err instanceof Deno.errors.NotFound || err instanceof SyntaxError || err instanceof RefusedFile) {
      return null;
    }
    throw err;
  }
}

/** What the lock file of `asmHome` says, alive or not (`asm doctor` names a stale one); null when there is none. */
export function lockFileHolder(asmHome: string): LockHolder | null {
  return readHolder(join(asmHome, "server.lock"));
}

/** Reads who holds the lock of `asmHome`, when its owner is alive; null otherwise. */
export function currentHolder(asmHome: string): LockHolder | null {
  const holder = readHolder(join(asmHome, "server.lock"));
  if (!holder) return null;
  return isSameProcess({ pid: holder.pid, procStart: holder.proc_start, bootId: holder.boot_id })
    ? holder
    : null;
}

/** Takes the writer lock of `asmHome` or throws AlreadyRunningError naming the holder. */
export function acquireWriterLock(
  asmHome: string,
  options: { mode: string; port?: number | null; boardMode?: string },
): WriterLock {
  const path = join(asmHome, "server.lock");
  Deno.mkdirSync(asmHome, { recursive: true, mode: 0o700 });
  const me = identityOf(Deno.pid);
  if (!me) {
    throw new Error(
      "asm cannot read its own entry in /proc; it needs /proc to prove which process holds the ledger",
    );
  }
  const holder: LockHolder = {
    pid: Deno.pid,
    proc_start: me.procStart,
    boot_id: me.bootId,
    port: options.port ?? null,
    mode: options.mode,
    ...(options.boardMode ? { board_mode: options.boardMode } : {}),
    started_at: isoAt(),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const file = Deno.openSync(path, { write: true, createNew: true, mode: 0o600 });
      file.writeSync(new TextEncoder().encode(JSON.stringify(holder) + "\n"));
      file.close();
      return makeLock(path, holder);
    } catch (err) {
      if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    }
    const other = readHolder(path);
    if (other && isSameProcess({ pid: other.pid, procStart: other.proc_start, bootId: other.boot_id })) {
      throw new AlreadyRunningError(other);
    }
    if (other === null && attempt < 3) {
      // possibly a lock being written this instant by its owner: give it a moment before judging it broken
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      continue;
    }
    // stale (its owner is gone) or broken: take it over, but only if it is still the file we judged
    try {
      const again = Deno.readTextFileSync(path);
      if (other === null || JSON.parse(again)?.pid === other.pid) Deno.removeSync(path);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound || err instanceof SyntaxError)) throw err;
      if (err instanceof SyntaxError) Deno.removeSync(path);
    }
  }
  throw new Error(`asm could not take the writer lock ${path}; another asm keeps taking it`);
}

function makeLock(path: string, holder: LockHolder): WriterLock {
  return {
    path,
    holder,
    setPort(port: number) {
      holder.port = port;
      Deno.writeTextFileSync(path, JSON.stringify(holder) + "\n");
    },
    release() {
      const now = readHolder(path);
      if (now && now.pid === holder.pid && now.proc_start === holder.proc_start) Deno.removeSync(path);
    },
  };
}
