/**
 * Migration 2: what the history import and the derived layer add (issue "History"). Each column and table is in
 * docs/runbook.md with its reason.
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 2. */
export const MIGRATION_2_HISTORY: Migration = {
  version: 2,
  sql: `
-- the title a list shows: the person's name for it, else the agent's title, its summary, the first message
ALTER TABLE sessions ADD COLUMN title TEXT;
-- the name the import last wrote: a name equal to it is the import's to update, any other came from a hook
ALTER TABLE sessions ADD COLUMN imported_name TEXT;
-- when the byte pass last derived this row (null: never; only hooks have spoken)
ALTER TABLE sessions ADD COLUMN derived_at TEXT;
-- the file's identity: another inode at the same path is another file, read from the start
ALTER TABLE import_state ADD COLUMN ino INTEGER;
-- where the next read starts: the byte after the last complete line read
ALTER TABLE import_state ADD COLUMN read_offset INTEGER NOT NULL DEFAULT 0;
-- sha-256 (hex) of the first 512 bytes and the 512 before read_offset: a file rewritten in place is not resumed
ALTER TABLE import_state ADD COLUMN tail TEXT;
-- the fold state at read_offset (JSON, the agent's own shape): a grown file is read on from there
ALTER TABLE import_state ADD COLUMN fold TEXT;
-- what went wrong reading it last time (null: nothing)
ALTER TABLE import_state ADD COLUMN problem TEXT;
ALTER TABLE import_state ADD COLUMN imported_at TEXT;
CREATE INDEX import_state_session ON import_state (asm_id);
-- turns typed per UTC day: the heat map
CREATE TABLE session_days (
  asm_id TEXT NOT NULL,
  day TEXT NOT NULL,
  day_turns INTEGER NOT NULL,
  PRIMARY KEY (asm_id, day)
) WITHOUT ROWID;
CREATE INDEX session_days_day ON session_days (day);
-- project folders a session touched, with their score (the project tiles' touched counts)
CREATE TABLE session_folders (
  asm_id TEXT NOT NULL,
  folder TEXT NOT NULL,
  score INTEGER NOT NULL,
  PRIMARY KEY (asm_id, folder)
) WITHOUT ROWID;
-- skills the harness recorded as run, with their run count (closeout, project scoring)
CREATE TABLE session_skills (
  asm_id TEXT NOT NULL,
  skill TEXT NOT NULL,
  runs INTEGER NOT NULL,
  PRIMARY KEY (asm_id, skill)
) WITHOUT ROWID;
`,
};
