/**
 * The history import: every transcript the agents keep, read in a byte pass by read workers and written to the
 * ledger's derived tables in batches, at the server's start and on a timer (`runner.ts`, `server.ts`), with a
 * compressed copy of each transcript (`copies.ts`) and the session page's detail (`detail.ts`); while a server
 * runs, a watch on the transcript folders reads each changed file within a second (`watch.ts`).
 *
 * Search's scanner (`lib/search/scan.ts`) reads a transcript's copy with `copies.ts` directly: every search runs
 * in a Worker of its own, and this face would load the whole import into it. `main.ts` imports the commands
 * (`cli.ts`) directly.
 * @module
 */
export { transcriptBytes } from "./copies.ts";
export {
  cursorText,
  type DetailDeps,
  parseCursor,
  type SessionDetail,
  sessionDetail,
  type SessionLink,
  successorsOf,
} from "./detail.ts";
export { type FollowStep, TranscriptFollower } from "./follow.ts";
export { importOnce, type ImportOptions, type ImportReport } from "./import.ts";
export { denoIo } from "./io.ts";
export { ImportRunner, type ImportStatus, type RunnerDeps } from "./runner.ts";
export { type ImportProgress, progressLine } from "./progress.ts";
export { projectRules } from "./config.ts";
export {
  IMPORT_EVERY_MS,
  ownsAgentHomes,
  REFRESH_EVERY_MS,
  transcriptRoots,
  WATCH_ARM_EVERY_MS,
} from "./server.ts";
export { TranscriptWatch, WATCH_MIN_GAP_MS, WATCH_SETTLE_MS } from "./watch.ts";
