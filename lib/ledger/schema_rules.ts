/**
 * Migration 5: what the standing rules tell the session row (security issue "Only its owner gets in"). The hook
 * refuses a rules file that is a link out of the session's folder, a FIFO, a device, too large or not the user's
 * own, and says so in its SessionStart event (`rules_skipped`); the row keeps that sentence so the session page
 * can show why a rule the person wrote did not reach the agent. The column is in docs/runbook.md with its reason.
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 5. */
export const MIGRATION_5_RULES: Migration = {
  version: 5,
  sql: `
-- the latest SessionStart's rules_skipped: which standing rules files were refused and why; null when none was
ALTER TABLE sessions ADD COLUMN rules_note TEXT;
`,
};
