/**
 * The mint rule, ONCE, as SQL and as its exact TypeScript twin: who gets a NEW card. It is not the hidden rule
 * (`lib/ledger/hidden.ts`: who the list counts); the two are separate definitions, each with its twin test.
 *
 * A card is minted only on POSITIVE evidence of an interactive session a person drives: the agent said it is
 * interactive, a prompt was typed, it is no sub-agent, no automation thread, not under a harness folder, and it
 * has a title. Absence of evidence is not evidence: a source the import has not derived yet, an agent's source we
 * do not know, a thread kind we have never seen, all get no card ("not on the plan" on the page, with the reason).
 * The rule only decides creation: a card whose bound session is present is kept whatever this rule says.
 * mint_test.ts runs the SQL on an in-memory ledger and the twin on the same generated rows.
 * @module
 */

/** The `sessions` columns the rule reads. */
export interface MintFacts {
  nested: number;
  source: string | null;
  thread_source: string | null;
  parent_asm_id: string | null;
  harness: number;
  turns: number | null;
  prompts: number;
  name: string | null;
  title: string | null;
}

/** Why a session gets no card, in the order the rule tests them (null: it gets one). */
export type MintRefusal =
  | "sub-agent"
  | "automation thread"
  | "headless"
  | "not known to be interactive"
  | "harness folder"
  | "no typed prompt"
  | "no title";

/**
 * SQL expression giving the mint refusal of a `sessions` row (NULL when it would get a card). Use it as
 * `SELECT ${MINT_REFUSAL_SQL} AS mint_refusal ...`; keep it and {@link mintRefusal} in step.
 * The title is the one the list shows (`COALESCE(NULLIF(name, ''), title)`); blank means spaces, tabs and line
 * ends only, spelled out because SQLite's TRIM() strips spaces alone.
 */
export const MINT_REFUSAL_SQL = `(CASE
  WHEN nested <> 0 OR source = 'subagent' OR parent_asm_id IS NOT NULL THEN 'sub-agent'
  WHEN (thread_source IS NOT NULL AND thread_source <> 'user') OR source = 'title-generation'
    THEN 'automation thread'
  WHEN source = 'headless' THEN 'headless'
  WHEN source IS NULL OR source <> 'interactive' THEN 'not known to be interactive'
  WHEN harness <> 0 THEN 'harness folder'
  WHEN MAX(COALESCE(turns, 0), prompts) < 1 THEN 'no typed prompt'
  WHEN TRIM(COALESCE(NULLIF(name, ''), title, ''), ' ' || char(9) || char(10) || char(13)) = '' THEN 'no title'
  ELSE NULL END)`;

// the characters the SQL's TRIM strips: exactly these, not JavaScript's whole \s
const BLANK_ENDS = /^[ \t\n\r]+|[ \t\n\r]+$/g;

/** The TypeScript twin of {@link MINT_REFUSAL_SQL}: null when the session would get a card. */
export function mintRefusal(row: MintFacts): MintRefusal | null {
  if (row.nested !== 0 || row.source === "subagent" || row.parent_asm_id !== null) return "sub-agent";
  if ((row.thread_source !== null && row.thread_source !== "user") || row.source === "title-generation") {
    return "automation thread";
  }
  if (row.source === "headless") return "headless";
  if (row.source === null || row.source !== "interactive") return "not known to be interactive";
  if (row.harness !== 0) return "harness folder";
  if (Math.max(row.turns ?? 0, row.prompts) < 1) return "no typed prompt";
  const title = row.name !== null && row.name !== "" ? row.name : row.title ?? "";
  if (title.replace(BLANK_ENDS, "") === "") return "no title";
  return null;
}

/** True when the session would get a card (the rule's one yes/no). */
export function isMintable(row: MintFacts): boolean {
  return mintRefusal(row) === null;
}
