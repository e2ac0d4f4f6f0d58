/**
 * The ledger's snapshots in `$ASM_HOME/snapshots/`: `ledger-<UTC stamp>.sqlite`, each a plain SQLite database
 * written by `VACUUM INTO`, 0600 in a 0700 folder (they hold every prompt the ledger holds), the newest few kept.
 * A snapshot is written under a `.partial` name and renamed when complete, so a snapshot cut short is never the
 * newest one `./asm rebuild` restores.
 * @module
 */
import { join } from "node:path";
import { type Clock, errorText } from "../lang/mod.ts";
import { isoAt } from "../ledger/mod.ts";

/** Snapshots kept; older ones are removed, file by file. */
export const SNAPSHOT_KEEP = 3;

/** One snapshot file. */
export interface SnapshotFile {
  path: string;
  name: string;
  /** when it was taken (epoch ms, from its name) */
  takenAt: number;
}

const NAME = /^ledger-(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)(\d{3})Z\.sqlite$/;
/** a `.partial` older than this is left from a snapshot that never finished (a crash): removed by the prune */
const STALE_PARTIAL_MS = 3_600_000;

/** The snapshots folder of a data folder. */
export function snapshotsDir(asmHome: string): string {
  return join(asmHome, "snapshots");
}

function nameAt(ms: number): string {
  return `ledger-${isoAt(ms).replace(/[-:.]/g, "")}.sqlite`;
}

function takenAtOf(name: string): number | null {
  const m = NAME.exec(name);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, ms] = m;
  const at = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
  return Number.isNaN(at) ? null : at;
}

/** The snapshots of `asmHome`, oldest first (only regular files with a snapshot's name). */
export function listSnapshots(asmHome: string): SnapshotFile[] {
  const dir = snapshotsDir(asmHome);
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const out: SnapshotFile[] = [];
  for (const entry of entries) {
    const takenAt = entry.isFile ? takenAtOf(entry.name) : null;
    if (takenAt !== null) out.push({ path: join(dir, entry.name), name: entry.name, takenAt });
  }
  return out.sort((a, b) => a.takenAt - b.takenAt || (a.name < b.name ? -1 : 1));
}

/** The newest snapshot, or null. */
export function newestSnapshot(asmHome: string): SnapshotFile | null {
  return listSnapshots(asmHome).at(-1) ?? null;
}

/**
 * Removes all but the newest `keep` snapshots, and `.partial` files left by a snapshot that never finished,
 * each by its full path (never the folder, never a name the pattern does not match). Returns what it removed.
 */
export function pruneSnapshots(asmHome: string, keep = SNAPSHOT_KEEP, now: Clock = Date.now): string[] {
  const removed: string[] = [];
  const all = listSnapshots(asmHome);
  for (const old of all.slice(0, Math.max(0, all.length - keep))) {
    Deno.removeSync(old.path);
    removed.push(old.path);
  }
  const dir = snapshotsDir(asmHome);
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".sqlite.partial")) continue;
    const takenAt = takenAtOf(entry.name.slice(0, -".partial".length));
    if (takenAt === null || now() - takenAt < STALE_PARTIAL_MS) continue;
    Deno.removeSync(join(dir, entry.name));
    removed.push(join(dir, entry.name));
  }
  return removed;
}

/** What {@link takeSnapshot} needs. */
export interface SnapshotDeps {
  asmHome: string;
  /**
   * Writes the ledger into `target`, an empty 0600 file (`VACUUM INTO` fills an empty file and keeps its mode):
   * the server's own connection (`ledger.snapshotInto`) or a Worker's ({@link copyInWorker}).
   */
  copy(target: string): void | Promise<void>;
  /** snapshots kept (default {@link SNAPSHOT_KEEP}) */
  keep?: number;
  now?: Clock;
}

/** What one snapshot did. */
export interface SnapshotReport {
  snapshot: SnapshotFile;
  bytes: number;
  ms: number;
  /** older snapshots removed to keep the newest few */
  removed: string[];
}

/** Takes one snapshot, then prunes the old ones. Throws (leaving nothing behind) when the copy fails. */
export async function takeSnapshot(deps: SnapshotDeps): Promise<SnapshotReport> {
  const now = deps.now ?? Date.now;
  const dir = snapshotsDir(deps.asmHome);
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  Deno.chmodSync(dir, 0o700);
  const started = performance.now();
  // one name per millisecond: two snapshots in the same one (a test, a rescue right after the hourly one) differ
  let at = now();
  let partial = "";
  for (let tries = 0;; tries++, at++) {
    partial = join(dir, `${nameAt(at)}.partial`);
    try {
      Deno.writeFileSync(partial, new Uint8Array(0), { createNew: true, mode: 0o600 });
      if (pathTaken(join(dir, nameAt(at)))) {
        Deno.removeSync(partial);
        continue;
      }
      break;
    } catch (err) {
      if (!(err instanceof Deno.errors.AlreadyExists) || tries >= 1000) throw err;
    }
  }
  const final = join(dir, nameAt(at));
  try {
    Deno.chmodSync(partial, 0o600); // createNew's mode passes through the umask; 0600 is what is wanted
    await deps.copy(partial);
    Deno.renameSync(partial, final);
  } catch (err) {
    try {
      Deno.removeSync(partial);
    } catch { /* it may never have been written; the copy's error is the one to report */ }
    throw new Error(`the ledger snapshot into ${final} failed: ${errorText(err)}`);
  }
  const removed = pruneSnapshots(deps.asmHome, deps.keep ?? SNAPSHOT_KEEP, now);
  return {
    snapshot: { path: final, name: nameAt(at), takenAt: at },
    bytes: Deno.statSync(final).size,
    ms: Math.round(performance.now() - started),
    removed,
  };
}

function pathTaken(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** What the snapshot Worker is asked, and what it answers. */
export interface SnapshotAsk {
  source: string;
  target: string;
}

/** The Worker's answer: done, or the sentence of what went wrong. */
export type SnapshotReply = { done: true } | { error: string };

/**
 * Copies the ledger at `source` into `target` in a Worker of its own, on a read-only connection: a large
 * ledger takes seconds, and the server keeps answering meanwhile.
 */
export function copyInWorker(source: string, target: string): Promise<void> {
  const worker = new Worker(new URL("./snapshot_worker.ts", import.meta.url), { type: "module" });
  return new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<SnapshotReply>) => {
      worker.terminate();
      if ("done" in event.data) resolve();
      else reject(new Error(event.data.error));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      reject(new Error(`the snapshot worker failed: ${event.message}`));
    };
    worker.postMessage({ source, target } satisfies SnapshotAsk);
  });
}
