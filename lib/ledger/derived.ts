/**
 * The ledger's side of the history import and the derived layer: the rows the import writes (sessions it found
 * in transcripts, their turns per day, folders and skills), `import_state` (what was read of each file, to skip
 * an unchanged file and read a grown one on from its offset), and the reads the list, the project tiles and the
 * heat map make. Inside lib/ledger, so it reaches the database through `ledger[DB]`.
 *
 * The import never makes a session live and never overwrites what hooks own: a new row is `ended`; an existing
 * row keeps its status, its end, and a name a hook gave it. It fills the derived fields.
 *
 * Transcripts are as hostile as event files: every value a row takes from one is checked on the way in
 * (`bounds.ts`). One out of range is stored as null (a day outside the window is left out), the rest of the row
 * kept, and `writeDerived` names it for the import's one log line; a session id out of range is no row at all.
 * @module
 */
import type { DatabaseSync, SQLInputValue, SQLOutputValue } from "node:sqlite";
import { HIDDEN_REASON_SQL, STILL_BEING_READ_SQL } from "./hidden.ts";
import { DB, type Ledger } from "./ledger.ts";
import {
  EARLIEST_TS,
  FUTURE_SLACK_MS,
  idProblem,
  NAME_MAX_CHARS,
  pathProblem,
  textProblem,
  timeProblem,
  tokensProblem,
  wordProblem,
} from "./bounds.ts";
import { isoAt } from "./time.ts";

type Row = Record<string, SQLInputValue>;

/** One session as the byte pass derived it. */
export interface DerivedSession {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  parent_asm_id: string | null;
  cleared_from_asm_id: string | null;
  source: string | null;
  thread_source: string | null;
  cwd: string | null;
  transcript_path: string;
  transcript_copy: string | null;
  started_at: string | null;
  last_seen: string | null;
  turns: number;
  first_message: string | null;
  /** a name the person gave in the agent (written only where no hook gave one) */
  name: string | null;
  title: string | null;
  summary: string | null;
  model: string | null;
  context_tokens: number | null;
  /** the model's context window in tokens; null when not known */
  context_window: number | null;
  agent_version: string | null;
  closeout_state: "closed" | "open" | null;
  project: string | null;
  primary_folder: string | null;
  harness: boolean;
  /** UTC day -> turns typed */
  days: Record<string, number>;
  /** project folder -> score */
  folders: Record<string, number>;
  /** skill -> runs */
  skills: Record<string, number>;
}

/** What was read of one transcript file. */
export interface ImportStateRow {
  path: string;
  agent: string;
  size: number;
  /** ISO-8601 UTC ms of the file's mtime */
  mtime: string;
  ino: number | null;
  asm_id: string | null;
  read_offset: number;
  tail: string | null;
  /** the fold state at read_offset, JSON */
  fold: string | null;
  problem: string | null;
}

/** What the import needs to know of a file before reading it (no fold state: that is loaded only when needed). */
export type KnownFile = Omit<ImportStateRow, "fold" | "problem"> & {
  /** only phase one read it (its two ends): the full pass reads it, whatever its size and mtime */
  listed: boolean;
};

/** False once the ledger was closed (a server shutting down): a running import then stops writing. */
export function isLedgerOpen(ledger: Ledger): boolean {
  return ledger[DB].db.isOpen;
}

/** node:sqlite's `StatementSync.setReturnArrays` (Node 24): Deno 2.9 has it, its type definitions do not yet. */
interface ReturnsArrays {
  setReturnArrays(enabled: boolean): void;
}

/**
 * Every file the import has read, by path: loaded once per import, compared on (size, mtime). Rows come as arrays:
 * an unchanged re-import loads every file's row, and an object with named keys per row cost twice the time.
 */
