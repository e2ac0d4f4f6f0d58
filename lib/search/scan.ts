/**
 * The bounded scan of one transcript: read at most `maxBytes` from the END of the file (the newest messages:
 * search runs newest first, and a long session's recent talk is what a person looks for), or from its compressed
 * copy when the agent deleted the original, then keep the message lines. The line classifier is the agent's own
 * (`TranscriptCapability.classifyLine`): message text only, never JSON keys.
 * @module
 */
import type { TranscriptLine } from "../agents/transcript_types.ts";
import { transcriptBytes } from "../history/copies.ts";
import { SEARCHED_KINDS } from "./text.ts";

/** What one agent says one line is. */
export type Classify = (line: string) => TranscriptLine | null;

/** The bytes a scan reads of one file, and whether the byte bound cut its start off. */
export interface ScanBytes {
  bytes: Uint8Array;
  /** true when the file was longer than the bound (its oldest part was not read) */
  truncated: boolean;
}

/**
 * Reads the last `maxBytes` of `path` (whole lines only), or of its copy when the original is gone; null when
 * neither exists.
 */
export function readTail(path: string, copy: string | null, maxBytes: number): ScanBytes | null {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    const whole = transcriptBytes(path, copy);
    return whole === null ? null : tailOf(whole, maxBytes);
  }
  try {
    const size = file.statSync().size;
    if (size <= maxBytes) return { bytes: readAt(file, 0, size), truncated: false };
    // one byte more than the bound: if it is a newline, the window starts exactly on a line
    const from = size - maxBytes - 1;
    return { bytes: afterFirstNewline(readAt(file, from, size - from)), truncated: true };
  } finally {
    file.close();
  }
}

function readAt(file: Deno.FsFile, position: number, length: number): Uint8Array {
  const buf = new Uint8Array(length);
  file.seekSync(position, Deno.SeekMode.Start);
  let got = 0;
  while (got < length) {
    const n = file.readSync(buf.subarray(got));
    if (n === null || n === 0) break; // the file shrank while we read: keep what we have
    got += n;
  }
  return buf.subarray(0, got);
}

/** The last `maxBytes` of `bytes` (whole lines only), and whether anything was cut. */
export function tailOf(bytes: Uint8Array, maxBytes: number): ScanBytes {
  if (bytes.length <= maxBytes) return { bytes, truncated: false };
  return { bytes: afterFirstNewline(bytes.subarray(bytes.length - maxBytes - 1)), truncated: true };
}

/** A cut window's first line is a fragment: the window starts after its first newline. */
function afterFirstNewline(window: Uint8Array): Uint8Array {
  const nl = window.indexOf(0x0a);
  return nl === -1 ? window.subarray(window.length) : window.subarray(nl + 1);
}

/**
 * The lines of some transcript text, each record once, oldest first. A record re-appended under the same id
 * (Gemini CLI rewrites a message as it streams) counts once: the last copy wins and takes the later place. The
 * scan and the index both fold through this, so they count the same matches.
 */
export function lastCopies(text: string, classify: Classify): TranscriptLine[] {
  const byId = new Map<string, TranscriptLine>();
  let anonymous = 0;
  for (const raw of text.split("\n")) {
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
