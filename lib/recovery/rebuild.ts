/**
 * The two steps of `./asm rebuild` that touch files (the command, lib/cli/recovery.ts, holds the writer lock,
 * prints and runs the import after them): the ledger set aside and the newest snapshot put in its place, then the
 * retained hook events of `processed/` applied again through the ledger's own path. An event id already stored
 * is discarded as a duplicate, so replaying every retained event re-applies exactly those the snapshot lacks.
 * @module
 */
import { join } from "node:path";
import { closeSync, openRegularSync, readFullySync, RefusedFile } from "../files/mod.ts";
import { type HookEvent, isoAt, type Ledger, LedgerError, parseEvent } from "../ledger/mod.ts";
import { type Clock, errorText } from "../lang/mod.ts";
import { MAX_EVENT_FILE_BYTES } from "../inbox/mod.ts";
import { newestSnapshot, type SnapshotFile } from "./snapshots.ts";

/** What {@link restoreNewestSnapshot} did. */
export interface RestoreReport {
  /** the snapshot now in place, or null when there was none (the ledger starts empty) */
  snapshot: SnapshotFile | null;
  /** where the old ledger (and its -wal, -shm) went, or null when there was none */
  asideAs: string | null;
}

/**
 * Moves the ledger and its `-wal` and `-shm` aside as `ledger.sqlite.before-rebuild-<stamp>` (asm never deletes
 * them: a person may still want what they hold), then copies the newest snapshot to `ledger.sqlite`, 0600.
 * The WAL goes with its database: a stale `-wal` beside a restored file would be replayed into it by SQLite.
 * Call it only while holding the writer lock.
 */
export function restoreNewestSnapshot(
  asmHome: string,
  now: Clock = Date.now,
  /** told where the old ledger went once it is aside, before the snapshot is copied in */
  onAside: (asideAs: string | null) => void = () => {},
): RestoreReport {
  const ledgerPath = join(asmHome, "ledger.sqlite");
  const stamp = isoAt(now()).replace(/[-:.]/g, "");
  let asideAs: string | null = null;
  for (const suffix of ["", "-wal", "-shm"]) {
    const from = ledgerPath + suffix;
    if (!exists(from)) continue;
    const to = `${ledgerPath}.before-rebuild-${stamp}${suffix}`;
    if (exists(to)) throw new Error(`${to} is already there; wait a moment and run asm rebuild again`);
    Deno.renameSync(from, to);
    asideAs ??= `${ledgerPath}.before-rebuild-${stamp}`;
  }
  onAside(asideAs);
  const snapshot = newestSnapshot(asmHome);
  if (snapshot) {
    Deno.copyFileSync(snapshot.path, ledgerPath);
    Deno.chmodSync(ledgerPath, 0o600);
  }
  return { snapshot, asideAs };
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** What {@link replayProcessed} needs. */
export interface ReplayDeps {
  asmHome: string;
  ledger: Ledger;
  /** the drain's rule for events of sessions with no row yet (see DrainDeps.orphanReason) */
  orphanReason?: (event: HookEvent) => string | null;
  /** called after each day's folder: events handled so far, and how many there are */
  onProgress?(done: number, total: number): void;
}

/** What a replay did. */
export interface ReplayReport {
  files: number;
  applied: number;
  /** already in the ledger (the snapshot had them) */
  duplicates: number;
  ignored: number;
  /**
   * events stored again with values out of range left out (lib/ledger `parseEvent`, as the drain did): the file
   * still holds them, the ledger never does
   */
  dropped: number;
  /** files that could not be read or parsed, or that the ledger refused: named in `problems` (the first 10) */
  unreadable: number;
  problems: string[];
}

/**
 * Applies every event file under `processed/<date>/` again, a day at a time and, within a day, in timestamp
 * order (the drain applied them in that order too), exactly as the drain would: each value checked on the way in
 * (one out of range left out), the orphan rule for an event of a session with no row, then the ledger's
 * transition.
 */
export function replayProcessed(deps: ReplayDeps): ReplayReport {
  const root = join(deps.asmHome, "processed");
  const report: ReplayReport = {
    files: 0,
    applied: 0,
    duplicates: 0,
    ignored: 0,
    dropped: 0,
    unreadable: 0,
    problems: [],
  };
  const problem = (path: string, why: string) => {
    report.unreadable++;
    if (report.problems.length < 10) report.problems.push(`${path}: ${why}`);
  };
  const days = folderNames(root).sort();
  const byDay = days.map((day) => ({
    day,
    names: entryNames(join(root, day)).filter((n) => n.endsWith(".json")).sort(),
  }));
  const total = byDay.reduce((n, d) => n + d.names.length, 0);
  for (const { day, names } of byDay) {
    const events: { name: string; event: HookEvent }[] = [];
    for (const name of names) {
      const path = join(root, day, name);
      report.files++;
      try {
        events.push({ name, event: parseEvent(readEventFile(path)) });
      } catch (err) {
        problem(path, errorText(err));
      }
    }
    events.sort((a, b) =>
      a.event.ts < b.event.ts ? -1 : a.event.ts > b.event.ts ? 1 : a.name < b.name ? -1 : 1
    );
    for (const { name, event } of events) {
      // cheap before a write transaction: most retained events are in the snapshot already
      if (deps.ledger.hasEvent(event.event_id)) {
        report.duplicates++;
        continue;
      }
      try {
        // the drain's own decision (lib/inbox/drain.ts): the orphan rule only for a session with no row yet
        const ignore = deps.orphanReason && !deps.ledger.hasSession(event.asm_id)
          ? deps.orphanReason(event)
          : null;
        const outcome = ignore === null
          ? deps.ledger.applyEvent(event)
          : deps.ledger.recordIgnored(event, ignore);
        if (outcome === "applied") report.applied++;
        else if (outcome === "duplicate") report.duplicates++;
        else report.ignored++;
        if (outcome !== "duplicate" && event.dropped) report.dropped++;
      } catch (err) {
        // a refused event (its asm_id does not match) was refused by the drain too; anything else stops the
        // rebuild: the ledger could not write, and going on would only hide it
        if (!(err instanceof LedgerError)) throw err;
        problem(join(root, day, name), err.message);
      }
    }
    deps.onProgress?.(report.files, total);
  }
  return report;
}

function readEventFile(path: string): string {
  // processed/ holds what the hook wrote: never through a link, never a FIFO, never more than the hook writes
  const file = openRegularSync(path);
  try {
    if (file.size > MAX_EVENT_FILE_BYTES) {
      throw new RefusedFile(
        `it is larger than ${MAX_EVENT_FILE_BYTES} bytes, more than the hook ever writes`,
      );
    }
    const bytes = new Uint8Array(file.size);
    const got = readFullySync(file.fd, bytes, 0);
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, got));
  } finally {
    closeSync(file.fd);
  }
}

function folderNames(dir: string): string[] {
  return entries(dir).filter((e) => e.isDirectory).map((e) => e.name);
}

function entryNames(dir: string): string[] {
  return entries(dir).filter((e) => e.isFile).map((e) => e.name);
}

function entries(dir: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(dir)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}