export function knownFiles(ledger: Ledger): Map<string, KnownFile> {
  const statement = ledger[DB].prepare(
    "SELECT path, agent, size, mtime, ino, asm_id, read_offset, tail, listed FROM import_state",
  );
  (statement as unknown as ReturnsArrays).setReturnArrays(true);
  const rows = statement.all() as unknown as SQLOutputValue[][];
  const out = new Map<string, KnownFile>();
  for (const [path, agent, size, mtime, ino, asmId, readOffset, tail, listed] of rows) {
    out.set(String(path), {
      path: String(path),
      agent: String(agent),
      size: Number(size),
      mtime: String(mtime),
      ino: ino === null ? null : Number(ino),
      asm_id: asmId as string | null,
      read_offset: Number(readOffset),
      tail: tail as string | null,
      listed: Number(listed) === 1,
    });
  }
  return out;
}

/** The saved fold state of one file (JSON), or null. */
export function foldStateOf(ledger: Ledger, path: string): string | null {
  const row = ledger[DB].prepare("SELECT fold FROM import_state WHERE path = ?").get(path) as
    | Row
    | undefined;
  return (row?.fold as string | null | undefined) ?? null;
}

/** The other files of a session (a session kept in two files), with their saved fold states, by path. */
export function filesOfSession(ledger: Ledger, asmId: string): { path: string; fold: string | null }[] {
  const rows = ledger[DB].prepare("SELECT path, fold FROM import_state WHERE asm_id = ? ORDER BY path")
    .all(asmId) as Row[];
  return rows.map((r) => ({ path: String(r.path), fold: r.fold as string | null }));
}

/** What one write did. */
export interface WriteReport {
  inserted: number;
  updated: number;
  /** the sessions whose values out of range were left out (or, for a session id, the whole row), and why */
  dropped: DroppedValues[];
}

/** One session's values the import's door left out. */
export interface DroppedValues {
  asm_id: string;
  transcript_path: string;
  /** by field: why it was left out */
  dropped: Record<string, string>;
}

type Checks<T> = [keyof T & string, (value: unknown) => string | null][];

const LISTED_CHECKS: Checks<ListedSession> = [
  ["cwd", pathProblem],
  ["source", wordProblem],
  ["thread_source", wordProblem],
  ["first_message", (v) => textProblem(v)],
  ["name", (v) => textProblem(v, NAME_MAX_CHARS)],
  ["title", (v) => textProblem(v)],
  ["summary", (v) => textProblem(v)],
  ["model", wordProblem],
  ["context_tokens", tokensProblem],
  ["context_window", tokensProblem],
  ["agent_version", wordProblem],
];

const DERIVED_CHECKS: Checks<DerivedSession> = [
  ...(LISTED_CHECKS as Checks<DerivedSession>),
  ["project", (v) => textProblem(v, NAME_MAX_CHARS)],
  ["primary_folder", pathProblem],
  ["turns", (v) => Number.isSafeInteger(v) && (v as number) >= 0 ? null : `${v} is not a count`],
];

/**
 * A session as the import's door lets it in: each value out of range null (and named), each day outside the
 * window left out; null when its session id is out of range (no row can be keyed on it). Pure.
 */
export function boundSession<T extends ListedSession | DerivedSession>(
  session: T,
  nowMs: number,
): { session: T | null; dropped: Record<string, string> } {
  const dropped: Record<string, string> = {};
  const idWhy = idProblem(session.agent_session_id);
  if (idWhy !== null) {
    return { session: null, dropped: { agent_session_id: `${idWhy}; the session is left out` } };
  }
  const out = { ...session } as Record<string, unknown>;
  const checks = ("days" in session ? DERIVED_CHECKS : LISTED_CHECKS) as Checks<T>;
  for (const [key, problem] of checks) {
    const value = out[key];
    if (value === null || value === undefined) continue;
    const why = problem(value);
    if (why === null) continue;
    dropped[key] = why;
    out[key] = key === "turns" ? 0 : null;
  }
  for (const key of ["started_at", "last_seen"] as const) {
    const value = out[key];
    if (typeof value !== "string") continue;
    const why = timeProblem(value, nowMs);
    if (why === null) continue;
    dropped[key] = why;
    out[key] = null;
  }
  if ("days" in session) {
    // a day is the UTC date of a moment: the same window, in whole days
    const first = EARLIEST_TS.slice(0, 10);
    const last = isoAt(nowMs + FUTURE_SLACK_MS).slice(0, 10);
    const outside = Object.keys(session.days).filter((day) => !(day >= first && day <= last));
    if (outside.length > 0) {
      out.days = Object.fromEntries(Object.entries(session.days).filter(([day]) => !outside.includes(day)));
      dropped.days = `${outside.length} day(s) outside ${first} to ${last} left out, first ${
        JSON.stringify(outside[0].slice(0, 40))
      }`;
    }
  }
  return { session: out as T, dropped };
}

