/**
 * Reading one transcript file for the import: on from its saved offset with its saved fold state when the file
 * only grew (and its bytes before the offset are unchanged), else whole; through the byte pass; with one log line
 * when it cannot be read or reads badly; and, for an agent that keeps copies, its compressed copy. Everything it
 * needs comes in the job and everything it learns goes out in the result, so it runs the same in the importing
 * thread and in a read worker (`read_pool.ts`).
 * @module
 */
import type { AgentConfig } from "../agents/mod.ts";
import type { TranscriptCapability, TranscriptFile, TranscriptHandle, TranscriptIo } from "../derive/mod.ts";
// deep on purpose: the read workers load this file; the derive face would load the ledger into each
import { GUARD_BYTES, passFile, type PassOutcome } from "../derive/byte_pass.ts";
import { readFullySync } from "../files/mod.ts";
import { compressFile } from "./copies.ts";
import type { ReadPlan } from "./plan.ts";
import { errorText, type LogLine } from "../lang/mod.ts";

/** What a read learned of one file: plain data (it crosses from a read worker to the writer). */
export interface FileReadData {
  file: TranscriptFile;
  state: unknown;
  /** `state` as JSON: what import_state keeps to read on from the offset next time */
  fold: string;
  sessionId: string | null;
  outcome: PassOutcome;
  tail: string | null;
  problem: string | null;
  /** read on from a saved offset (false: read whole, also when a planned resume fell back) */
  resumed: boolean;
  /** the copy to store for an agent that keeps copies (its reference and gzip parts), or null */
  copy: { ref: string; parts: Uint8Array[] } | null;
}

/** A file read in this import, with its agent. */
export interface FileRead extends FileReadData {
  agent: AgentConfig;
  cap: TranscriptCapability;
}

/** One file to read, with everything the read needs. */
export interface ReadJob {
  read: ReadPlan;
  agent: AgentConfig;
  /** the fold state saved at the plan's offset (JSON), for a resume; null reads the file whole */
  savedFold: string | null;
  /** the reference of the copy to make (an agent that keeps copies), or null */
  copyTo: string | null;
  /** the agent's own transcript folders: the file is read only when its real path lies in one of them */
  within?: readonly string[];
  /** `within` holds the folders' real paths already (resolved once per import, not once per file) */
  withinResolved?: boolean;
  chunkBytes?: number;
  maxLineBytes?: number;
  yieldEveryMs?: number;
}

/** What a read did: the data (null when the file could not be read) and the log lines it owes. */
export interface ReadDone {
  data: FileReadData | null;
  problems: LogLine[];
}

/** The result of a read that could not run at all (a worker that failed or stopped, an unknown reader). */
export function failedRead(job: { read: ReadPlan }, why: string): ReadDone {
  const { file } = job.read;
  return {
    data: null,
    problems: [{ what: "transcript read failed", agent: file.agent, path: file.path, error: why }],
  };
}

/**
 * The lines of each unknown type this read skipped (beyond those the reads before it skipped), type -> lines: a
 * version's record the reader does not know is logged once per type and file read, never once per line.
 */
export function newUnknownTypes(
  now: Record<string, number>,
  before: Record<string, number>,
): [string, number][] {
  return Object.entries(now).map(([type, n]) => [type, n - (before[type] ?? 0)] as [string, number])
    .filter(([, n]) => n > 0);
}

/** The part of a job the read itself uses (what a worker is sent). */
export type ReadInput = Omit<ReadJob, "agent">;

function readRange(handle: TranscriptHandle, start: number, end: number): Uint8Array | null {
  const buf = new Uint8Array(end - start);
  return readFullySync(handle, buf, start) === buf.length ? buf : null;
}

/** 32-bit FNV-1a of `bytes`, continuing from `hash`. */
function fnv1a(bytes: Uint8Array, hash: number): number {
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 16777619);
  return hash >>> 0;
}

/**
 * A checksum of the first 512 bytes and the 512 bytes before `offset` (two FNV-1a runs with different seeds, as
 * hex): a file rewritten in place (not only appended to) is read whole again instead of on from an offset that no
 * longer means anything. It guards against accidents, not adversaries: a fast hash is enough, and it is taken
 * once per file read.
 */
function tailHash(handle: TranscriptHandle, offset: number): string | null {
  if (offset <= 0) return null;
  const head = readRange(handle, 0, Math.min(GUARD_BYTES, offset));
  const tail = readRange(handle, Math.max(0, offset - GUARD_BYTES), offset);
  if (head === null || tail === null) return null;
  return checksumOf(head, tail, offset);
}

/** {@link tailHash} of the bytes themselves. */
function checksumOf(head: Uint8Array, tail: Uint8Array, offset: number): string {
  const a = fnv1a(tail, fnv1a(head, 2166136261));
  const b = fnv1a(tail, fnv1a(head, 0x9747b28c));
  return `fnv:${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}:${offset}`;
}

