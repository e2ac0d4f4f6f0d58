/**
 * Migration 8: the model's context window of a session (issue "The dashboard for daily use"), so the list shows
 * context as a share of it. The agent's own record when it keeps one (Codex's `model_context_window`), else what
 * the agent's adapter knows of the model; null when neither says. The column is in docs/runbook.md.
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 8. */
export const MIGRATION_8_WINDOW: Migration = {
  version: 8,
  sql: `
-- the model's context window in tokens (the share the list shows is context_tokens of it); null: not known
ALTER TABLE sessions ADD COLUMN context_window INTEGER;
`,
};
