/**
 * The transcript contract: how an agent's adapter finds its transcripts on disk, folds each file in one byte pass
 * into {@link SessionFacts}, and tells search what one line says. The derived layer defines it (so the arrows run
 * one way: the agents' readers implement it, and lib/derive knows no agent); the import (lib/history), the derived
 * layer and search code against these types only, and the code that knows a format lives in
 * `lib/agents/<agent>/transcript.ts`.
 * @module
 */
import type { Env } from "../config/mod.ts";

/**
 * What kind of session a transcript is, as its agent's own evidence says (the hidden rule keys on these exact
 * values). Each adapter maps only what it knows: a value it does not know stays null ("not known", shown).
 * "non-user": a thread the agent made for itself (a review, a compaction, a memory pass), by a value it is known
 * to write for one.
 */
export type SessionSource = "interactive" | "headless" | "subagent" | "title-generation" | "non-user";

/** One transcript file found on disk, before it is read. */
export interface TranscriptFile {
  /** The agent's name (agents.toml table). */
  agent: string;
  path: string;
  /** The session id the file name carries, when it carries a whole one (Gemini names carry 8 characters). */
  sessionHint: string | null;
  /** A main session, or a sub-agent's own file. */
  role: "main" | "subagent";
  /** The parent session id of a sub-agent file, when the path says it. */
  parentSessionId: string | null;
  /** The session's working folder when it is known outside the file (Gemini's project registry). */
  cwd: string | null;
  /** The path relative to the agent's store, for the transcript copy. */
  rel: string;
  size: number;
  mtimeMs: number;
  /** The inode: a different inode at the same path is a different file. */
  ino: number | null;
  /**
   * The file is one JSON document rewritten whole on every change (older Gemini chats), not appended to: it is
   * read from the start whenever it changed, never on from an offset.
   */
  whole?: boolean;
}

/** A directory entry as the walk sees it. */
export interface TranscriptDirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
}

/** What `stat` reports. */
export interface TranscriptStat {
  size: number;
  mtimeMs: number;
  ino: number | null;
  isFile: boolean;
  isDirectory: boolean;
}

/** How {@link TranscriptIo.open} opens a file. */
export interface TranscriptOpenOptions {
  within?: readonly string[];
  withinResolved?: boolean;
}

/** An open file: positional reads. */
export interface TranscriptHandle {
  /** Reads into `into` from byte `position`; returns the count read, 0 at the end of the file. */
  read(into: Uint8Array, position: number): number;
  close(): void;
}

/**
 * The file-system reads of the walk and the byte pass, behind an interface so a test can hand in a reader that
 * fails (permissions, a file that vanishes or shrinks mid-read). Read-only: nothing here writes.
 */
export interface TranscriptIo {
  /** The entries of a folder; [] when it does not exist. Other failures throw. */
  readDir(path: string): TranscriptDirEntry[];
  /** null when the path does not exist. */
  stat(path: string): TranscriptStat | null;
  /**
   * Throws Deno.errors.* when the file cannot be opened, and refuses (throws) a file whose real path is outside
   * `within` (the agent's own transcript folders) when it is given (`withinResolved`: they are real paths
   * already, resolved once by a caller opening many files).
   */
  open(path: string, options?: TranscriptOpenOptions): TranscriptHandle;
  /** A small side file as text (at most `maxBytes`), null when it does not exist. */
  readText(path: string, maxBytes?: number): string | null;
}

/** Reports a problem with one path; the walk carries on. */
export type ProblemSink = (path: string, problem: string) => void;

/** What one byte pass found about one session. Null stays null: "no reading" is not 0. JSON-serialisable. */
export interface SessionFacts {
  /** The agent's session id (for a sub-agent file: `<parent id>/<file name>`). */
  session_id: string | null;
  parent_session_id: string | null;
  source: SessionSource | null;
  /**
   * The agent's own thread source as written (Codex `thread_source`), raw: the row carries it so a person sees
   * why. The hidden rule never reads it; the adapter maps the values it knows into `source`.
   */
  thread_source: string | null;
  cwd: string | null;
  /** ISO-8601 UTC ms. */
  started_at: string | null;
  last_seen: string | null;
  /** Prompts the person typed (or sent with -p / exec); never tool results, injected context or skill bodies. */
  turns: number;
  /** UTC day (YYYY-MM-DD) -> turns typed that day. */
  days: Record<string, number>;
  first_message: string | null;
  /** A title the person gave (Claude /rename, Codex thread name). */
  name: string | null;
  /** A title the agent generated (Claude ai-title, Codex thread title). */
  title: string | null;
  /** The agent's own summary (Gemini `summary`, Claude `summary` lines). */
  summary: string | null;
  model: string | null;
  context_tokens: number | null;
  /**
   * The model's context window in tokens, as the agent recorded it or as its adapter knows the model; null when
   * neither says (the list then shows the raw count, never a guessed share).
   */
  context_window: number | null;
  agent_version: string | null;
  /** Absolute paths the transcript names (tool inputs, working folders) -> mentions. */
  folders: Record<string, number>;
  /** Skills the harness recorded as run -> invocations (only the harness's own marker counts). */
  skills: Record<string, number>;
  /** The session began with a cleared context (`/clear`) at this moment. */
  cleared_at: string | null;
  /** The session the cleared context replaced (found by the adapter's enrich step). */
  cleared_from_session_id: string | null;
  /** Lines that could not be read (not JSON, or not the shape the reader expects). */
  bad_lines: number;
  /**
   * Lines skipped because the reader does not know their type at all (a newer or older version's record),
   * type -> lines; types the reader knows and ignores on purpose are not here.
   */
  unknown_types: Record<string, number>;
}