/** {@link tailHash} of a file not open yet. */
function tailHashOf(io: TranscriptIo, path: string, offset: number): string | null {
  const handle = io.open(path);
  try {
    return tailHash(handle, offset);
  } finally {
    handle.close();
  }
}

/** A saved fold state, or null when there is none or it is not JSON. */
export function parseFold(json: string | null): unknown | null {
  if (json === null) return null;
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/**
 * Reads one file (on from its offset with the saved state, or whole). `data` is null when it could not be read;
 * `problems` holds the one log line a bad file costs.
 */
export async function readTranscript(
  job: ReadInput,
  cap: TranscriptCapability,
  io: TranscriptIo,
  onBytes?: (n: number) => void,
): Promise<ReadDone> {
  const { file } = job.read;
  const problems: LogLine[] = [];
  const done = (data: FileReadData | null): ReadDone => ({ data, problems });
  let from = job.read.from;
  let saved: unknown | null = null;
  if (job.read.mode === "resume") {
    try {
      saved = job.read.known?.tail === tailHashOf(io, file.path, from) ? parseFold(job.savedFold) : null;
    } catch {
      saved = null;
    }
    if (saved === null) from = 0; // rewritten in place, or no usable state: read it whole
  }
  const fold = cap.fold(file, saved);
  const before = saved === null ? null : cap.facts([saved], [file]);
  const badBefore = before?.bad_lines ?? 0;
  let outcome: PassOutcome;
  let tail: string | null;
  try {
    const handle = io.open(file.path, { within: job.within, withinResolved: job.withinResolved });
    try {
      outcome = await passFile(handle, from, file.size, fold, {
        chunkBytes: job.chunkBytes,
        maxLineBytes: job.maxLineBytes,
        yieldEveryMs: job.yieldEveryMs,
        onBytes,
        guard: true,
      });
      // the pass kept the guard's bytes as they went by; read them again only when it could not
      const { firstBytes, bytesBeforeOffset } = outcome;
      tail = outcome.shrank
        ? null
        : firstBytes && bytesBeforeOffset && outcome.offset > 0
        ? checksumOf(firstBytes, bytesBeforeOffset, outcome.offset)
        : tailHash(handle, outcome.offset);
      // the bytes have served: they do not travel on to the writer
      outcome = { ...outcome, firstBytes: null, bytesBeforeOffset: null };
    } finally {
      handle.close();
    }
  } catch (err) {
    problems.push({
      what: "transcript unreadable",
      agent: file.agent,
      path: file.path,
      error: errorText(err),
    });
    return done(null);
  }
  if (outcome.shrank) {
    problems.push({
      what: "transcript changed while being read",
      agent: file.agent,
      path: file.path,
      error: `it ended at byte ${from + outcome.bytesRead} of ${file.size}; it is read again next time`,
    });
    return done(null);
  }
  const state = fold.state();
  const facts = cap.facts([state], [file]);
  const bad = facts.bad_lines - badBefore;
  const issues: string[] = [];
  if (bad > 0) issues.push(`${bad} line(s) could not be read`);
  if (outcome.oversized > 0) issues.push(`${outcome.oversized} line(s) over the line limit were skipped`);
  // a JSON document written whole ends without a newline (its closing line is never complete): no problem
  if (outcome.partialTail > 0 && !file.whole) {
    issues.push(`it ends in an incomplete line of ${outcome.partialTail} bytes`);
  }
  for (const [type, n] of newUnknownTypes(facts.unknown_types ?? {}, before?.unknown_types ?? {})) {
    problems.push({
      what: "transcript line type not known",
      agent: file.agent,
      path: file.path,
      error: `${n} line(s) of type ${JSON.stringify(type)} were skipped: this reader does not know the type`,
    });
  }
  const sessionId = cap.sessionOf(state, file);
  if (sessionId === null) issues.push("it names no session id; it is not a session");
  if (issues.length) {
    problems.push({
      what: "transcript read with problems",
      agent: file.agent,
      path: file.path,
      error: issues.join("; "),
    });
  }
  let copy: FileReadData["copy"] = null;
  if (job.copyTo !== null) {
    try {
      copy = { ref: job.copyTo, parts: compressFile(file.path) };
    } catch (err) {
      problems.push({
        what: "transcript copy failed",
        agent: file.agent,
        path: file.path,
        error: errorText(err),
      });
    }
  }
  return done({
    file,
    state,
    fold: JSON.stringify(state),
    sessionId,
    outcome,
    tail,
    problem: issues.length ? issues.join("; ") : null,
    resumed: from > 0,
    copy,
  });
}
