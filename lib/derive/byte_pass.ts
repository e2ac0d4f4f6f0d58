/**
 * The one byte pass over a transcript: the file is read in chunks (never whole), cut at newlines, and each
 * complete line is handed to the agent's fold as a byte range of the chunk. Only lines ending in a newline are
 * consumed, so the offset it returns is always the start of a line, and a file that grows is later read on from
 * there. Memory stays bounded whatever the file: a line longer than `maxLineBytes` is skipped (counted), never
 * buffered whole.
 * @module
 */
import type { TranscriptHandle } from "../agents/transcript_types.ts";

/** Receives complete lines: the bytes `[start, end)` of `buf`, newline (and a trailing CR) excluded. */
export interface LineSink {
  line(buf: Uint8Array, start: number, end: number): void;
}

/** Options of {@link passFile}. */
export interface PassOptions {
  /** Bytes read per call (default 1 MiB). */
  chunkBytes?: number;
  /** A longer line is skipped, not buffered (default 16 MiB). */
  maxLineBytes?: number;
  /** Called after each chunk with the bytes read so far (progress). */
  onBytes?: (bytesSoFar: number) => void;
  /** Lets the event loop run between chunks once this many ms of work went by (the server); default never. */
  yieldEveryMs?: number;
}

/** What one pass over `[from, size)` did. */
export interface PassOutcome {
  /** Where the next pass starts: the byte after the last newline consumed. */
  offset: number;
  /** Bytes read in this pass. */
  bytesRead: number;
  /** Complete lines handed to the sink. */
  lines: number;
  /** Lines skipped because they were longer than maxLineBytes. */
  oversized: number;
  /** Bytes after the last newline: an incomplete last line, left for the next pass. */
  partialTail: number;
  /** The file ended before `size`: it shrank or was replaced while being read. */
  shrank: boolean;
}

const NEWLINE = 10;
const CR = 13;

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Reads `[from, size)` of an open file and feeds every complete line to `sink`. Reads stop at `size` (what the
 * walk saw), so a file written during the pass is picked up by the next one, from the returned offset.
 */
export async function passFile(
  handle: TranscriptHandle,
  from: number,
  size: number,
  sink: LineSink,
  options: PassOptions = {},
): Promise<PassOutcome> {
  const chunk = options.chunkBytes ?? 1 << 20;
  const maxLine = Math.max(options.maxLineBytes ?? 16 << 20, chunk);
  const yieldEvery = options.yieldEveryMs ?? Infinity;
  let buf = new Uint8Array(Math.min(chunk, Math.max(size - from, 1)));
  let carry = 0; // bytes of an unfinished line at the start of buf
  let skipping = false; // inside an oversized line: drop bytes until its newline
  let pos = from;
  const out: PassOutcome = {
    offset: from,
    bytesRead: 0,
    lines: 0,
    oversized: 0,
    partialTail: 0,
    shrank: false,
  };
  let sliceStart = performance.now();
  while (pos < size) {
    if (carry === buf.length) {
      // a line longer than the buffer: grow up to the cap, then give up on the line and skip to its end
      if (buf.length < maxLine) {
        const bigger = new Uint8Array(Math.min(buf.length * 2, maxLine));
        bigger.set(buf);
        buf = bigger;
      } else {
        skipping = true;
        out.oversized++;
        carry = 0;
      }
    }
    const want = Math.min(buf.length - carry, size - pos);
    const n = handle.read(buf.subarray(carry, carry + want), pos);
    if (n <= 0) {
      out.shrank = true;
      break;
    }
    pos += n;
    out.bytesRead += n;
    const end = carry + n;
    let start = 0;
    let scan = skipping ? 0 : carry;
    for (;;) {
      const nl = buf.indexOf(NEWLINE, scan);
      if (nl < 0 || nl >= end) break;
      if (skipping) skipping = false;
      else {
        let lineEnd = nl;
        if (lineEnd > start && buf[lineEnd - 1] === CR) lineEnd--;
        if (lineEnd > start) {
          sink.line(buf, start, lineEnd);
          out.lines++;
        }
      }
      start = nl + 1;
      scan = start;
    }
    if (skipping) {
      // the whole chunk belongs to the oversized line
      carry = 0;
      out.offset = pos;
    } else {
      out.offset = pos - (end - start);
      carry = end - start;
      if (carry > 0 && start > 0) buf.copyWithin(0, start, end);
    }
    options.onBytes?.(out.bytesRead);
    if (performance.now() - sliceStart >= yieldEvery) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  out.partialTail = skipping ? 0 : carry;
  if (skipping) {
    // the file ended inside an oversized line: it is neither consumed nor a tail worth keeping
    out.offset = pos;
  }
  return out;
}
