/**
 * Migration 3: what liveness, launching and control add (issue "Liveness and control"). The spec's launches
 * table knows a launch's token, folder and match; a launch asm can act on also needs to know what kind of start
 * it was, where its window is, how it was matched and why it is waiting. Each column is in docs/runbook.md with
 * its reason.
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 3. */
export const MIGRATION_3_LIVENESS: Migration = {
  version: 3,
  sql: `
-- launch | resume | continue: a resume reopens an existing row, a continue links a new one to its predecessor
ALTER TABLE launches ADD COLUMN kind TEXT NOT NULL DEFAULT 'launch'
  CHECK (kind IN ('launch', 'resume', 'continue'));
-- the model flag given, null when withheld
ALTER TABLE launches ADD COLUMN model TEXT;
-- the session a resume reopens (its match must be this row)
ALTER TABLE launches ADD COLUMN resumes_asm_id TEXT;
-- where the window is: the terminal host, its window and pane, and the pane process's identity
ALTER TABLE launches ADD COLUMN host TEXT;
ALTER TABLE launches ADD COLUMN window_id TEXT;
ALTER TABLE launches ADD COLUMN pane_id TEXT;
ALTER TABLE launches ADD COLUMN pane_pid INTEGER;
ALTER TABLE launches ADD COLUMN pane_proc_start INTEGER;
ALTER TABLE launches ADD COLUMN boot_id TEXT;
-- which correlation path matched it: token (a hook event carried it), ancestry (the process table), adoption
ALTER TABLE launches ADD COLUMN matched_by TEXT
  CHECK (matched_by IS NULL OR matched_by IN ('token', 'ancestry', 'adoption'));
-- when it expired unmatched (the spec's expired flag has no time)
ALTER TABLE launches ADD COLUMN expired_at TEXT;
-- the agent's own dialog the user must answer in the window first (folder trust, onboarding, hook review)
ALTER TABLE launches ADD COLUMN waiting_reason TEXT;
-- why the window could not be opened; such a launch never matches
ALTER TABLE launches ADD COLUMN error TEXT;
CREATE INDEX launches_open ON launches (matched_asm_id, expired);
CREATE INDEX runs_launch_token ON runs (launch_token);
CREATE INDEX sessions_launch_token ON sessions (launch_token);
`,
};
