/**
 * The server, asm's composition root: `startServer` (app, routes handed in, background services, who gets in),
 * the writer lock, what a route is and what it sees, and the command line's way to a running server.
 * @module
 */
export {
  ensureDataFolder,
  harnessRoots,
  MAX_HEAVY,
  registryOrphanReason,
  type RunningServer,
  serverLogger,
  type ServerOptions,
  StartRefused,
  startServer,
} from "./app.ts";
export {
  acquireWriterLock,
  AlreadyRunningError,
  currentHolder,
  lockFileHolder,
  type LockHolder,
  type WriterLock,
} from "./lock.ts";
export {
  keepServingThroughUncaught,
  previousServerLine,
  stopOnSignals,
  unrecordedStop,
} from "./lifecycle.ts";
export { json, jsonError, type Route, type ServerContext } from "./router.ts";
export { callServer, directFetch, runningServer, type ServerAddress } from "./client.ts";
export { POLL_EVERY_MS, type Service, SERVICES } from "./services.ts";
export type { ServerState } from "./state.ts";
export type { OneTimeCodes } from "./codes.ts";
export type { TaskStatus } from "./tasks.ts";
export { type ConnectionCounts, type Peer, peerUid } from "./connections.ts";
export { type Fault, faultCause, ServerFaults } from "./faults.ts";
export {
  type HealthFacts,
  type HealthModel,
  healthModel,
  type HealthPart,
  type HealthRow,
  healthRows,
  healthText,
  PART_LABELS,
} from "./health.ts";
export { healthOf, type HealthSources } from "./health_check.ts";
export { LedgerWatch, type LedgerWatchFacts, probeWritable, type WritableProbe } from "./ledger_watch.ts";
