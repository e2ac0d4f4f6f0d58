/**
 * Migration 7: what the board's reconciler adds to the links (issue "The board"). A binding between a card and a
 * session lives here, never in the card; the planner also needs the title last in sync (so a card follows its
 * session's title without fighting a hand edit) and END's filing still to be written. Each column is in
 * docs/runbook.md with its reason.
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 7. */
export const MIGRATION_7_BOARD: Migration = {
  version: 7,
  sql: `
-- the title last written to the card, or read from it while card and session agreed: a card whose title differs
-- from its session's follows it only when the session's title moved away from this one and the card's did not
ALTER TABLE sprint_links ADD COLUMN synced_title TEXT;
-- END ended the card's session and its filing to COMPLETE is not written yet (a busy board): a pass finishes it
-- instead of dropping the card
ALTER TABLE sprint_links ADD COLUMN filing INTEGER NOT NULL DEFAULT 0;
-- the card of a session (END through any door), the sessions a link points at
CREATE INDEX sprint_links_session ON sprint_links (asm_id);
-- the launches a START or CONTINUE made for a card, whose session becomes the card's binding
CREATE INDEX launches_sprint_node ON launches (sprint_node, requested_at);
`,
};
