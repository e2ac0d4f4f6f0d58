/**
 * Real plan usage per agent: the shared core (cache, backoff, stale marking, the time rules). The readers that
 * call each agent's account endpoint live in `lib/agents/<agent>/usage.ts`, reached through the adapter's
 * `usage` capability; this face hands them the shapes and the helpers they share. Never estimated.
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
export { type UsageAgent, UsageCache, type UsageCacheOptions } from "./cache.ts";
export type { UsageEntry } from "./rules.ts";
export { type JsonAnswer, type JsonRequest, requestJson, resolveBaseUrl, SIGNED_OUT } from "./http.ts";
export {
  type CredentialsFile,
  fileStamp,
  numberField,
  readCredentialsFile,
  stringField,
} from "./credentials.ts";
export { finite, isoFromEpochSeconds, isoFromText, windowNameForSeconds } from "./window_name.ts";
export { readTail } from "./tail.ts";
