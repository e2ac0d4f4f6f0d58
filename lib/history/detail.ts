/**
 * One session as its page shows it: what the ledger knows (the row, its runs, its launches, the sessions a
 * CONTINUE WITH links it to, the command that resumes it) and its transcript, read through the agent's own line
 * reader (lib/ui/transcript_view.ts) into entries, the window of them a page shows, and the session's token
 * totals. A transcript the agent deleted is read from asm's compressed copy. The read is bounded (the newest 16 MiB
 * of each file) and goes through the file seam the server hands in, so a hook's hostile `transcript_path` (a
 * FIFO, `/dev/zero`, a link) costs nothing. Each line is keyed by where it was read (its file's key and its byte
 * offset), so a later read (the stream, "Show earlier") names the same line the same way.
 * @module
 */
import { adapterOf, type AgentConfig, loadAgents } from "../agents/mod.ts";
import type { Env } from "../config/mod.ts";
import type { TranscriptCapability } from "../derive/mod.ts";
import { type FileReader, readTail, RefusedFile, type Tail } from "../files/mod.ts";
import { filesOfSession, launchesOf, type Ledger, type SessionRow } from "../ledger/mod.ts";
import { resumeCommandLine } from "../launch/argv.ts";
import {
  type KeyedLine,
  type TokenTotals,
  type TranscriptEntry,
  transcriptOf,
  UsageTotals,
  windowOf,
  type WindowRequest,
} from "../ui/transcript_view.ts";
import { copyTail } from "./copies.ts";

/** What reading a session's detail needs. */
export interface DetailDeps {
  ledger: Ledger;
  asmHome: string;
  env: Env;
  files: FileReader;
}

/** The most of one transcript the detail reads: its tail, so a huge file costs a bounded read. */
export const MAX_BYTES_PER_FILE = 16 * 1024 * 1024;

/** Another session this one is linked to, as the page names it. */
export interface SessionLink {
  asm_id: string;
  agent: string;
  title: string;
}

/** What the detail answers. */
export interface SessionDetail {
  session: Record<string, unknown>;
  runs: unknown[];
  launches: unknown[];
  /** The session this one continues (CONTINUE WITH), and the ones that continue it. */
  links: { continues: SessionLink | null; continued_by: SessionLink[]; cleared_from: SessionLink | null };
  /** What a person pastes into a shell to resume it themselves; null when asm cannot say. */
  resume_command: string | null;
  /** The entries of the window asked for, oldest first. */
  entries: TranscriptEntry[];
  /** Entries before the window, and after it (0: it reaches the end, and a page follows the transcript). */
  earlier: number;
  later: number;
  /** The key of the entry a search term was found in, or null. */
  hit: string | null;
  /** The model and token counts over what was read. */
  totals: TokenTotals;
  /** Where a follower of the transcript goes on reading ({@link parseCursor}). */
  cursor: string;
  /** The bound cut the oldest part of a file off (older entries, and their tokens, are not here). */
  cut: boolean;
  /** Why there is no conversation, when there is none. */
  note: string | null;
}

/** A transcript file of a session, as the detail and its follower read it. */
export interface SessionFile {
  path: string;
  /** Names the file in line keys and cursors without its path (FNV-1a of the path, 8 hex digits). */
  key: string;
  /** asm's compressed copy of it, read when the agent deleted the file. */
  copy: string | null;
}

