/**
 * The ledger: schema, migrations, identity, timestamps, the pure status transitions and the hidden-row rule.
 * The only module that writes the database.
 * @module
 */
export { asmIdOf, NAMESPACE, uuid5 } from "./identity.ts";
export { isIsoUtcMs, isoAt, toIso } from "./time.ts";
export { type Ancestor, BadEventError, type HookEvent, parseEvent } from "./event.ts";
export {
  isFinished,
  type LedgerInput,
  type LedgerState,
  type ProcessKey,
  type RunState,
  type SessionState,
  type Status,
  transition,
} from "./transition.ts";
export { HIDDEN_REASON_SQL, type HiddenReason, hiddenReason, isUnder, underHarnessRoot } from "./hidden.ts";
export {
  type ApplyOutcome,
  Ledger,
  type LedgerCounts,
  LedgerError,
  type LedgerOptions,
  type RunRow,
  type SessionRow,
} from "./ledger.ts";
export { MIGRATIONS, SCHEMA_VERSION } from "./schema.ts";
export {
  type DerivedSession,
  filesOfSession,
  foldStateOf,
  type HeatmapCell,
  heatmapCells,
  type ImportStateRow,
  isLedgerOpen,
  type KnownFile,
  knownFiles,
  type ProjectCount,
  projectCounts,
  refreshCandidates,
  type SessionView,
  sessionViews,
  sessionViewsOf,
  writeDerived,
  type WriteReport,
} from "./derived.ts";
export { openReadOnly, type ReadOnlyLedger } from "./read_only.ts";
export {
  type ActivityUpdate,
  ATTENTION_EVENTS,
  clearFinishedActivity,
  closeGoneRuns,
  type HookActivity,
  hookActivity,
  type LiveRow,
  liveRows,
  pollRows,
  type PollSessionRow,
  recordActivity,
  TURN_EVENTS,
} from "./activity.ts";
export {
  type AdoptedThread,
  adoptThread,
  expireLaunches,
  launchesOf,
  launchesSeenInEvents,
  type LaunchKindValue,
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
