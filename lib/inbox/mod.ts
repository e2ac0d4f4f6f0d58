/**
 * The drain of hook event files into the ledger, idempotent on event_id, every file on its own; its health for
 * the server's health model; its file operations behind a seam.
 * @module
 */
export {
  type DrainDeps,
  drainOnce,
  type DrainReport,
  type DrainState,
  MAX_EVENT_FILE_BYTES,
  MAX_PAYLOAD_BYTES,
  newDrainState,
  SKIPPED_RETRY_FAILURES,
  type SkippedName,
} from "./drain.ts";
export { type DrainHealth, STALL_PASSES } from "./health.ts";
export { type DrainIo, type EntryKind, type InboxEntry, REAL_DRAIN_IO } from "./io.ts";
