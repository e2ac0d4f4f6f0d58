/**
 * The ledger's side of search: the deep index's writes (message lines of transcript files, how far each file is
 * indexed) and the reads a search makes. Search runs in a Worker, off the server's event loop, so the reads are
 * also offered on a read-only connection of its own ({@link openSearchReader}); in WAL mode it sees the last
 * committed state while the server writes.
 * @module
 */
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { HIDDEN_REASON_SQL } from "./hidden.ts";
import { DB, type Ledger, LedgerError } from "./ledger.ts";
import { isoAt } from "./time.ts";
import { errorText } from "../lang/mod.ts";

type Row = Record<string, SQLInputValue>;

/** A transcript file the index has not caught up with, and where to carry on. */
export interface IndexTodo {
  path: string;
  agent: string;
  asm_id: string | null;
  /** import_state's size and mtime: the index is caught up when it has read the file at these */
  size: number;
  mtime: string;
  /** the session's compressed copy, when this file is its transcript (read when the original is gone) */
  copy: string | null;
  /** bytes already indexed (whole lines); 0 for a file never indexed */
  read_offset: number;
  /** true when the index has rows of this file */
  known: boolean;
}

/** Every transcript file whose index is behind import_state (never indexed, grown, or changed). */
export function searchIndexTodo(ledger: Ledger): IndexTodo[] {
  const rows = ledger[DB].prepare(
    `SELECT i.path, i.agent, i.asm_id, i.size, i.mtime,
       CASE WHEN s.transcript_path = i.path THEN s.transcript_copy END AS copy,
       f.read_offset, f.path IS NOT NULL AS known
     FROM import_state i
     LEFT JOIN search_files f ON f.path = i.path
     LEFT JOIN sessions s ON s.asm_id = i.asm_id
     WHERE f.path IS NULL OR f.size <> i.size OR f.mtime <> i.mtime
     ORDER BY i.path`,
  ).all() as Row[];
  return rows.map((r) => ({
    path: String(r.path),
    agent: String(r.agent),
    asm_id: r.asm_id as string | null,
    size: Number(r.size),
    mtime: String(r.mtime),
    copy: r.copy as string | null,
    read_offset: r.read_offset === null ? 0 : Number(r.read_offset),
    known: Number(r.known) === 1,
  }));
}

/** One message line for the index. */
export interface IndexedLine {
  rec_id: string | null;
  ts: string | null;
  kind: string;
  text: string;
}

/** What one step of indexing one file writes. */
export interface IndexChunk {
  path: string;
  asm_id: string | null;
  /** drop the file's rows first (it was rewritten, or shrank) */
  reset: boolean;
  /** the lines read, oldest first; a line whose record id the file already has replaces that row */
  lines: IndexedLine[];
  /** record ids seen whose last copy carries no message text: their older rows go */
  dropped: string[];
  /** bytes indexed after this step */
  read_offset: number;
  /** import_state's size and mtime when this step reached the end of the file, else null (more to read) */
  caught_up: { size: number; mtime: string } | null;
}

/** Writes one indexing step of one file in one transaction. */
export function writeIndexChunk(ledger: Ledger, chunk: IndexChunk): void {
  ledger[DB].write((db) => {
    if (chunk.reset) db.prepare("DELETE FROM search_lines WHERE path = ?").run(chunk.path);
    const drop = db.prepare("DELETE FROM search_lines WHERE path = ? AND rec_id = ?");
    const insert = db.prepare(
      "INSERT INTO search_lines (path, asm_id, rec_id, ts, kind, text) VALUES (?, ?, ?, ?, ?, ?)",
    );
    for (const id of chunk.dropped) drop.run(chunk.path, id);
    for (const line of chunk.lines) {
      // last copy wins: a re-appended record replaces its older row (and takes the later place)
      if (line.rec_id !== null) drop.run(chunk.path, line.rec_id);
      insert.run(chunk.path, chunk.asm_id, line.rec_id, line.ts, line.kind, line.text);
    }
    db.prepare(
      `INSERT INTO search_files (path, asm_id, size, mtime, read_offset, indexed_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET asm_id = excluded.asm_id, size = excluded.size, mtime = excluded.mtime,
         read_offset = excluded.read_offset, indexed_at = excluded.indexed_at`,
    ).run(
      chunk.path,
      chunk.asm_id,
      chunk.caught_up?.size ?? -1,
      chunk.caught_up?.mtime ?? "",
      chunk.read_offset,
      isoAt(),
    );
  });
}

/** One session as search sees it. */
export interface SearchSession {
  asm_id: string;
  agent: string;
  title: string | null;
  last_seen: string | null;
  /** the text shallow search reads, by field */
  fields: {
    name: string | null;
    title: string | null;
    first_message: string | null;
    summary: string | null;
    cwd: string | null;
    project: string | null;
  };
}

/** One transcript file of a session, for a deep search. */
export interface SearchFile {
  asm_id: string;
  agent: string;
  path: string;
  copy: string | null;
  /** true when the index has caught up with this file (the index answers for it; otherwise it is scanned) */
  indexed: boolean;
}

/** One indexed line that may match (the caller counts the matches in `text`). */
export interface IndexedHit {
  asm_id: string;
  path: string;
  kind: string;
  ts: string | null;
  text: string;
}

