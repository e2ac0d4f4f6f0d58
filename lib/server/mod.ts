/**
 * The server: app, writer lock, background tasks.
 * @module
 */
export {
  ensureDataFolder,
  harnessRoots,
  registryIgnoreReason,
  type RunningServer,
  serverLogger,
  type ServerOptions,
  startServer,
} from "./app.ts";
export {
  acquireWriterLock,
  AlreadyRunningError,
  currentHolder,
  type LockHolder,
  type WriterLock,
} from "./lock.ts";
export { BackgroundTask, type TaskStatus } from "./tasks.ts";
