/**
 * The reason a failed turn reads: the error message as the agent recorded it, made safe to show. An agent's
 * error text comes from an API's answer (any bytes a server sent back), so it is hostile: control characters and
 * runs of whitespace become one space and it is cut to a length a tooltip and a session page can hold.
 * Pure.
 * @module
 */

/** The longest reason kept, in characters (code points); a longer message ends in "…". */
export const FAILURE_TEXT_MAX = 300;

/** `raw` as one plain line of at most {@link FAILURE_TEXT_MAX} characters; null when nothing readable is left. */
export function failureText(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  // C0, DEL and C1 controls (escape sequences included), and the line and paragraph separators
  // deno-lint-ignore no-control-regex
  const flat = raw.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, " ")
    // the invisible ones that reorder or hide what is shown (bidirectional controls, zero-width marks)
    .replace(/[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g, "").trim();
  if (flat === "") return null;
  const chars = [...flat];
  return chars.length <= FAILURE_TEXT_MAX ? flat : `${chars.slice(0, FAILURE_TEXT_MAX - 1).join("")}…`;
}
