/**
 * Migration 6: how sure asm is that a live session is still running (issue "The page never lies"). A session
 * whose hook events named no agent process has no run, and a poll that judges runs only would have left it LIVE
 * forever; now the poll proves it from the agent's own records (and records the run they name), or stores why it
 * cannot. The column is in docs/runbook.md with its reason.
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 6. */
export const MIGRATION_6_UNSURE: Migration = {
  version: 6,
  sql: `
-- why asm cannot prove a live session's process (no run, and the agent's own records do not list it); null when
-- it can, or when the session is not live
ALTER TABLE sessions ADD COLUMN unsure_reason TEXT;
`,
};