/** The key of a file: a short hash of its path (a cursor carries no path, so a request can name no file). */
export function fileKey(path: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) {
    h ^= path.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** The transcript files of a session, in order: what the import read, else the path its hook gave. */
export function sessionFiles(ledger: Ledger, row: SessionRow): SessionFile[] {
  const copy = (ledger.query("SELECT transcript_copy FROM sessions WHERE asm_id = ?", row.asm_id)[0]
    ?.transcript_copy as string | null | undefined) ?? null;
  const paths = filesOfSession(ledger, row.asm_id).map((f) => f.path);
  if (row.transcript_path && !paths.includes(row.transcript_path)) paths.push(row.transcript_path);
  return paths.map((path) => ({
    path,
    key: fileKey(path),
    copy: path === row.transcript_path ? copy : null,
  }));
}

/** A session's agent and its transcript reader (null when asm cannot read that agent's transcripts). */
export function readerOf(
  deps: Pick<DetailDeps, "asmHome" | "env">,
  agentName: string,
): { agent: AgentConfig | null; transcripts: TranscriptCapability | null } {
  const agent = loadAgents({ asmHome: deps.asmHome, env: deps.env }).find((a) => a.name === agentName) ??
    null;
  return { agent, transcripts: agent ? adapterOf(agent).transcripts ?? null : null };
}

/**
 * The newest `MAX_BYTES_PER_FILE` of one transcript (whole lines), read off the event loop through the server's
 * file seam; its copy when the agent deleted it; a sentence when the path is not a regular file (a hook event's
 * `transcript_path` is hostile: a FIFO, `/dev/zero`, a link to a secret).
 */
async function transcriptTail(
  deps: DetailDeps,
  file: SessionFile,
  stores: readonly string[],
): Promise<Tail | string | null> {
  try {
    // only inside the agent's own transcript folders: a folder link on the way must not lead the read elsewhere
    return await readTail(file.path, MAX_BYTES_PER_FILE, deps.files, { within: stores });
  } catch (err) {
    if (err instanceof RefusedFile) return err.message;
    // a socket, a name too long, no permission: what is at that path is not a transcript asm can read
    if (!(err instanceof Deno.errors.NotFound)) {
      return `${file.path} could not be read: ${(err as Error).message}`;
    }
  }
  return file.copy === null ? null : copyTail(file.copy, MAX_BYTES_PER_FILE);
}

/**
 * The whole lines of `bytes`, which start at byte `start` of the file keyed `key`, each keyed by its offset; and
 * where the next read starts (a last line without its newline is still being written: it is read again later).
 */
export function keyedLines(
  bytes: Uint8Array,
  start: number,
  key: string,
): { lines: KeyedLine[]; next: number } {
  const lines: KeyedLine[] = [];
  const decoder = new TextDecoder();
  let at = 0;
  for (;;) {
    const nl = bytes.indexOf(0x0a, at);
    if (nl === -1) break;
    lines.push({ key: `${key}@${start + at}`, text: decoder.decode(bytes.subarray(at, nl)) });
    at = nl + 1;
  }
  return { lines, next: start + at };
}

/** A follower's place in each file: file key -> the byte its next read starts at. */
export type Cursor = Map<string, number>;

/** The cursor as text (`<file key>:<offset>,...`), for a page to hand back when it follows the transcript. */
export function cursorText(cursor: Cursor): string {
  return [...cursor].map(([k, at]) => `${k}:${at}`).join(",");
}

/** A cursor from a request: anything that is not a file key and an offset is left out. */
export function parseCursor(text: string | null): Cursor {
  const out: Cursor = new Map();
  for (const part of (text ?? "").split(",")) {
    const m = part.match(/^([0-9a-f]{8}):(\d{1,15})$/);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

/** What one read of a session's transcript found. */
export interface TranscriptRead {
  lines: KeyedLine[];
  cursor: Cursor;
  cut: boolean;
  note: string | null;
}

/** Reads the session's transcript files (the tail of each), keyed lines in file order. */
export async function readTranscript(
  deps: DetailDeps,
  files: readonly SessionFile[],
  transcripts: TranscriptCapability,
): Promise<TranscriptRead> {
  const lines: KeyedLine[] = [];
  const cursor: Cursor = new Map();
  let missing = 0;
  let cut = false;
  const refused: string[] = [];
  const stores = transcripts.stores(deps.env);
  for (const file of files) {
    const tail = await transcriptTail(deps, file, stores);
    if (tail === null) {
      missing++;
      continue;
    }
    if (typeof tail === "string") {
      refused.push(tail);
      continue;
    }
    cut ||= tail.truncated;
    const read = keyedLines(tail.bytes, tail.size - tail.bytes.length, file.key);
    // an older format's one JSON document, read whole: its records stand for its lines (keyed by their place)
    const records = tail.truncated || !transcripts.documentRecords
      ? null
      : transcripts.documentRecords(new TextDecoder().decode(tail.bytes));
    if (records === null) { for (const line of read.lines) lines.push(line); }
    else records.forEach((text, i) => lines.push({ key: `${file.key}@${i}`, text }));
    cursor.set(file.key, read.next);
  }
  let note: string | null = null;
  if (refused.length) note = `asm did not read it: ${refused.join("; ")}`;
  else if (files.length > 0 && missing === files.length) {
    note = "its transcript is gone from disk and asm kept no copy of it";
  }
  return { lines, cursor, cut, note };
}

function linkOf(ledger: Ledger, asmId: string | null): SessionLink | null {
  if (!asmId) return null;
  const r = ledger.query(
    "SELECT asm_id, agent, name, title, first_message, agent_session_id FROM sessions WHERE asm_id = ?",
    asmId,
  )[0];
  return r ? linkFromRow(r) : null;
}

function linkFromRow(r: Record<string, unknown>): SessionLink {
  return {
    asm_id: String(r.asm_id),
    agent: String(r.agent),
    title: String(r.name || r.title || r.first_message || r.agent_session_id).slice(0, 200),
  };
}

/** The sessions that continue this one (CONTINUE WITH), oldest first. */
export function successorsOf(ledger: Ledger, asmId: string): SessionLink[] {
  return ledger.query(
    `SELECT asm_id, agent, name, title, first_message, agent_session_id FROM sessions
     WHERE continues_asm_id = ? ORDER BY started_at, asm_id`,
    asmId,
  ).map(linkFromRow);
}

/** The detail of one session (the window `request` asks for), or null when the ledger has no such session. */
export async function sessionDetail(
  deps: DetailDeps,
  asmId: string,
  request: WindowRequest = {},
): Promise<SessionDetail | null> {
  const session = deps.ledger.session(asmId);
  if (!session) return null;
  const full = deps.ledger.query("SELECT * FROM sessions WHERE asm_id = ?", asmId)[0] ?? {};
  const { agent, transcripts } = readerOf(deps, session.agent);
  const files = sessionFiles(deps.ledger, session);
  let read: TranscriptRead = { lines: [], cursor: new Map(), cut: false, note: null };
  if (!transcripts) {
    read.note = `asm cannot read ${session.agent}'s transcripts`;
  } else if (files.length === 0) {
    read.note = "no transcript is known for this session yet (the import has not read it)";
  } else {
    read = await readTranscript(deps, files, transcripts);
  }
  const { entries, totals } = transcripts
    ? transcriptOf(read.lines, (line) => transcripts.viewLine(line), new UsageTotals())
    : { entries: [], totals: { model: null, input: null, output: null } };
  const window = windowOf(entries, request);
  return {
    session: { ...full, hidden_reason: session.hidden_reason },
    runs: deps.ledger.runs(asmId),
    launches: launchesOf(deps.ledger, asmId),
    links: {
      continues: linkOf(deps.ledger, full.continues_asm_id as string | null),
      continued_by: successorsOf(deps.ledger, asmId),
      cleared_from: linkOf(deps.ledger, session.cleared_from_asm_id),
    },
    resume_command: agent ? resumeCommandLine(agent, session.agent_session_id, session.cwd) : null,
    entries: window.entries,
    earlier: window.earlier,
    later: window.later,
    hit: window.hit,
    totals: { ...totals, model: totals.model ?? (full.model as string | null) ?? null },
    cursor: cursorText(read.cursor),
    cut: read.cut,
    note: read.note,
  };
}
