/**
 * Recovery: the ledger's periodic snapshots (`VACUUM INTO`, 0600, the newest few kept in `$ASM_HOME/snapshots/`),
 * the server's snapshot service, and the steps of `./asm rebuild` (restore the newest snapshot, replay the
 * retained hook events, restore the board's card links). The command itself, with the writer lock, the board's
 * read and the re-import, is lib/cli/recovery.ts.
 * @module
 */
export {
  copyInWorker,
  listSnapshots,
  newestSnapshot,
  pruneSnapshots,
  SNAPSHOT_KEEP,
  type SnapshotDeps,
  type SnapshotFile,
  type SnapshotReport,
  snapshotsDir,
  takeSnapshot,
} from "./snapshots.ts";
export {
  SNAPSHOT_EVERY_MS,
  SNAPSHOT_START_AFTER_MS,
  SNAPSHOT_TICK_MS,
  type SnapshotContext,
  snapshotIfDue,
  type SnapshotOptions,
} from "./service.ts";
export {
  type ReplayDeps,
  replayProcessed,
  type ReplayReport,
  restoreNewestSnapshot,
  type RestoreReport,
} from "./rebuild.ts";
export {
  type BoardCard,
  boardCardsOf,
  type CardLinkChoice,
  type CardLinkDeps,
  type CardLinkFacts,
  type CardLinkReport,
  chooseCardLinks,
  restoreCardLinks,
} from "./card_links.ts";
