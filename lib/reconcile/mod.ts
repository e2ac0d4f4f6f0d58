/**
 * The reconciler: the pure planner and its facts (`plan.ts`, `types.ts`), the mint rule, the claims, the wake
 * coalescer, and the shell around them: one pass (`sweep.ts`), the four card buttons (`buttons.ts`), END for
 * every door (`end.ts`), the page's board and its digest (`view.ts`, `refusals.ts`), one server's board with its
 * cadence (`runtime.ts`) and the real-list guard (`real_lists.ts`).
 * @module
 */
export type {
  Action,
  BoardAgent,
  ClaimView,
  Link,
  LiveSessionFacts,
  PlanInput,
  SessionStatusFacts,
} from "./types.ts";
export { plainTitle, plan, titleOnCard } from "./plan.ts";
export {
  isMintable,
  MINT_REFUSAL_SQL,
  type MintFacts,
  type MintRefusal,
  mintRefusal,
} from "../ledger/mod.ts";
export {
  type CardClaim,
  CardClaimed,
  type ClaimKind,
  Claims,
  type ClaimsOptions,
  type LiveIds,
} from "./claims.ts";
export {
  ManualTimers,
  REAL_TIMERS,
  type Timers,
  WakeCoalescer,
  type WakeOptions,
  type WakeStatus,
} from "./wake.ts";
export { type BoardDeps, BoardLock, BoardMemo } from "./deps.ts";
export { type PassOptions, type PassReport, settleClaims, sweepOnce } from "./sweep.ts";
export {
  type ButtonDeps,
  type CardDone,
  type CardLaunch,
  type CardRequest,
  continueCard,
  doneCard,
  resumeCard,
  startCard,
} from "./buttons.ts";
export { type CardEndResult, type EndBoard, endCard, endThroughCard } from "./end.ts";
export { type Button, type CardFacts, type Refusals, refusalsOf, type SessionStatus } from "./refusals.ts";
export {
  type AgentView,
  boardDigest,
  type CardView,
  type ListView,
  type NotOnPlanView,
  type SprintPayload,
  sprintView,
} from "./view.ts";
export { BoardRuntime, type BoardRuntimeOptions, configuredOutliner } from "./runtime.ts";
export {
  addRealLists,
  configuredBoard,
  parseRealLists,
  readRealLists,
  REAL_LISTS_FILE,
  type RealList,
  realListRefusal,
  removeRealLists,
} from "./real_lists.ts";
