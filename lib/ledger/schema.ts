/**
 * The ledger's schema as numbered migrations. The applied version is `meta.schema_version`; a migration runs
 * once, inside a transaction, in order. Columns beyond the spec's are listed in docs/runbook.md with reasons.
 * @module
 */

import type { Migration } from "./migration.ts";
import { MIGRATION_2_HISTORY } from "./schema_history.ts";
import { MIGRATION_3_LIVENESS } from "./schema_liveness.ts";
import { MIGRATION_4_SEARCH } from "./schema_search.ts";
import { MIGRATION_5_RULES } from "./schema_rules.ts";
import { MIGRATION_6_UNSURE } from "./schema_unsure.ts";
import { MIGRATION_7_BOARD } from "./schema_board.ts";
import { MIGRATION_8_WINDOW } from "./schema_window.ts";
import { MIGRATION_9_EVIDENCE } from "./schema_evidence.ts";
import { MIGRATION_10_LISTING } from "./schema_listing.ts";

export type { Migration };

/** Every migration, oldest first. Append; never edit a released one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE sessions (
  asm_id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  agent_session_id TEXT NOT NULL,
  name TEXT,
  cwd TEXT,
  project TEXT,
  primary_folder TEXT,
  model TEXT,
  transcript_path TEXT,
  source TEXT,
  thread_source TEXT,
  nested INTEGER NOT NULL DEFAULT 0,
  pid_shared INTEGER NOT NULL DEFAULT 0,
  harness INTEGER NOT NULL DEFAULT 0,
  started_at TEXT,
  last_seen TEXT,
  ended_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('starting', 'live', 'ended', 'lost', 'killed')),
  end_reason TEXT,
  sprint_node TEXT,
  sprint_origin TEXT,
  continues_asm_id TEXT,
  resumed_from_asm_id TEXT,
  resumed_by TEXT,
  description TEXT,
  closeout_state TEXT CHECK (closeout_state IS NULL OR closeout_state IN ('closed', 'open')),
  tags TEXT,
  archived INTEGER NOT NULL DEFAULT 0,
  turns INTEGER,
  first_message TEXT,
  summary TEXT,
  context_tokens INTEGER,
  forked_from TEXT,
  prompts INTEGER NOT NULL DEFAULT 0,
  cleared_from_asm_id TEXT,
  parent_asm_id TEXT,
  entrypoint TEXT,
  launch_token TEXT,
  activity TEXT,
  activity_reason TEXT,
  activity_at TEXT,
  agent_version TEXT,
  transcript_copy TEXT,
  UNIQUE (agent, agent_session_id)
);
CREATE INDEX sessions_last_seen ON sessions (last_seen);
CREATE INDEX sessions_status ON sessions (status);

CREATE TABLE runs (
  run_id INTEGER PRIMARY KEY AUTOINCREMENT,
  asm_id TEXT NOT NULL REFERENCES sessions (asm_id),
  pid INTEGER NOT NULL,
  proc_start INTEGER NOT NULL,
  boot_id TEXT,
  launch_token TEXT,
  wrapper_pid INTEGER,
  started_at TEXT,
  ended_at TEXT,
  start_source TEXT,
  end_reason TEXT,
  UNIQUE (asm_id, pid, proc_start)
);
CREATE INDEX runs_open ON runs (ended_at, asm_id);
CREATE INDEX runs_process ON runs (pid, proc_start);

CREATE TABLE events (
  id TEXT PRIMARY KEY,
  asm_id TEXT,
  agent TEXT NOT NULL,
  agent_session_id TEXT,
  event TEXT NOT NULL,
  ts TEXT NOT NULL,
  payload TEXT NOT NULL,
  ingested_at TEXT NOT NULL,
  outcome TEXT NOT NULL
);
CREATE INDEX events_session ON events (asm_id, ts);

CREATE TABLE launches (
  token TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  cwd TEXT,
  name TEXT,
  sprint_node TEXT,
  script_path TEXT,
  prompt_path TEXT,
  requested_at TEXT NOT NULL,
  matched_asm_id TEXT,
  matched_at TEXT,
  expired INTEGER NOT NULL DEFAULT 0,
  continues_asm_id TEXT
);

CREATE TABLE sprint_links (
  node_id TEXT PRIMARY KEY,
  asm_id TEXT,
  origin TEXT,
  title TEXT,
  bound_at TEXT,
  dropped INTEGER NOT NULL DEFAULT 0,
  dropped_at TEXT,
  completed INTEGER NOT NULL DEFAULT 0,
  completed_at TEXT
);

CREATE TABLE import_state (
  path TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime TEXT NOT NULL,
  asm_id TEXT
);

CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT
);
`,
  },
  MIGRATION_2_HISTORY,
  MIGRATION_3_LIVENESS,
  MIGRATION_4_SEARCH,
  MIGRATION_5_RULES,
  MIGRATION_6_UNSURE,
  MIGRATION_7_BOARD,
  MIGRATION_8_WINDOW,
  MIGRATION_9_EVIDENCE,
  MIGRATION_10_LISTING,
];

/** The version a fully migrated ledger reports. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