/** Every session of a batch through {@link boundSession}; the ones left out, and the drops, reported. */
function bounded<T extends ListedSession | DerivedSession>(
  sessions: readonly T[],
  now: string,
): { sessions: T[]; dropped: DroppedValues[] } {
  const nowMs = Date.parse(now);
  const kept: T[] = [];
  const dropped: DroppedValues[] = [];
  for (const s of sessions) {
    const checked = boundSession(s, nowMs);
    if (checked.session !== null) kept.push(checked.session);
    if (Object.keys(checked.dropped).length > 0) {
      dropped.push({ asm_id: s.asm_id, transcript_path: s.transcript_path, dropped: checked.dropped });
    }
  }
  return { sessions: kept, dropped };
}

const UPSERT_SESSION = `
INSERT INTO sessions (asm_id, agent, agent_session_id, status, name, imported_name, cwd, transcript_path, source,
  thread_source, harness, started_at, last_seen, ended_at, turns, first_message, title, summary, model,
  context_tokens, agent_version, closeout_state, project, primary_folder, transcript_copy, parent_asm_id,
  cleared_from_asm_id, derived_at, context_window)
VALUES (?1, ?2, ?3, 'ended', ?4, ?4, ?5, ?6, ?7,
  ?8, ?9, ?10, ?11, NULL, ?12, ?13, ?14, ?15, ?16,
  ?17, ?18, ?19, ?20, ?21, ?22, ?23,
  ?24, ?25, ?26)
ON CONFLICT (asm_id) DO UPDATE SET
  name = CASE WHEN sessions.name IS NULL OR sessions.name = sessions.imported_name THEN excluded.name
    ELSE sessions.name END,
  imported_name = excluded.imported_name,
  harness = CASE WHEN sessions.cwd IS NULL OR sessions.derive_state = 'listed' THEN excluded.harness
    ELSE sessions.harness END,
  -- what only phase one said (two ends of the file, perhaps before it changed) gives way to the whole file
  cwd = CASE WHEN sessions.derive_state = 'listed' THEN COALESCE(excluded.cwd, sessions.cwd)
    ELSE COALESCE(sessions.cwd, excluded.cwd) END,
  transcript_path = CASE WHEN sessions.derive_state = 'listed'
    THEN COALESCE(excluded.transcript_path, sessions.transcript_path)
    ELSE COALESCE(sessions.transcript_path, excluded.transcript_path) END,
  source = excluded.source,
  thread_source = COALESCE(excluded.thread_source, sessions.thread_source),
  started_at = CASE WHEN sessions.started_at IS NULL
    OR (excluded.started_at IS NOT NULL AND excluded.started_at < sessions.started_at)
    THEN excluded.started_at ELSE sessions.started_at END,
  last_seen = CASE WHEN sessions.last_seen IS NULL
    OR (excluded.last_seen IS NOT NULL AND excluded.last_seen > sessions.last_seen)
    THEN excluded.last_seen ELSE sessions.last_seen END,
  turns = excluded.turns,
  first_message = excluded.first_message,
  title = excluded.title,
  summary = excluded.summary,
  model = excluded.model,
  context_tokens = excluded.context_tokens,
  context_window = excluded.context_window,
  agent_version = COALESCE(excluded.agent_version, sessions.agent_version),
  closeout_state = excluded.closeout_state,
  project = excluded.project,
  primary_folder = excluded.primary_folder,
  transcript_copy = COALESCE(excluded.transcript_copy, sessions.transcript_copy),
  parent_asm_id = COALESCE(excluded.parent_asm_id, sessions.parent_asm_id),
  cleared_from_asm_id = COALESCE(sessions.cleared_from_asm_id, excluded.cleared_from_asm_id),
  derived_at = excluded.derived_at,
  derive_state = NULL`;

