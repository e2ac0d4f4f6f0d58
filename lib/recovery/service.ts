/**
 * The server's snapshot service: it looks every 10 minutes (the first time 2 minutes after the start, once the
 * start-up import has had the disk) and takes a snapshot when the newest one is an hour old or there is none, so
 * a server restarted often does not push the older snapshots out, and one stopped for a day takes one soon after
 * it starts. The copy runs in a Worker; the snapshot is skipped while the ledger's path no longer names the file
 * the server has open (the ledger watch saved that one) and refused when the disk is too full for it.
 * @module
 */
import { dirname } from "node:path";
import { freeBytesAt, type Ledger, LEDGER_MIN_FREE_BYTES, ledgerFileProblem } from "../ledger/mod.ts";
import type { Clock, Log } from "../lang/mod.ts";
import {
  copyInWorker,
  newestSnapshot,
  SNAPSHOT_KEEP,
  type SnapshotReport,
  takeSnapshot,
} from "./snapshots.ts";

/** A snapshot is taken when the newest one is this old. */
export const SNAPSHOT_EVERY_MS = 3_600_000;
/** How often the service looks. */
export const SNAPSHOT_TICK_MS = 10 * 60_000;
/** Its first look after the server starts. */
export const SNAPSHOT_START_AFTER_MS = 2 * 60_000;

/** What the service needs of the server. */
export interface SnapshotContext {
  asmHome: string;
  ledger: Ledger;
  log: Log;
}

/** Options of {@link snapshotIfDue} (tests shorten the age and count). */
export interface SnapshotOptions {
  /** the age of the newest snapshot at which a new one is due (default {@link SNAPSHOT_EVERY_MS}) */
  everyMs?: number;
  keep?: number;
  now?: Clock;
}

/**
 * One look: a snapshot when one is due, else nothing (null). Throws a sentence when the disk has no room for
 * one (the task's error, in the health model's tasks and logged once).
 */
export async function snapshotIfDue(
  ctx: SnapshotContext,
  options: SnapshotOptions = {},
): Promise<SnapshotReport | null> {
  const now = options.now ?? Date.now;
  const moved = ledgerFileProblem({
    ...ctx.ledger.fileIdentities(),
    fileWritable: null,
    folderWritable: null,
  });
  if (moved) return null;
  const newest = newestSnapshot(ctx.asmHome);
  if (newest && now() - newest.takenAt < (options.everyMs ?? SNAPSHOT_EVERY_MS)) return null;
  const bytes = sizeOf(ctx.ledger.path) + sizeOf(`${ctx.ledger.path}-wal`);
  const free = freeBytesAt(dirname(ctx.ledger.path));
  if (free !== null && free < bytes + LEDGER_MIN_FREE_BYTES) {
    throw new Error(
      `no ledger snapshot: ${mb(free)} free on the data folder's disk, and a snapshot needs about ${
        mb(bytes)
      } ` +
        `with ${mb(LEDGER_MIN_FREE_BYTES)} left over; free some space`,
    );
  }
  const report = await takeSnapshot({
    asmHome: ctx.asmHome,
    copy: (target) => copyInWorker(ctx.ledger.path, target),
    keep: options.keep ?? SNAPSHOT_KEEP,
    now,
  });
  ctx.log({
    what: "snapshot",
    path: report.snapshot.path,
    bytes: report.bytes,
    ms: report.ms,
    removed: report.removed.length,
  });
  return report;
}

function sizeOf(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return 0;
    throw err;
  }
}

function mb(bytes: number): string {
  return `${Math.round(bytes / (1 << 20))} MB`;
}