/** The reads of one search, on one connection. */
export interface SearchReader {
  /**
   * The visible sessions (every row with `all`), newest first (by last_seen); with `matching`, only those whose
   * name, title, first message, summary, folder or project contains it (LIKE, escaped: ASCII case-insensitive).
   */
  sessions(all: boolean, matching?: string): SearchSession[];
  /** The transcript files of those sessions, by asm_id, in path order. */
  files(all: boolean): Map<string, SearchFile[]>;
  /**
   * The indexed lines that contain `query` (case-insensitive), of caught-up files only, in the order a search
   * walks them (newest session first, files in path order, newest line first), at most `limit` rows.
   */
  indexedHits(query: string, options: { all: boolean; limit: number }): Iterable<IndexedHit>;
  close(): void;
}

const ORDER = "s.last_seen IS NULL, s.last_seen DESC, s.asm_id";

function visible(all: boolean): string {
  return all ? "" : `WHERE ${HIDDEN_REASON_SQL} IS NULL`;
}

/** A LIKE pattern matching `text` anywhere, `\\` escaping. */
function likeOf(text: string): string {
  return `%${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The search reads over an open database (the server's own ledger, or a read-only connection). */
export function searchReaderOf(db: DatabaseSync): SearchReader {
  return {
    sessions(all, matching) {
      const like = "LIKE $q ESCAPE '\\'";
      const filter = matching === undefined
        ? ""
        : `WHERE s.name ${like} OR s.title ${like} OR s.first_message ${like}
           OR s.summary ${like} OR s.cwd ${like} OR s.project ${like}`;
      const stmt = db.prepare(
        `SELECT s.* FROM (SELECT asm_id, agent, COALESCE(NULLIF(name, ''), title) AS shown, name, title,
           first_message, summary, cwd, COALESCE(primary_folder, project) AS project, last_seen
         FROM sessions ${visible(all)}) s ${filter} ORDER BY ${ORDER}`,
      );
      const rows = (matching === undefined ? stmt.all() : stmt.all({ q: likeOf(matching) })) as Row[];
      return rows.map((r) => ({
        asm_id: String(r.asm_id),
        agent: String(r.agent),
        title: r.shown as string | null,
        last_seen: r.last_seen as string | null,
        fields: {
          name: r.name as string | null,
          title: r.title as string | null,
          first_message: r.first_message as string | null,
          summary: r.summary as string | null,
          cwd: r.cwd as string | null,
          project: r.project as string | null,
        },
      }));
    },
    files(all) {
      const rows = db.prepare(
        `SELECT s.asm_id, s.agent, COALESCE(i.path, s.transcript_path) AS path,
           CASE WHEN COALESCE(i.path, s.transcript_path) = s.transcript_path THEN s.transcript_copy END AS copy,
           (f.path IS NOT NULL AND f.size = i.size AND f.mtime = i.mtime) AS indexed
         FROM (SELECT asm_id, agent, transcript_path, transcript_copy FROM sessions ${visible(all)}) s
         LEFT JOIN import_state i ON i.asm_id = s.asm_id
         LEFT JOIN search_files f ON f.path = i.path
         WHERE COALESCE(i.path, s.transcript_path) IS NOT NULL
         ORDER BY s.asm_id, path`,
      ).all() as Row[];
      const out = new Map<string, SearchFile[]>();
      for (const r of rows) {
        const list = out.get(String(r.asm_id)) ?? [];
        list.push({
          asm_id: String(r.asm_id),
          agent: String(r.agent),
          path: String(r.path),
          copy: r.copy as string | null,
          indexed: Number(r.indexed) === 1,
        });
        out.set(String(r.asm_id), list);
      }
      return out;
    },
    indexedHits(query, { all, limit }) {
      const q = query.trim();
      // a trigram index answers MATCH for 3 characters or more; a 2-character query reads the lines with LIKE
      const where = [...q].length >= 3
        ? "l.id IN (SELECT rowid FROM search_text WHERE search_text MATCH ?)"
        : "l.text LIKE ? ESCAPE '\\'";
      const param = [...q].length >= 3 ? `"${q.replace(/"/g, '""')}"` : likeOf(q);
      const stmt = db.prepare(
        `SELECT l.asm_id, l.path, l.kind, l.ts, l.text
         FROM search_lines l
         JOIN search_files f ON f.path = l.path
         JOIN import_state i ON i.path = l.path AND i.size = f.size AND i.mtime = f.mtime
         JOIN (SELECT asm_id, last_seen FROM sessions ${visible(all)}) s ON s.asm_id = i.asm_id
         WHERE ${where}
         ORDER BY ${ORDER}, l.path, l.id DESC
         LIMIT ?`,
      );
      return (function* () {
        for (const r of stmt.iterate(param, limit) as Iterable<Row>) {
          yield {
            asm_id: String(r.asm_id),
            path: String(r.path),
            kind: String(r.kind),
            ts: r.ts as string | null,
            text: String(r.text),
          };
        }
      })();
    },
    close: () => db.close(),
  };
}

/** The search reads on the ledger's own connection. */
export function searchReader(ledger: Ledger): SearchReader {
  const reader = searchReaderOf(ledger[DB].db);
  return { ...reader, close: () => {} }; // the ledger owns its connection
}

/**
 * A read-only connection to the ledger at `path` for a search Worker; throws LedgerError when there is no ledger
 * there or it has no search index yet (run the server once to migrate it).
 */
export function openSearchReader(path: string): SearchReader {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
  } catch (err) {
    throw new LedgerError(`the ledger at ${path} cannot be opened for search: ${errorText(err)}`);
  }
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const found = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'search_files'").get();
    if (!found) throw new LedgerError(`the ledger at ${path} has no search index yet; run asm serve once`);
  } catch (err) {
    db.close();
    throw err;
  }
  return searchReaderOf(db);
}
