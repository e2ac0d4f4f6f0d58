/**
 * The hidden-row rule, ONCE, as SQL and as its exact TypeScript twin. The list, the counts, the heat map, the
 * projects and the board all call one of these two, so they can never disagree about who counts. Nothing is
 * deleted: `?all=1` returns every row. hidden_test.ts generates many rows and checks both agree on each.
 * @module
 */

/**
 * The columns the rule reads. It hides only on evidence: `source` is what the agent's adapter knew (a value it
 * did not know is null and shown); the raw `thread_source` stays in the row for a person to read, never here.
 */
export interface HiddenFacts {
  nested: number;
  source: string | null;
  harness: number;
  status: string;
  name: string | null;
  turns: number | null;
  prompts: number;
  /** 'listed': only the transcript's ends were read (phase one); its turns are not known yet */
  derive_state: string | null;
}

/** Why a row is hidden, in the order the rule tests them. */
export type HiddenReason =
  | "sub-agent"
  | "non-user thread"
  | "headless"
  | "harness folder"
  | "nothing happened";

/**
 * SQL expression giving the hidden reason of a `sessions` row (NULL when visible). Use it as
 * `SELECT ${HIDDEN_REASON_SQL} AS hidden_reason ...`; keep it and `hiddenReason` in step.
 */
export const HIDDEN_REASON_SQL = `(CASE
  WHEN nested = 1 OR source = 'subagent' THEN 'sub-agent'
  WHEN source IN ('non-user', 'title-generation') THEN 'non-user thread'
  WHEN source = 'headless' THEN 'headless'
  WHEN harness = 1 THEN 'harness folder'
  WHEN derive_state IS NULL AND status IN ('ended', 'lost', 'killed') AND (name IS NULL OR name = '')
    AND MAX(COALESCE(turns, 0), prompts) <= 1 THEN 'nothing happened'
  ELSE NULL END)`;

/**
 * SQL expression: 1 when a row's visibility waits for the whole of its transcript (phase one listed it; it would
 * be hidden as "nothing happened" if its turns were as few as its hooks say), else 0. Such a row is shown with the
 * words "still being read" and counted apart; keep it and `stillBeingRead` in step.
 */
export const STILL_BEING_READ_SQL = `(CASE
  WHEN derive_state = 'listed' AND ${HIDDEN_REASON_SQL} IS NULL AND status IN ('ended', 'lost', 'killed')
    AND (name IS NULL OR name = '') AND prompts <= 1 THEN 1
  ELSE 0 END)`;

/** The TypeScript twin of HIDDEN_REASON_SQL: null when the row is visible. */
export function hiddenReason(row: HiddenFacts): HiddenReason | null {
  if (row.nested === 1 || row.source === "subagent") return "sub-agent";
  if (row.source === "non-user" || row.source === "title-generation") return "non-user thread";
  if (row.source === "headless") return "headless";
  if (row.harness === 1) return "harness folder";
  if (
    row.derive_state === null &&
    (row.status === "ended" || row.status === "lost" || row.status === "killed") &&
    (row.name === null || row.name === "") &&
    Math.max(row.turns ?? 0, row.prompts) <= 1
  ) return "nothing happened";
  return null;
}

/** The TypeScript twin of STILL_BEING_READ_SQL. */
export function stillBeingRead(row: HiddenFacts): boolean {
  return row.derive_state === "listed" && hiddenReason(row) === null &&
    (row.status === "ended" || row.status === "lost" || row.status === "killed") &&
    (row.name === null || row.name === "") && row.prompts <= 1;
}

/** True when `path` is `root` or inside it (by path segments, not by string prefix). */
export function isUnder(path: string, root: string): boolean {
  const r = root.endsWith("/") ? root.slice(0, -1) : root;
  return path === r || path.startsWith(r + "/");
}

/** True when the folder is under one of the harness roots (system temp, asm's data folder, the hooks folder). */
export function underHarnessRoot(cwd: string | null, roots: readonly string[]): boolean {
  return cwd !== null && roots.some((root) => root !== "" && isUnder(cwd, root));
}
