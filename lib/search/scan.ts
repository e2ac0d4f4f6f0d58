/**
 * The bounded scan of one transcript: read at most `maxBytes` from the END of the file (the newest messages:
 * search runs newest first, and a long session's recent talk is what a person looks for), or from its compressed
 * copy when the agent deleted the original, then keep the message lines. The line classifier is the agent's own
 * (`TranscriptCapability.classifyLine`): message text only, never JSON keys.
 * @module
 */
import type { TranscriptLine } from "../derive/mod.ts";
// deep on purpose: the search Worker loads this file; the history face would load the whole import into it
import { copyTail } from "../history/copies.ts";
import { readTailSync, RefusedFile } from "../files/mod.ts";
import { SEARCHED_KINDS } from "./text.ts";

/**
 * What one agent says one line is; with `documentRecords` when the agent has a format written as one JSON document
 * (its lines are pieces of it): the document's records, as lines the classifier reads, or null for a file of lines.
 */
export type Classify = ((line: string) => TranscriptLine | null) & {
  documentRecords?: (text: string) => string[] | null;
};

/** The bytes a scan reads of one file, and whether the byte bound cut its start off. */
export interface ScanBytes {
  bytes: Uint8Array;
  /** true when the file was longer than the bound (its oldest part was not read) */
  truncated: boolean;
}

/**
 * Reads the last `maxBytes` of `path` (whole lines), or of its copy when the original is gone; null when neither
 * exists. A path asm refuses (a FIFO, a device, a link, a file whose real path is outside `within`: the agent's
 * own transcript folders) is read as nothing: it holds no transcript.
 */
export function readTail(
  path: string,
  copy: string | null,
  maxBytes: number,
  within?: readonly string[],
): ScanBytes | null {
  try {
    const tail = readTailSync(path, maxBytes, { within });
    return { bytes: tail.bytes, truncated: tail.truncated };
  } catch (err) {
    if (err instanceof RefusedFile) return { bytes: new Uint8Array(0), truncated: false };
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const copied = copy === null ? null : copyTail(copy, maxBytes);
  return copied === null ? null : { bytes: copied.bytes, truncated: copied.truncated };
}

/**
 * The lines of some transcript text (or of the document it is), each record once, oldest first. A record
 * re-appended under the same id (Gemini CLI rewrites a message as it streams) counts once: the last copy wins and
 * takes the later place. The scan and the index both fold through this, so they count the same matches.
 */
export function lastCopies(text: string, classify: Classify): TranscriptLine[] {
  const byId = new Map<string, TranscriptLine>();
  let anonymous = 0;
  // an older format's one document (whole, from its first line) is read as its records
  for (const raw of classify.documentRecords?.(text) ?? text.split("\n")) {
    if (raw.trim() === "") continue;
    const line = classify(raw);
    if (line === null) continue;
    const key = line.id === null ? `\u0000${anonymous++}` : line.id;
    byId.delete(key); // a later copy moves to the end
    byId.set(key, line);
  }
  return [...byId.values()];
}

/** True for a line search reads: message text of a searched kind. */
export function isSearched(line: TranscriptLine): boolean {
  return SEARCHED_KINDS.has(line.kind) && line.text !== "";
}

/** The message lines of a transcript's bytes, oldest first (see {@link lastCopies}). */
export function messageLines(bytes: Uint8Array, classify: Classify): TranscriptLine[] {
  return lastCopies(new TextDecoder().decode(bytes), classify).filter(isSearched);
}
