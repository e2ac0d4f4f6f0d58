/**
 * The one byte pass over a transcript: the file is read in chunks (never whole), cut at newlines, and each
 * complete line is handed to the agent's fold as a byte range of the chunk. Only lines ending in a newline are
 * consumed, so the offset it returns is always the start of a line, and a file that grows is later read on from
 * there. Memory stays bounded whatever the file: a line longer than `maxLineBytes` is skipped (counted), never
 * buffered whole.
 * @module
 */
import type { TranscriptHandle } from "./transcript_types.ts";
import { type LineBuffer, lineBuffer, TABLE_SLOTS } from "./newline_scan.ts";

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
  /**
   * Keep the file's first bytes and the bytes before the returned offset (up to `GUARD_BYTES` each) as they pass
   * by, so the caller can checksum them without reading them again.
   */
  guard?: boolean;
}

/** How many bytes {@link PassOptions.guard} keeps at each end. */
export const GUARD_BYTES = 512;

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
  /**
   * With `guard`: the file's first min(GUARD_BYTES, offset) bytes, and the min(GUARD_BYTES, offset) bytes before
   * `offset`; null when this pass did not see them (it started past them, or skipped an oversized line there).
   */
  firstBytes: Uint8Array | null;
  bytesBeforeOffset: Uint8Array | null;
}

const CR = 13;
const DEFAULT_CHUNK = 1 << 20;

/**
 * Read buffers of the default size, reused across passes: a fresh buffer per file costs more than the reads
 * themselves (the kernel zero-fills every new page it copies into). A pass takes one and gives it back when it
 * ends, so passes that interleave (the server yields between chunks) never share one; one that grew for a long
 * line is dropped, so the pool never holds more than POOL_MAX default-sized buffers.
 */
const POOL: LineBuffer[] = [];
const POOL_MAX = 4;

function takeBuffer(bytes: number): LineBuffer {
  return (bytes === DEFAULT_CHUNK ? POOL.pop() : undefined) ?? lineBuffer(bytes);
}

function giveBack(buf: LineBuffer): void {
  if (buf.bytes.length === DEFAULT_CHUNK && POOL.length < POOL_MAX) POOL.push(buf);
}

/** Lets the event loop run (timers, requests) before going on: long work in the server calls it between steps. */
export function yieldToLoop(): Promise<void> {
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
  const chunk = options.chunkBytes ?? DEFAULT_CHUNK;
  const maxLine = Math.max(options.maxLineBytes ?? 16 << 20, chunk);
  const yieldEvery = options.yieldEveryMs ?? Infinity;
  const lines = takeBuffer(chunk);
  let carry = 0; // bytes of an unfinished line at the start of the buffer
  let skipping = false; // inside an oversized line: drop bytes until its newline
  let pos = from;
  const out: PassOutcome = {
    offset: from,
    bytesRead: 0,
    lines: 0,
    oversized: 0,
    partialTail: 0,
    shrank: false,
    firstBytes: null,
    bytesBeforeOffset: null,
  };
  // the guard's bytes: the file's start, and the consumed bytes just before the offset (a ring of the last ones)
  const recent = options.guard ? new Uint8Array(GUARD_BYTES) : null;
  let recentLen = 0;
  const first = options.guard && from === 0 ? new Uint8Array(GUARD_BYTES) : null;
  let firstLen = 0;
  let sliceStart = performance.now();
  try {
    while (pos < size) {
      if (carry === lines.bytes.length) {
        // a line longer than the buffer: grow up to the cap, then give up on the line and skip to its end
        if (lines.bytes.length < maxLine) lines.grow(Math.min(lines.bytes.length * 2, maxLine));
        else {
          skipping = true;
          out.oversized++;
          carry = 0;
          recentLen = 0; // the line's bytes read so far are dropped: what follows is not contiguous with them
        }
      }
      const buf = lines.bytes;
      const want = Math.min(buf.length - carry, size - pos);
      const n = handle.read(buf.subarray(carry, carry + want), pos);
      if (n <= 0) {
        out.shrank = true;
        break;
      }
      if (first !== null && pos < GUARD_BYTES) {
        // the file's first bytes, over as many reads as it takes (they sit at buf[carry] for file byte `pos`)
        const take = Math.min(n, GUARD_BYTES - pos);
        first.set(buf.subarray(carry, carry + take), pos);
        firstLen = pos + take;
      }
      pos += n;
      out.bytesRead += n;
      const end = carry + n;
      let start = 0;
      // only the bytes read: past `end` a reused buffer holds an earlier file's bytes
      let scan = skipping ? 0 : carry;
      for (;;) {
        const newlines = lines.scan(scan, end);
        for (let i = 0; i < newlines.length; i++) {
          const nl = newlines[i];
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
        }
        // a full table: there may be more newlines after the last one reported
        if (newlines.length < TABLE_SLOTS) break;
        scan = start;
      }
      if (recent !== null) {
        // buf[0] sits at the previous offset: the bytes consumed now follow the ones kept
        const consumed = skipping ? end : start;
        if (consumed >= GUARD_BYTES) {
          recent.set(buf.subarray(consumed - GUARD_BYTES, consumed));
          recentLen = GUARD_BYTES;
        } else {
          const keep = Math.min(recentLen, GUARD_BYTES - consumed);
          recent.copyWithin(0, recentLen - keep, recentLen);
          recent.set(buf.subarray(0, consumed), keep);
          recentLen = keep + consumed;
        }
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
  } finally {
    giveBack(lines);
  }
  out.partialTail = skipping ? 0 : carry;
  if (skipping) {
    // the file ended inside an oversized line: it is neither consumed nor a tail worth keeping
    out.offset = pos;
  }
  if (recent !== null && !out.shrank) {
    const need = Math.min(GUARD_BYTES, out.offset);
    if (first !== null && firstLen >= need) out.firstBytes = first.subarray(0, need);
    if (recentLen >= need) out.bytesBeforeOffset = recent.slice(recentLen - need, recentLen);
  }
  return out;
}
