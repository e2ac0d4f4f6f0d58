/**
 * Migration 10: the cold import's two phases (issue "First run"). Phase one lists every transcript from a bounded
 * read of its two ends and marks the row `listed`; phase two derives it whole and clears the mark. A file phase
 * one read is on record as `listed`, so a server killed between the phases lists it no second time and phase two
 * still reads it. The columns are in docs/runbook.md.
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 10. */
export const MIGRATION_10_LISTING: Migration = {
  version: 10,
  sql: `
-- 'listed': only the ends of its transcript were read (the list's fields); its turns, project and closeout are
-- being derived. NULL: derived whole, or only hooks have spoken of it
ALTER TABLE sessions ADD COLUMN derive_state TEXT;
-- 1: phase one read this file's ends; the full pass has not read it yet (it reads it whatever its size and mtime)
ALTER TABLE import_state ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;
`,
};