const UPSERT_FILE = `
INSERT INTO import_state (path, agent, size, mtime, asm_id, ino, read_offset, tail, fold, problem, imported_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
ON CONFLICT (path) DO UPDATE SET agent = excluded.agent, size = excluded.size, mtime = excluded.mtime,
  asm_id = excluded.asm_id, ino = excluded.ino, read_offset = excluded.read_offset, tail = excluded.tail,
  fold = excluded.fold, problem = excluded.problem, imported_at = excluded.imported_at, listed = 0`;

/** One session as phase one listed it: the list's fields, from its transcript's two ends. */
export interface ListedSession {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  parent_asm_id: string | null;
  source: string | null;
  thread_source: string | null;
  cwd: string | null;
  transcript_path: string;
  started_at: string | null;
  last_seen: string | null;
  first_message: string | null;
  name: string | null;
  title: string | null;
  summary: string | null;
  model: string | null;
  context_tokens: number | null;
  context_window: number | null;
  agent_version: string | null;
  harness: boolean;
}

/** A file phase one read the ends of. */
export type ListedFile = Pick<ImportStateRow, "path" | "agent" | "size" | "mtime" | "ino" | "asm_id">;

// a row the full pass derived is never written over with what two ends said; a row only hooks made gets the list's
// fields where it has none
const UPSERT_LISTED = `
INSERT INTO sessions (asm_id, agent, agent_session_id, status, name, imported_name, cwd, transcript_path, source,
  thread_source, harness, started_at, last_seen, first_message, title, summary, model, context_tokens,
  context_window, agent_version, parent_asm_id, derive_state)
VALUES (?1, ?2, ?3, 'ended', ?4, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, 'listed')
ON CONFLICT (asm_id) DO UPDATE SET
  name = COALESCE(sessions.name, excluded.name),
  imported_name = excluded.imported_name,
  harness = CASE WHEN sessions.cwd IS NULL THEN excluded.harness ELSE sessions.harness END,
  cwd = COALESCE(sessions.cwd, excluded.cwd),
  transcript_path = COALESCE(sessions.transcript_path, excluded.transcript_path),
  source = COALESCE(excluded.source, sessions.source),
  thread_source = COALESCE(excluded.thread_source, sessions.thread_source),
  started_at = CASE WHEN sessions.started_at IS NULL OR excluded.started_at < sessions.started_at
    THEN excluded.started_at ELSE sessions.started_at END,
  last_seen = CASE WHEN sessions.last_seen IS NULL OR excluded.last_seen > sessions.last_seen
    THEN excluded.last_seen ELSE sessions.last_seen END,
  -- a session kept in files listed apart: the first prompt of the earliest, the rest of the newest
  first_message = CASE WHEN sessions.first_message IS NULL OR excluded.started_at < sessions.started_at
    THEN COALESCE(excluded.first_message, sessions.first_message) ELSE sessions.first_message END,
  title = COALESCE(excluded.title, sessions.title),
  summary = COALESCE(excluded.summary, sessions.summary),
  model = COALESCE(excluded.model, sessions.model),
  context_tokens = COALESCE(excluded.context_tokens, sessions.context_tokens),
  context_window = COALESCE(excluded.context_window, sessions.context_window),
  agent_version = COALESCE(excluded.agent_version, sessions.agent_version),
  parent_asm_id = COALESCE(sessions.parent_asm_id, excluded.parent_asm_id),
  derive_state = 'listed'
WHERE sessions.derived_at IS NULL`;

// a file the full pass read stays as it read it
const INSERT_LISTED_FILE = `
INSERT INTO import_state (path, agent, size, mtime, asm_id, ino, read_offset, listed, imported_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, 1, ?7)
ON CONFLICT (path) DO UPDATE SET agent = excluded.agent, size = excluded.size, mtime = excluded.mtime,
  asm_id = excluded.asm_id, ino = excluded.ino, imported_at = excluded.imported_at
WHERE import_state.listed = 1`;

