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
