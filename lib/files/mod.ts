/**
 * Files whose paths came from outside, opened without trusting them: regular files only, never through a link,
 * never blocking, and read in bounded amounts.
 * @module
 */
export {
  closeSync,
  type FileReader,
  insideAny,
  NODE_FILES,
  type OpenOptions,
  openRegularSync,
  pathExists,
  readFullySync,
  type ReadHandle,
  readRegularSync,
  readRegularTextSync,
  realFolders,
  RefusedFile,
  type RegularFile,
  type SyncReader,
} from "./regular.ts";
export { type Growth, readGrowth, readTail, readTailSync, type Tail, tailOf } from "./tail.ts";
export { appendRotating, LOG_MAX_BYTES, type RotateOptions } from "./rotate.ts";