/**
 * Writes what phase one listed, in ONE transaction: the rows (marked `listed`, never over a derived row) and the
 * files (on record as listed, so a second start does not list them again and the full pass still reads them).
 * Returns the rows written (a derived row it left alone is not one). Values out of range are left out as
 * `writeDerived` leaves them out, unreported: the full pass reads the same file whole and names them then.
 */
export function writeListed(
  ledger: Ledger,
  batch: { sessions: ListedSession[]; files: ListedFile[]; now: string },
): { rows: number } {
  const { sessions } = bounded(batch.sessions, batch.now);
  return ledger[DB].write((db) => {
    const upsert = db.prepare(UPSERT_LISTED);
    let rows = 0;
    for (const s of sessions) {
      // positional, and no read before each write: a first run writes thousands of these while its reads wait
      rows += Number(
        upsert.run(
          s.asm_id,
          s.agent,
          s.agent_session_id,
          s.name,
          s.cwd,
          s.transcript_path,
          s.source,
          s.thread_source,
          s.harness ? 1 : 0,
          s.started_at,
          s.last_seen,
          s.first_message,
          s.title,
          s.summary,
          s.model,
          s.context_tokens,
          s.context_window,
          s.agent_version,
          s.parent_asm_id,
        ).changes,
      );
    }
    const file = db.prepare(INSERT_LISTED_FILE);
    for (const f of batch.files) file.run(f.path, f.agent, f.size, f.mtime, f.asm_id, f.ino, batch.now);
    return { rows };
  });
}

/**
 * Writes a batch of derived sessions and the files they were read from, in ONE transaction (a batch of hundreds
 * of sessions costs one commit, not hundreds). Each session's values out of range are left out and named in the
 * report's `dropped` (see {@link boundSession}).
 */
export function writeDerived(
  ledger: Ledger,
  batch: { sessions: DerivedSession[]; files: ImportStateRow[]; now: string },
): WriteReport {
  const { sessions, dropped } = bounded(batch.sessions, batch.now);
  return ledger[DB].write((db) => {
    const exists = db.prepare("SELECT 1 FROM sessions WHERE asm_id = ?");
    const upsert = db.prepare(UPSERT_SESSION);
    const clear = ["session_days", "session_folders", "session_skills"].map((t) =>
      db.prepare(`DELETE FROM ${t} WHERE asm_id = ?`)
    );
    const addDay = db.prepare("INSERT INTO session_days (asm_id, day, day_turns) VALUES (?, ?, ?)");
    const addFolder = db.prepare("INSERT INTO session_folders (asm_id, folder, score) VALUES (?, ?, ?)");
    const addSkill = db.prepare("INSERT INTO session_skills (asm_id, skill, runs) VALUES (?, ?, ?)");
    const report: WriteReport = { inserted: 0, updated: 0, dropped };
    for (const s of sessions) {
      const existed = exists.get(s.asm_id) !== undefined;
      if (existed) report.updated++;
      else report.inserted++;
      // positional: binding an object of 25 named values costs more than the row's insert
      upsert.run(
        s.asm_id,
        s.agent,
        s.agent_session_id,
        s.name,
        s.cwd,
        s.transcript_path,
        s.source,
        s.thread_source,
        s.harness ? 1 : 0,
        s.started_at,
        s.last_seen,
        s.turns,
        s.first_message,
        s.title,
        s.summary,
        s.model,
        s.context_tokens,
        s.agent_version,
        s.closeout_state,
        s.project,
        s.primary_folder,
        s.transcript_copy,
        s.parent_asm_id,
        s.cleared_from_asm_id,
        batch.now,
        s.context_window,
      );
      // a new row has no day, folder or skill rows to replace (the writes of a cold import halve)
      if (existed) { for (const c of clear) c.run(s.asm_id); }
      for (const [day, n] of Object.entries(s.days)) addDay.run(s.asm_id, day, n);
      for (const [folder, n] of Object.entries(s.folders)) addFolder.run(s.asm_id, folder, n);
      for (const [skill, n] of Object.entries(s.skills)) addSkill.run(s.asm_id, skill, n);
    }
    const file = db.prepare(UPSERT_FILE);
    for (const f of batch.files) {
      file.run(
        f.path,
        f.agent,
        f.size,
        f.mtime,
        f.asm_id,
        f.ino,
        f.read_offset,
        f.tail,
        f.fold,
        f.problem,
        batch.now,
      );
    }
    return report;
  });
}

