/**
 * Reading one transcript file for the import: on from its saved offset with its saved fold state when the file
 * only grew (and its bytes before the offset are unchanged), else whole; through the byte pass; with one log line
 * when it cannot be read or reads badly.
 * @module
 */
import { createHash } from "node:crypto";
import type { AgentConfig } from "../agents/protocol.ts";
import type {
  TranscriptCapability,
  TranscriptFile,
  TranscriptHandle,
  TranscriptIo,
} from "../agents/transcript_types.ts";
import { passFile, type PassOutcome } from "../derive/byte_pass.ts";
import { foldStateOf, type Ledger } from "../ledger/mod.ts";
import type { ReadPlan } from "./plan.ts";

/** A file read in this import. */
export interface FileRead {
  agent: AgentConfig;
  cap: TranscriptCapability;
  file: TranscriptFile;
  state: unknown;
  sessionId: string | null;
  outcome: PassOutcome;
  tail: string | null;
  problem: string | null;
  /** read on from a saved offset (false: read whole, also when a planned resume fell back) */
  resumed: boolean;
}

/** Bytes hashed at the start of a file and before its offset: the guard against resuming a rewritten file. */
const GUARD_BYTES = 512;

/** The message of an error, as a plain string. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function readRange(handle: TranscriptHandle, start: number, end: number): Uint8Array | null {
  const buf = new Uint8Array(end - start);
  let n = 0;
  while (n < buf.length) {
    const got = handle.read(buf.subarray(n), start + n);
    if (got <= 0) return null;
    n += got;
  }
  return buf;
}

/**
 * sha-256 (hex) of the first 512 bytes and the 512 bytes before `offset`: a file rewritten in place (not only
 * appended to) is read whole again instead of on from an offset that no longer means anything.
 */
function tailHash(handle: TranscriptHandle, offset: number): string | null {
  if (offset <= 0) return null;
  const head = readRange(handle, 0, Math.min(GUARD_BYTES, offset));
  const tail = readRange(handle, Math.max(0, offset - GUARD_BYTES), offset);
  if (head === null || tail === null) return null;
  return createHash("sha256").update(head).update(tail).digest("hex");
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

/** What reading a file needs beyond the file. */
export interface ReadOptions {
  ledger: Ledger;
  chunkBytes?: number;
  maxLineBytes?: number;
  yieldEveryMs?: number;
}

/** Reads one file (on from its offset, or whole); null when it could not be read (one log line said why). */
export async function readTranscript(
  read: ReadPlan,
  r: { agent: AgentConfig; cap: TranscriptCapability },
  o: ReadOptions & { io: TranscriptIo; problem: (line: Record<string, unknown>) => void },
  onBytes: (n: number) => void,
): Promise<FileRead | null> {
  const { io, problem } = o;
  const { file } = read;
  let from = read.from;
  let saved: unknown | null = null;
  if (read.mode === "resume") {
    try {
      saved = read.known?.tail === tailHashOf(io, file.path, from)
        ? parseFold(foldStateOf(o.ledger, file.path))
        : null;
    } catch {
      saved = null;
    }
    if (saved === null) from = 0; // rewritten in place, or no usable state: read it whole
  }
  const fold = r.cap.fold(file, saved);
  const badBefore = saved === null ? 0 : r.cap.facts([saved], [file]).bad_lines;
  let outcome: PassOutcome;
  let tail: string | null;
  try {
    const handle = io.open(file.path);
    try {
      outcome = await passFile(handle, from, file.size, fold, {
        chunkBytes: o.chunkBytes,
        maxLineBytes: o.maxLineBytes,
        yieldEveryMs: o.yieldEveryMs,
        onBytes,
      });
      tail = outcome.shrank ? null : tailHash(handle, outcome.offset);
    } finally {
      handle.close();
    }
  } catch (err) {
    problem({ what: "transcript unreadable", agent: file.agent, path: file.path, error: errorText(err) });
    return null;
  }
  if (outcome.shrank) {
    problem({
      what: "transcript changed while being read",
      agent: file.agent,
      path: file.path,
      error: `it ended at byte ${from + outcome.bytesRead} of ${file.size}; it is read again next time`,
    });
    return null;
  }
  const state = fold.state();
  const facts = r.cap.facts([state], [file]);
  const bad = facts.bad_lines - badBefore;
  const issues: string[] = [];
  if (bad > 0) issues.push(`${bad} line(s) could not be read`);
  if (outcome.oversized > 0) issues.push(`${outcome.oversized} line(s) over the line limit were skipped`);
  if (outcome.partialTail > 0) issues.push(`it ends in an incomplete line of ${outcome.partialTail} bytes`);
  const sessionId = r.cap.sessionOf(state, file);
  if (sessionId === null) issues.push("it names no session id; it is not a session");
  if (issues.length) {
    problem({
      what: "transcript read with problems",
      agent: file.agent,
      path: file.path,
      error: issues.join("; "),
    });
  }
  return {
    agent: r.agent,
    cap: r.cap,
    file,
    state,
    sessionId,
    outcome,
    tail,
    problem: issues.length ? issues.join("; ") : null,
    resumed: from > 0,
  };
}
