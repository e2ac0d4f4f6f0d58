/**
 * Migration 4: the deep search index (issue "History and the derived layer", item 8). One row per message line
 * of every transcript (message text only: what the agent's classifier calls a prompt, a reply or a tool result),
 * an FTS5 trigram index over that text (substring matches, case-insensitive, so it finds what the bounded scan
 * finds), and how far each transcript file is indexed. Each column is in docs/runbook.md with its reason.
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 4. */
export const MIGRATION_4_SEARCH: Migration = {
  version: 4,
  sql: `
-- one message line of one transcript file; rec_id is the record's own id (a re-appended copy replaces the row)
CREATE TABLE search_lines (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  asm_id TEXT,
  rec_id TEXT,
  ts TEXT,
  kind TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX search_lines_path ON search_lines (path, rec_id);
-- external content: the text is stored once (in search_lines); the triggers keep the index in step
CREATE VIRTUAL TABLE search_text USING fts5(text, content = 'search_lines', content_rowid = 'id',
  tokenize = 'trigram');
CREATE TRIGGER search_lines_insert AFTER INSERT ON search_lines BEGIN
  INSERT INTO search_text (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER search_lines_delete AFTER DELETE ON search_lines BEGIN
  INSERT INTO search_text (search_text, rowid, text) VALUES ('delete', old.id, old.text);
END;
-- how far a transcript file is indexed: read_offset bytes (whole lines); size and mtime are import_state's when
-- the index caught up with it (size -1 while a large file is indexed in steps), so a file is "indexed" exactly
-- when they equal import_state's, and a deep search scans it otherwise
CREATE TABLE search_files (
  path TEXT PRIMARY KEY,
  asm_id TEXT,
  size INTEGER NOT NULL,
  mtime TEXT NOT NULL,
  read_offset INTEGER NOT NULL,
  indexed_at TEXT NOT NULL
);
`,
};
