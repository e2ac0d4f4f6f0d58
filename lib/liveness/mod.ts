/**
 * Liveness: open runs x the process table x each agent's own evidence -> run alive or gone, and an activity word
 * per live session. `judge()` decides (pure); `pollOnce()` gathers the facts and writes the decision.
 * @module
 */
export { reapGoneRuns } from "./gone.ts";
export { type PollMemory, UNSURE_NO_PROCESS } from "./judge.ts";
export { activityWord } from "./words.ts";
export {
  newPollState,
  type PollDeps,
  pollOnce,
  type PollReport,
  type PollState,
  procLookup,
} from "./poll.ts";
export {
  type LivePayload,
  livePayload,
  LiveRevision,
  type LiveSessionView,
  liveViews,
  type PendingLaunchView,
  pendingLaunchViews,
} from "./live_payload.ts";
