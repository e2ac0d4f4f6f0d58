/**
 * The pure core of search: what a query may be, what counts as a match, and the snippet a hit shows. The deep
 * scan, the index and the shallow search all count with these, so the index and the scan can never disagree.
 * A match is a case-insensitive occurrence of the query as a substring; occurrences do not overlap.
 * @module
 */
import type { LineKind } from "../derive/mod.ts";

/** The shortest query search runs: one character would match nearly every line of every transcript. */
export const MIN_QUERY_CHARS = 2;

/**
 * The line kinds whose text search reads: what the person typed, what the agent answered, and what its tools
 * returned. Injected context (hook context, skill bodies, session context) repeats in every session and would make
 * every session match; meta lines carry no message text.
 */
export const SEARCHED_KINDS: ReadonlySet<LineKind> = new Set<LineKind>(["prompt", "assistant", "tool"]);

/** A snippet's length in characters (a longer query makes it longer). */
export const SNIPPET_CHARS = 80;

/** Characters kept before the match when the text allows. */
export const SNIPPET_SIDE = 36;

/** Why a query is refused (a sentence a person reads), or null when it may run. */
export function refusalOf(query: string): string | null {
  if ([...query.trim()].length < MIN_QUERY_CHARS) {
    return `a search needs at least ${MIN_QUERY_CHARS} characters (one character would match nearly everything); ` +
      "type a longer query";
  }
  return null;
}

/** The form a query is compared in (trimmed, lower case). */
export function needleOf(query: string): string {
  return query.trim().toLowerCase();
}

/** Where each non-overlapping occurrence of `needle` (already lower case) starts in `text`. */
export function matchesIn(text: string, needle: string): number[] {
  if (needle === "") return [];
  const hay = text.toLowerCase();
  // toLowerCase can change a string's length (a few non-ASCII letters); offsets then come from the folded text
  const out: number[] = [];
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + needle.length)) out.push(at);
  return out;
}

/** About 80 characters of `text` around the match at `at`, on one line, with an ellipsis where it was cut. */
export function snippetOf(text: string, at: number, length: number): string {
  const width = Math.max(SNIPPET_CHARS, length + 2 * SNIPPET_SIDE);
  // centred on the match, shifted inwards near either end so the snippet stays about 80 characters long
  const start = Math.max(0, Math.min(at - SNIPPET_SIDE, text.length - width));
  const end = Math.min(text.length, start + width);
  const body = text.slice(start, end).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${body}${end < text.length ? "…" : ""}`;
}