/**
 * After a full import: the records of listed files the walk no longer found are forgotten (a file that comes back
 * is new again), and a row whose files are none of them listed any more stops saying "deriving" (its file was
 * read whole and said nothing, or is gone). Writes nothing when there is nothing to settle. Returns the rows
 * settled.
 */
export function settleListed(ledger: Ledger, gone: readonly string[]): number {
  const { db } = ledger[DB];
  const waiting =
    db.prepare("SELECT 1 FROM sessions WHERE derive_state = 'listed' LIMIT 1").get() !== undefined;
  if (!waiting && gone.length === 0) return 0;
  return ledger[DB].write((w) => {
    const forget = w.prepare("DELETE FROM import_state WHERE path = ? AND listed = 1");
    for (const path of gone) forget.run(path);
    return Number(
      w.prepare(
        `UPDATE sessions SET derive_state = NULL WHERE derive_state = 'listed'
           AND NOT EXISTS (SELECT 1 FROM import_state i WHERE i.asm_id = sessions.asm_id AND i.listed = 1)`,
      ).run().changes,
    );
  });
}

/** The `meta` key holding each agent's closeout skill as the rows' closeout was last settled with. */
const CLOSEOUT_SKILLS_KEY = "closeout_skills";

/**
 * Brings the closeout of the rows already read in step with each agent's closeout skill (`skills`: agent name ->
 * the skill whose recorded run closes a session, "" where nobody can say) when it changed since the last import:
 * an upgrade that named one, a person's agents.toml. An unchanged file is never read again, so without this its
 * row would keep the closeout of the old setting. The rows' recorded skills (`session_skills`, every skill the
 * harness recorded) give the same answer a read would (lib/derive `closeoutOf`). Only rows read whole and not
 * being derived are touched: a row no transcript was read for keeps null. Writes nothing when nothing changed.
 * Returns the agents whose setting changed and how many rows were settled.
 */
export function settleCloseouts(
  ledger: Ledger,
  skills: Readonly<Record<string, string>>,
): { agents: string[]; rows: number } {
  const { db } = ledger[DB];
  const stored = db.prepare(`SELECT value FROM meta WHERE key = '${CLOSEOUT_SKILLS_KEY}'`).get() as
    | Row
    | undefined;
  // asm's own value; one it cannot parse (a hand edit) counts as none recorded: every agent is settled again
  let before: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(String(stored?.value ?? "{}"));
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      before = parsed as Record<string, unknown>;
    }
  } catch {
    before = {};
  }
  const changed = Object.keys(skills).filter((agent) => before[agent] !== skills[agent]);
  if (changed.length === 0) return { agents: [], rows: 0 };
  return ledger[DB].write((w) => {
    const settle = w.prepare(
      `UPDATE sessions SET closeout_state = CASE
         WHEN ?1 = '' THEN NULL
         WHEN EXISTS (SELECT 1 FROM session_skills k
                      WHERE k.asm_id = sessions.asm_id AND k.skill = ?1 AND k.runs > 0) THEN 'closed'
         ELSE 'open' END
       WHERE agent = ?2 AND derive_state IS NULL
         AND EXISTS (SELECT 1 FROM import_state i WHERE i.asm_id = sessions.asm_id AND i.listed = 0)`,
    );
    let rows = 0;
    for (const agent of changed) rows += Number(settle.run(skills[agent], agent).changes);
    w.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(
      CLOSEOUT_SKILLS_KEY,
      JSON.stringify({ ...before, ...skills }),
    );
    return { agents: changed, rows };
  });
}

