/**
 * The ledger, the only module that writes the database: the `Ledger` (schema, migrations, the pure status
 * transitions and the hidden-row rule stay inside), identity and timestamps, the hook event's shape, and each
 * feature's reads and writes (the import's derived rows, the poll's activity, launches, the search index, the
 * board's links).
 * @module
 */
export { asmIdOf } from "./identity.ts";
export { isIsoUtcMs, isoAt, toIso } from "./time.ts";
export { type Ancestor, BadEventError, type HookEvent, parseEvent, type ParseOptions } from "./event.ts";
export { pidProblem } from "./bounds.ts";
export type { ProcessKey, RunState, Status } from "./transition.ts";
export { UNSEEN_END_REASON } from "./transition.ts";
export { underHarnessRoot } from "./hidden.ts";
export {
  type ApplyOutcome,
  Ledger,
  type LedgerCounts,
  LedgerError,
  type LedgerOptions,
  type RunRow,
  type SessionRow,
} from "./ledger.ts";
export {
  type DerivedSession,
  filesOfSession,
  foldStateOf,
  type HeatmapCell,
  heatmapCells,
  hiddenCounts,
  type ImportStateRow,
  isLedgerOpen,
  type KnownFile,
  knownFiles,
  type ListedFile,
  type ListedSession,
  type ProjectCount,
  projectCounts,
  refreshCandidates,
  type SessionView,
  sessionViews,
  settleCloseouts,
  settleListed,
  stillBeingReadCount,
  writeDerived,
  writeListed,
  type WriteReport,
} from "./derived.ts";
export { type AgentCounts, openReadOnly, type ReadOnlyLedger } from "./read_only.ts";
export {
  type FileIdentity,
  freeBytesAt,
  LEDGER_MIN_FREE_BYTES,
  type LedgerFileFacts,
  type LedgerFileProblem,
  ledgerFileProblem,
  LedgerUnwritableError,
} from "./ledger_file.ts";
export { snapshotLedgerFile } from "./snapshot.ts";
export {
  activityOf,
  type ActivityUpdate,
  clearFinishedActivity,
  closeGoneRuns,
  closeRunsOutOfRange,
  type HookActivity,
  hookActivity,
  listDigest,
  type LiveRow,
  liveRows,
  type OutOfRangeRun,
  pollRows,
  type PollSessionRow,
  recordActivity,
  recordUnsure,
  sessionCells,
  unsureOf,
} from "./activity.ts";
export {
  type AdoptedThread,
  adoptThread,
  expireLaunches,
  launchesOf,
  launchesSeenInEvents,
  type LaunchKindValue,
  launchRegistered,
  type LaunchRequested,
  type LaunchRow,
  launchRow,
  type LaunchWindow,
  type MatchedBy,
  matchLaunch,
  pendingLaunches,
  recentLaunches,
  recordLaunch,
  recordLaunchError,
  recordWindow,
} from "./launches.ts";
export {
  type IndexChunk,
  type IndexedHit,
  type IndexedLine,
  type IndexTodo,
  openSearchReader,
  type SearchFile,
  searchIndexTodo,
  type SearchReader,
  searchReader,
  type SearchSession,
  writeIndexChunk,
} from "./search_index.ts";
export {
  bindCard,
  bindLaunchedSessions,
  boardLinks,
  type CardBinding,
  cardOfSession,
  launchedSessionOf,
  type Link,
  type LinkedSession,
  linkedSessions,
  linkedStatuses,
  linkOf,
  type LinkOrigin,
  type LiveSession,
  type LiveSessionFacts,
  liveSessionFacts,
  markCompleted,
  markDropped,
  markFiling,
  markRestored,
  setSyncedTitle,
  unbindCard,
  type UnboundLiveSession,
  unboundLiveSessions,
} from "./links.ts";
export {
  type CardLinkSource,
  cardLinkSource,
  type LaunchForCard,
  replaceCardLinks,
  sessionsOfLaunchTokens,
  type StoredLink,
} from "./links_carry.ts";
export { isMintable, MINT_REFUSAL_SQL, type MintFacts, type MintRefusal, mintRefusal } from "./mint.ts";
