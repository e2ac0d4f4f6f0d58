/**
 * Migration 7: what the board's reconciler adds to the links (issue "The board"). A binding between a card and a
 * session lives here, never in the card; the planner also needs the title last in sync (so a card follows its
 * session's title without fighting a hand edit) and where the card was last seen. Each column is in
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
-- the list the card was in when a pass last read it, and when: where a session's card is, without a read
ALTER TABLE sprint_links ADD COLUMN list TEXT CHECK (list IS NULL OR list IN ('plan', 'process', 'complete'));
ALTER TABLE sprint_links ADD COLUMN seen_at TEXT;
-- the card of a session (END through any door), the sessions a link points at
CREATE INDEX sprint_links_session ON sprint_links (asm_id);
-- the launches a START or CONTINUE made for a card, whose session becomes the card's binding
CREATE INDEX launches_sprint_node ON launches (sprint_node, requested_at);
`,
};
