/**
 * Liveness: open runs x the process table x each agent's own evidence -> run alive or gone, and an activity word
 * per live session. `judge()` decides (pure); `pollOnce()` gathers the facts and writes the decision.
 * @module
 */
export { goneRuns, reapGoneRuns } from "./gone.ts";
export {
  type Activity,
  type ActivityFacts,
  type ActivityWord,
  attentionReason,
  EMPTY_MEMORY,
  judge,
  judgeActivity,
  type JudgedSession,
  type Judgement,
  judgeRun,
  type OpenRun,
  type PollFacts,
  type PollMemory,
  type ProcTable,
  runKey,
  type RunVerdict,
} from "./judge.ts";
export {
  newPollState,
  type PollDeps,
  pollOnce,
  type PollReport,
  type PollState,
  procLookup,
} from "./poll.ts";
export { ACTIVITY_WORDS, activityWord } from "./words.ts";
export {
  type LivePayload,
  livePayload,
  LiveRevision,
  type LiveSessionView,
  liveViews,
  type PendingLaunchView,
  pendingLaunchViews,
} from "./live_payload.ts";
