/**
 * One folder's entries for a transcript walk: a folder that cannot be read is reported once and walked past.
 * @module
 */
import type { ProblemSink, TranscriptDirEntry, TranscriptIo } from "../derive/mod.ts";
import { errorText } from "../lang/mod.ts";

/** The entries of `path`; none, with one problem line, when it cannot be read (a missing folder is simply empty). */
export function dirEntries(io: TranscriptIo, path: string, problem: ProblemSink): TranscriptDirEntry[] {
  try {
    return io.readDir(path);
  } catch (err) {
    problem(path, errorText(err));
    return [];
  }
}