/** One row of `./asm sessions --json` and `GET /api/sessions`. */
export interface SessionView {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  status: string;
  title: string | null;
  project: string | null;
  turns: number | null;
  context_tokens: number | null;
  /** the model's context window; null when not known */
  context_window: number | null;
  closeout: "closed" | "open" | null;
  skills: string[];
  hidden: boolean;
  hidden_reason: string | null;
  /** why asm cannot prove a live session's process (the page reads UNSURE); null when it can */
  unsure_reason: string | null;
  started_at: string | null;
  last_seen: string | null;
  /**
   * only the ends of its transcript were read yet (phase one): turns, project and closeout are being derived
   * (null here, "deriving" on the page), never a number that is not yet true
   */
  deriving: boolean;
  /** its visibility waits for the whole transcript: shown with the words "still being read", counted apart */
  still_being_read: boolean;
}

/** The sessions, newest first: the visible ones, or every row with `all`. Works on a read-only connection. */
export function sessionViewsOf(db: DatabaseSync, options: { all?: boolean } = {}): SessionView[] {
  // a read-only reader may look at a ledger a server of an older asm still writes (schema 5 has no such column)
  const has = (column: string) =>
    db.prepare("SELECT 1 FROM pragma_table_info('sessions') WHERE name = ?").get(column) !== undefined;
  const unsure = has("unsure_reason") ? "unsure_reason" : "NULL";
  const window = has("context_window") ? "context_window" : "NULL";
  const listing = has("derive_state");
  const hiddenSql = listing ? HIDDEN_REASON_SQL : HIDDEN_REASON_SQL.replaceAll("derive_state", "NULL");
  const rows = db.prepare(
    `SELECT asm_id, agent, agent_session_id, status, COALESCE(NULLIF(name, ''), title) AS title, project, turns,
       context_tokens, ${window} AS context_window, closeout_state, started_at, last_seen, ${unsure} AS unsure_reason,
       ${hiddenSql} AS hidden_reason, ${listing ? "derive_state" : "NULL"} AS derive_state,
       ${listing ? STILL_BEING_READ_SQL : "0"} AS still_being_read
     FROM sessions ${
      options.all ? "" : `WHERE ${hiddenSql} IS NULL`
    } ORDER BY last_seen IS NULL, last_seen DESC, asm_id`,
  ).all() as Row[];
  const skills = new Map<string, string[]>();
  for (
    const r of db.prepare("SELECT asm_id, skill FROM session_skills ORDER BY asm_id, skill").all() as Row[]
  ) {
    const list = skills.get(String(r.asm_id)) ?? [];
    list.push(String(r.skill));
    skills.set(String(r.asm_id), list);
  }
  return rows.map((r) => {
    const deriving = r.derive_state === "listed";
    return {
      asm_id: String(r.asm_id),
      agent: String(r.agent),
      agent_session_id: String(r.agent_session_id),
      status: String(r.status),
      title: r.title as string | null,
      project: deriving ? null : r.project as string | null,
      turns: deriving || r.turns === null ? null : Number(r.turns),
      context_tokens: r.context_tokens === null ? null : Number(r.context_tokens),
      context_window: r.context_window === null ? null : Number(r.context_window),
      closeout: deriving ? null : r.closeout_state as "closed" | "open" | null,
      skills: skills.get(String(r.asm_id)) ?? [],
      hidden: r.hidden_reason !== null,
      hidden_reason: r.hidden_reason as string | null,
      unsure_reason: r.unsure_reason as string | null,
      started_at: r.started_at as string | null,
      last_seen: r.last_seen as string | null,
      deriving,
      still_being_read: Number(r.still_being_read) === 1,
    };
  });
}

/** How many rows wait for their whole transcript to be read before the list can say whether they show. */
export function stillBeingReadCount(ledger: Ledger): number {
  const row = ledger[DB].prepare(`SELECT COUNT(*) AS n FROM sessions WHERE ${STILL_BEING_READ_SQL} = 1`)
    .get() as Row;
  return Number(row.n);
}

