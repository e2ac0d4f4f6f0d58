/**
 * Phase one of a cold import, for one file: what the list needs, from a bounded read of each end. The head holds
 * the session's id, folder, start, source and (most often) its first prompt; the tail its last activity, model
 * and context. Whole lines only, fed to the agent's own fold (the same reader as the full pass: no second parser
 * to drift): the head's lines until they name the first prompt, read on in growing steps up to a bound (a first
 * line may carry a long preamble); then the tail's, into a fold of their own. What lies past a bound says nothing
 * here and waits for the full pass.
 * Everything it needs comes in and everything it learns goes out, so it runs the same in a read worker.
 * @module
 */
import type {
  SessionFacts,
  TranscriptCapability,
  TranscriptFile,
  TranscriptHandle,
  TranscriptIo,
} from "../derive/mod.ts";
import { errorText, type LogLine } from "../lang/mod.ts";

/** How much of each end a list read takes. */
export interface ListWindows {
  /** bytes the head reads first (default 16 KiB) */
  first?: number;
  /** the head grows (x4) while its lines name no first prompt, up to this (default 64 KiB) */
  max?: number;
  /** the tail's bytes (default 16 KiB) */
  tailMax?: number;
  /** a file up to this size is read in one call (default 48 KiB, at most `max`) */
  whole?: number;
}

/**
 * What a list read learned of one file (plain data, it crosses from a worker): the facts of its two ends (the
 * head's, with the tail's newest activity, model, context and titles over them) and the head's fold state (what
 * the agent's enrich step reads).
 */
export interface ListReadData {
  facts: SessionFacts | null;
  state: unknown;
  sessionId: string | null;
  bytesRead: number;
}

/** What a list read did: the data (null when the file could not be read) and the log lines it owes. */
export interface ListDone {
  data: ListReadData | null;
  problems: LogLine[];
}

const NL = 10;
const FIRST = 16 << 10;
const MAX = 64 << 10;
const TAIL_MAX = 16 << 10;
/** A file this small is read in one call. */
const WHOLE = 48 << 10;

/** A buffer kept between reads (a fresh one per file costs more than the read). */
let shared = new Uint8Array(2 * FIRST);

/** The shared buffer, at least `bytes` long (grown with its contents kept: the head is read on into it). */
function bufferOf(bytes: number): Uint8Array {
  if (shared.length < bytes) {
    const grown = new Uint8Array(Math.max(bytes, shared.length * 2));
    grown.set(shared);
    shared = grown;
  }
  return shared;
}

function readAt(handle: TranscriptHandle, into: Uint8Array, position: number): number {
  let got = 0;
  while (got < into.length) {
    const n = handle.read(into.subarray(got), position + got);
    if (n <= 0) break;
    got += n;
  }
  return got;
}

/**
 * Feeds the complete lines of `buf[start, end)` to the fold one by one, until `enough()` says the fold knows
 * what it needs. `end`: where the last line fed ends (where a further read goes on); `done`: it was enough.
 */
function feedLines(
  fold: { line(b: Uint8Array, s: number, e: number): void },
  buf: Uint8Array,
  start: number,
  end: number,
  enough: () => boolean = () => false,
): { end: number; done: boolean } {
  let i = start;
  for (;;) {
    const j = buf.indexOf(NL, i);
    if (j < 0 || j >= end) return { end: i, done: false };
    let e = j;
    if (e > i && buf[e - 1] === 13) e--;
    if (e > i) {
      fold.line(buf, i, e);
      if (enough()) return { end: j + 1, done: true };
    }
    i = j + 1;
  }
}

/** The result of a list read that could not run at all (its worker failed or stopped, no such reader). */
export function failedList(file: TranscriptFile, why: string): ListDone {
  return {
    data: null,
    problems: [{ what: "transcript read failed", agent: file.agent, path: file.path, error: why }],
  };
}

/** The result of a file that could not be opened or read: one log line. */
function unreadable(file: TranscriptFile, err: unknown): ListDone {
  return {
    data: null,
    problems: [{ what: "transcript unreadable", agent: file.agent, path: file.path, error: errorText(err) }],
  };
}

/**
 * Reads the two ends of one file through its agent's fold. A file that is one JSON document (read whole by its
 * reader) is read whole when it is within the bound, else left to the full pass (null state, no problem).
 */
