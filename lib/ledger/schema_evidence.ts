/**
 * Migration 9: every transcript is read once more (issue "Every session a person has"). The readers now map only
 * the evidence they know into `source` (an unknown thread source or a missing side file is "not known", shown),
 * and read older versions' files they skipped before; the rows written by the old readers are only corrected by
 * reading the files again. Forgetting each file's size and offset makes the next import read every file whole
 * (lib/history/plan.ts); the rows and their hand edits stay.
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 9. */
export const MIGRATION_9_EVIDENCE: Migration = {
  version: 9,
  sql: `
-- a size no file has and no offset: the next import reads every known file from its first byte (the saved fold
-- states stay: until a session's other file is read again, its old state still speaks for it)
UPDATE import_state SET size = -1, read_offset = 0;
`,
};