/** How many sessions the default list hides, by reason, most first (the list says "N hidden" and why). */
export function hiddenCounts(ledger: Ledger): { reason: string; count: number }[] {
  const rows = ledger[DB].prepare(
    `SELECT hidden_reason AS reason, COUNT(*) AS n FROM (SELECT ${HIDDEN_REASON_SQL} AS hidden_reason FROM sessions)
     WHERE hidden_reason IS NOT NULL GROUP BY hidden_reason ORDER BY n DESC, reason`,
  ).all() as Row[];
  return rows.map((r) => ({ reason: String(r.reason), count: Number(r.n) }));
}

/** {@link sessionViewsOf} on the ledger. */
export function sessionViews(ledger: Ledger, options: { all?: boolean } = {}): SessionView[] {
  return sessionViewsOf(ledger[DB].db, options);
}

/** One project tile before it gets its label. */
export interface ProjectCount {
  /** the project folder (null: sessions with no folder at all) */
  folder: string | null;
  /** sessions filed here (these sum to the session count) */
  primary: number;
  /** sessions that touched it (a session touches several) */
  touched: number;
}

/**
 * Sessions per project folder: primary (each session once, in its primary folder; a session never derived counts
 * in its working folder) and touched. Hidden rows count only with `all` (the same rule as the list).
 */
export function projectCounts(ledger: Ledger, options: { all?: boolean } = {}): ProjectCount[] {
  const where = options.all ? "" : `WHERE ${HIDDEN_REASON_SQL} IS NULL`;
  const db = ledger[DB].db;
  const counted = `SELECT asm_id, COALESCE(primary_folder, cwd) AS home FROM sessions ${where}`;
  const tiles = new Map<string | null, ProjectCount>();
  const tile = (folder: string | null) => {
    let t = tiles.get(folder);
    if (!t) tiles.set(folder, t = { folder, primary: 0, touched: 0 });
    return t;
  };
  for (const r of db.prepare(`SELECT home, COUNT(*) AS n FROM (${counted}) GROUP BY home`).all() as Row[]) {
    tile(r.home as string | null).primary = Number(r.n);
  }
  const touched = db.prepare(
    `SELECT f.folder AS folder, COUNT(*) AS n FROM session_folders f JOIN (${counted}) c ON c.asm_id = f.asm_id
     GROUP BY f.folder`,
  ).all() as Row[];
  for (const r of touched) tile(String(r.folder)).touched = Number(r.n);
  return [...tiles.values()].sort((a, b) =>
    b.primary - a.primary || b.touched - a.touched || String(a.folder).localeCompare(String(b.folder))
  );
}

/** Turns typed per UTC day per agent. */
export interface HeatmapCell {
  agent: string;
  day: string;
  turns: number;
}

/** The heat map's cells, oldest day first; hidden rows count only with `all`. */
export function heatmapCells(ledger: Ledger, options: { all?: boolean } = {}): HeatmapCell[] {
  const where = options.all ? "" : `WHERE ${HIDDEN_REASON_SQL} IS NULL`;
  const rows = ledger[DB].prepare(
    `SELECT s.agent AS agent, d.day AS day, SUM(d.day_turns) AS turns
     FROM session_days d JOIN sessions s ON s.asm_id = d.asm_id ${where}
     GROUP BY s.agent, d.day ORDER BY d.day, s.agent`,
  ).all() as Row[];
  return rows.map((r) => ({ agent: String(r.agent), day: String(r.day), turns: Number(r.turns) }));
}

/**
 * Transcripts worth re-checking on the short refresh cadence: files modified since `sinceIso` (still being
 * written, whether or not their session is live) and the transcripts of open or recently seen sessions (a hook
 * names a file before the import has ever read it).
 */
export function refreshCandidates(ledger: Ledger, sinceIso: string): { agent: string; path: string }[] {
  const rows = ledger[DB].prepare(
    `SELECT agent, path FROM import_state WHERE mtime >= ?1
     UNION SELECT agent, transcript_path AS path FROM sessions
       WHERE transcript_path IS NOT NULL AND (status IN ('live', 'starting') OR last_seen >= ?1)`,
  ).all(sinceIso) as Row[];
  return rows.map((r) => ({ agent: String(r.agent), path: String(r.path) }));
}
