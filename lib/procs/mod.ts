/**
 * The process table from /proc: read-only, one pass per poll.
 * @module
 */
export {
  ancestry,
  bootId,
  identityOf,
  isSameProcess,
  LINUX_PROC,
  parseStat,
  type ProcessIdentity,
  type ProcInfo,
  type ProcSource,
  readProc,
  snapshot,
} from "./proc_table.ts";