/** The per-file fold: fed complete lines (bytes, without the newline); its state resumes a grown file. */
export interface TranscriptFold {
  line(buf: Uint8Array, start: number, end: number): void;
  /** The fold's state so far, JSON-serialisable; `fold(file, state)` continues from it. */
  state(): unknown;
}

/** What the enrich step gets for one session whose files changed. */
export interface EnrichInput {
  facts: SessionFacts;
  /** The fold states of every file of the session (the adapter's own shape). */
  states: unknown[];
  files: TranscriptFile[];
}

/** The kind of one transcript line, as search and the byte pass see it. */
export type LineKind = "prompt" | "assistant" | "tool" | "injected" | "meta";

/** One transcript line as search sees it: message text only, never JSON keys. */
export interface TranscriptLine {
  kind: LineKind;
  /** The message text ("" when the line carries none). */
  text: string;
  /** ISO-8601 UTC ms when the line says, else null. */
  ts: string | null;
  /** The record id, for formats that re-append a record under the same id (last copy wins). */
  id: string | null;
}

/** What a tool call asked for, as the session page shows it (each field null when the call had none). */
export interface ToolInput {
  /** The shell command the tool ran. */
  command: string | null;
  /** The file the tool read, wrote or edited. */
  path: string | null;
  /** An edit: the text replaced and its replacement (a new file's whole text has before ""). */
  edit: { before: string; after: string } | null;
  /** A patch as the agent wrote it (a unified or apply_patch text). */
  patch: string | null;
  /** What else names the call in one line (a search pattern, a URL, a skill, a sub-agent's description). */
  summary: string | null;
  /** The whole input as compact JSON, clipped (shown collapsed when nothing above says enough). */
  raw: string;
}

/** One model call's token counts as the transcript recorded them. */
export interface TokenUsage {
  /** The model that answered, when the record says. */
  model: string | null;
  /** Tokens sent to the model (cached ones included), and tokens it wrote; null when the record does not say. */
  input: number | null;
  output: number | null;
  /**
   * "call": the counts of one model call (a session's total is their sum, one per `call` key); "total": the
   * session's running totals so far (its total is the last one).
   */
  scope: "call" | "total";
  /** Identifies one model call, so a call recorded on several lines is counted once; null when unknown. */
  call: string | null;
}

/** One record of a transcript as the session page shows it. */
export type ViewRecord =
  | { kind: "prompt" | "assistant" | "injected"; text: string; ts: string | null }
  | {
    kind: "tool_call";
    /** The tool's own name (`Bash`, `shell`, `run_shell_command`, ...). */
    tool: string;
    /** Pairs the call with its result; null when the format does not say. */
    call_id: string | null;
    input: ToolInput;
    ts: string | null;
  }
  | {
    kind: "tool_result";
    call_id: string | null;
    /** The output as text, clipped to a bounded size. */
    output: string;
    /** The tool reported a failure. */
    error: boolean;
    ts: string | null;
  }
  | { kind: "usage"; usage: TokenUsage; ts: string | null };

/** What one transcript line shows: its records in order, under the line's record id (last copy wins). */
export interface ViewLine {
  /** The record id, for formats that re-append a record under the same id; null otherwise. */
  id: string | null;
  records: ViewRecord[];
}

/** One agent's transcripts: discovery, the byte-pass fold, and a per-line classifier for search. */
export interface TranscriptCapability {
  /** Whether the format records skill runs with a harness marker (closeout is null without one). */
  skillMarkers: boolean;
  /** Every transcript file of this agent on disk, read-only. */
  discover(env: Env, io: TranscriptIo, problem: ProblemSink): TranscriptFile[];
  /**
   * The folders this agent keeps its transcripts in: a transcript path from outside (a hook event) is read only
   * when its real path lies in one of them.
   */
  stores(env: Env): string[];
  /** The file at `path` (a known transcript being refreshed), or null when it is not one of this agent's. */
  fileOf(path: string, env: Env, io: TranscriptIo): TranscriptFile | null;
  /** A fold of one file, fresh or continuing from a saved state. */
  fold(file: TranscriptFile, saved: unknown | null): TranscriptFold;
  /** The session id a fold state belongs to (null when the file never said). */
  sessionOf(state: unknown, file: TranscriptFile): string | null;
  /** The facts of one session from the fold states of all its files (in file order). */
  facts(states: unknown[], files: TranscriptFile[]): SessionFacts;
  /** Facts from outside the transcript (titles in a side database, /clear links); returns problems to log. */
  enrich?(sessions: EnrichInput[], env: Env, io: TranscriptIo): string[];
  /** What one line is and its message text (search); null for a line that is not a record at all. */
  classifyLine(line: string): TranscriptLine | null;
  /**
   * What one line shows on the session page: the prompt, the reply, each tool call with its input, each tool
   * result, the token counts; null for a line that is not a record at all, no records for one that shows nothing.
   */
  viewLine(line: string): ViewLine | null;
  /**
   * An older format written as one JSON document (rewritten whole, its lines pieces of it): its records as the
   * lines `viewLine` and `classifyLine` read, in order (none when the document cannot be read: cut short, or only
   * its first line given); null when `text` is not such a document (it is read line by line). The session page and
   * the deep search read a whole file through this; agents without such a format leave it out.
   */
  documentRecords?(text: string): string[] | null;
}
