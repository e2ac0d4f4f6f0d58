/**
 * Real plan usage per agent: the shared core (cache, backoff, stale marking, the time rules). The readers that
 * call each agent's account endpoint live in `lib/agents/<agent>/usage.ts`, reached through the adapter's
 * `usage` capability. Never estimated.
 * @module
 */
export type {
  AccountOutcome,
  LastTurn,
  RawWindow,
  UsageFetchContext,
  UsageReading,
  UsageSource,
  UsageSourceKind,
  UsageState,
  UsageWindow,
} from "./reading.ts";
export {
  accountDue,
  afterOutcome,
  ageSeconds,
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  backoffMs,
  CACHE_MS,
  emptyEntry,
  lastTurnDue,
  lastTurnLabel,
  present,
  type UsageEntry,
  windowAt,
} from "./rules.ts";
export { type UsageAgent, UsageCache, type UsageCacheOptions } from "./cache.ts";
export { type JsonAnswer, type JsonRequest, requestJson, resolveBaseUrl, scrub, SIGNED_OUT } from "./http.ts";
export {
  type CredentialsFile,
  fileStamp,
  numberField,
  readCredentialsFile,
  stringField,
} from "./credentials.ts";
export { finite, isoFromEpochSeconds, isoFromText, windowNameForSeconds } from "./window_name.ts";
export { readTail } from "./tail.ts";
export { NotRegularFile } from "../files/mod.ts";
