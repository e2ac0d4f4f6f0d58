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
  RefusedFile,
  openRegularSync,
  type OpenOptions,
  pathExists,
  readFullySync,
  type ReadHandle,
  type RegularFile,
} from "./regular.ts";
export { readTail, readTailSync, type Tail, tailOf } from "./tail.ts";