export function listTranscript(
  file: TranscriptFile,
  cap: TranscriptCapability,
  io: TranscriptIo,
  options: ListWindows & { within?: readonly string[]; withinResolved?: boolean } = {},
): ListDone {
  const first = options.first ?? FIRST;
  const max = Math.max(options.max ?? MAX, first);
  const tailMax = options.tailMax ?? TAIL_MAX;
  const whole = Math.min(options.whole ?? WHOLE, max);
  const fold = cap.fold(file, null);
  let tail: SessionFacts | null = null;
  let bytesRead = 0;
  let handle: TranscriptHandle;
  try {
    // a folder of the store may be a link to elsewhere (the walk reads folders through links) or become one
    // after the walk: the file is read only when its real path lies in the agent's own folders
    handle = io.open(file.path, { within: options.within, withinResolved: options.withinResolved });
  } catch (err) {
    return unreadable(file, err);
  }
  try {
    const size = file.size;
    if (file.whole) {
      if (size > max) {
        return {
          data: { facts: null, state: null, sessionId: file.sessionHint, bytesRead: 0 },
          problems: [],
        };
      }
      const buf = bufferOf(size);
      const n = readAt(handle, buf.subarray(0, size), 0);
      bytesRead += n;
      const { end } = feedLines(fold, buf, 0, n);
      // the document's closing line has no newline after it
      if (end < n) fold.line(buf, end, n);
    } else {
      // the head: its lines fed one by one until they name the first prompt (the last thing the head gives: id,
      // folder and start come before it), read on while they do not, up to the bound; a small file is read in
      // one call, and its tail is then taken from the same bytes (each read is a system call, and on a first run
      // they are most of the cost)
      const enough = () => cap.facts([fold.state()], [file]).first_message !== null;
      let headEnd = 0;
      let got = 0;
      for (
        let want = Math.min(size <= whole ? size : first, size);
        got < want;
        want = Math.min(want * 4, size, max)
      ) {
        const buf = bufferOf(want);
        const n = readAt(handle, buf.subarray(got, want), got);
        bytesRead += n;
        got += n;
        const fed = feedLines(fold, buf, headEnd, got, enough);
        headEnd = fed.end;
        if (fed.done || n === 0 || want >= Math.min(size, max)) break;
      }
      // the tail, with a fold of its own: the last `tailMax` bytes from a line start after the head (from the
      // bytes read already when the head read them all)
      const want = Math.min(tailMax, size - headEnd);
      if (want > 0) {
        const from = size - want;
        let buf: Uint8Array;
        let at: number;
        if (got >= size) {
          buf = shared;
          at = from;
        } else {
          buf = bufferOf(got + want).subarray(got);
          at = 0;
          bytesRead += readAt(handle, buf.subarray(0, want), from);
        }
        const end = at + want;
        // a window that does not start where the head ended starts mid-line: its first line is not whole
        const start = from === headEnd ? at : buf.subarray(at, end).indexOf(NL) + 1 + at;
        if (start > at || from === headEnd) {
          const tailFold = cap.fold(file, null);
          if (feedLines(tailFold, buf, start, end).end > start) tail = cap.facts([tailFold.state()], [file]);
        }
      }
    }
  } catch (err) {
    return unreadable(file, err);
  } finally {
    handle.close();
  }
  const state = fold.state();
  const facts = withTail({ ...cap.facts([state], [file]) }, tail);
  return { data: { facts, state, sessionId: cap.sessionOf(state, file), bytesRead }, problems: [] };
}

/** What the tail says over what the head says: the newest moment, and the newest model, context and titles. */
const FROM_TAIL = [
  "model",
  "context_tokens",
  "context_window",
  "agent_version",
  "name",
  "title",
  "summary",
] as const;

function withTail(head: SessionFacts, tail: SessionFacts | null): SessionFacts {
  // lines of another session at the end (a resumed copy's) say nothing of this one
  if (tail === null || (tail.session_id !== null && tail.session_id !== head.session_id)) return head;
  if (tail.last_seen !== null && (head.last_seen === null || tail.last_seen > head.last_seen)) {
    head.last_seen = tail.last_seen;
  }
  if (head.started_at === null) head.started_at = tail.started_at;
  for (const key of FROM_TAIL) {
    if (tail[key] !== null) (head as unknown as Record<string, unknown>)[key] = tail[key];
  }
  return head;
}
