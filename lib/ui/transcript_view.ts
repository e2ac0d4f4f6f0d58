/**
 * A session's conversation as its page shows it. The agent's own line reader (`viewLine`) says what each line
 * shows (a prompt, a reply, a tool call with its input, a tool result, token counts); this keeps the entries in
 * order, lets a record re-appended under its id replace its earlier copy in its place (last copy wins), folds
 * the token counts into the session's totals, pairs each tool call with its result, and picks the window of
 * entries a page shows. Pure: the reads are the caller's.
 * @module
 */
import type { TokenUsage, ViewLine, ViewRecord } from "../derive/transcript_types.ts";

/** One transcript line as read: its text and a key that names it across reads (the record id, or where it is). */
export interface KeyedLine {
  key: string;
  text: string;
}

/** One entry of the page: the records of one transcript line. */
export interface TranscriptEntry {
  /** The line's key: `id:<record id>` for a record with an id, else the key of where it was read. */
  key: string;
  records: ViewRecord[];
}

/** A session's model and token counts so far. */
export interface TokenTotals {
  /** The model of the newest call that named one. */
  model: string | null;
  /** Tokens sent to the model over the session (cached ones included), and tokens it wrote; null: never said. */
  input: number | null;
  output: number | null;
}

/**
 * The running token totals: each model call counted once (a call written on several lines, or re-appended,
 * replaces its earlier counts), and a format's own running totals taken as they come.
 */
export class UsageTotals {
  #calls = new Map<string, { input: number; output: number }>();
  #anonymous = { input: 0, output: 0 };
  #said = { input: false, output: false };
  #running: { input: number | null; output: number | null } | null = null;
  #model: string | null = null;

  /** Adds one usage record. */
  add(u: TokenUsage): void {
    if (u.model) this.#model = u.model;
    if (u.input !== null) this.#said.input = true;
    if (u.output !== null) this.#said.output = true;
    if (u.scope === "total") {
      this.#running = { input: u.input, output: u.output };
      return;
    }
    const counts = { input: u.input ?? 0, output: u.output ?? 0 };
    if (u.call === null) {
      this.#anonymous.input += counts.input;
      this.#anonymous.output += counts.output;
    } else {
      this.#calls.set(u.call, counts);
    }
  }

  /** The totals so far. */
  totals(): TokenTotals {
    if (this.#running) return { model: this.#model, ...this.#running };
    let input = this.#anonymous.input;
    let output = this.#anonymous.output;
    for (const c of this.#calls.values()) {
      input += c.input;
      output += c.output;
    }
    return {
      model: this.#model,
      input: this.#said.input ? input : null,
      output: this.#said.output ? output : null,
    };
  }
}

/** Whether an entry shows anything (a line of token counts alone, or of metadata, does not). */
export function shows(entry: TranscriptEntry): boolean {
  return entry.records.some((r) => r.kind !== "usage");
}

/**
 * Entries of some lines (several files of one session: pass them in order), with the session's token totals.
 * A line that is not a record, or shows nothing, makes no entry; its token counts still count.
 */
export function transcriptOf(
  lines: Iterable<KeyedLine>,
  view: (line: string) => ViewLine | null,
  totals: UsageTotals = new UsageTotals(),
): { entries: TranscriptEntry[]; totals: TokenTotals } {
  const byKey = new Map<string, number>();
  const out: (TranscriptEntry | null)[] = [];
  for (const line of lines) {
    if (line.text.trim() === "") continue;
    const seen = view(line.text);
    if (!seen) continue;
    for (const r of seen.records) if (r.kind === "usage") totals.add(r.usage);
    const entry: TranscriptEntry = {
      // an id is the agent's text: encoded, so the key survives an HTML attribute (which turns CR into LF) as is
      key: seen.id === null ? line.key : `id:${encodeURIComponent(seen.id)}`,
      records: seen.records,
    };
    const at = byKey.get(entry.key);
    if (at !== undefined) {
      // a record re-appended under the same id: the last copy wins, in the place of the first
      out[at] = shows(entry) ? entry : null;
      continue;
    }
    if (!shows(entry)) continue;
    byKey.set(entry.key, out.length);
    out.push(entry);
  }
  return { entries: out.filter((e): e is TranscriptEntry => e !== null), totals: totals.totals() };
}

/** The text of an entry a search term is looked for in: what the page shows of it. */
export function entryText(entry: TranscriptEntry): string {
  const parts: string[] = [];
  for (const r of entry.records) {
    if (r.kind === "prompt" || r.kind === "assistant" || r.kind === "injected") parts.push(r.text);
    else if (r.kind === "tool_call") {
      const i = r.input;
      parts.push(r.tool, i.command ?? "", i.path ?? "", i.summary ?? "", i.patch ?? "");
      if (i.edit) parts.push(i.edit.before, i.edit.after);
    } else if (r.kind === "tool_result") parts.push(r.output);
  }
  return parts.join("\n");
}

/** What part of the entries a page shows. */
export interface WindowRequest {
  /** How many entries a page holds (default {@link PAGE_ENTRIES}). */
  size?: number;
  /** The entries before this key (the "Show earlier" button). */
  before?: string | null;
  /** Open at the newest entry holding this text (a search hit), case-insensitive. */
  find?: string | null;
  /** With `find`: prefer the hit written at this moment (a search snippet's time). */
  at?: string | null;
}

/** The window a page shows. */
export interface TranscriptWindow {
  entries: TranscriptEntry[];
  /** How many entries come before the window (a "Show earlier" button loads them). */
  earlier: number;
  /** How many entries come after it (0: the window reaches the end, and the page follows the transcript). */
  later: number;
  /** The key of the entry the search term was found in, or null. */
  hit: string | null;
}

/** Entries per page: the page holds at most this many at first; "Show earlier" adds as many again. */
export const PAGE_ENTRIES = 300;
/** The most entries after a search hit the page renders; further ones are left for the newest page. */
export const MAX_AFTER_HIT = 1_000;

function timeOf(entry: TranscriptEntry): string | null {
  for (const r of entry.records) if (r.ts) return r.ts;
  return null;
}

/** The newest entry holding `find` (preferring one written at `at`), or -1. */
export function hitIndex(
  entries: readonly TranscriptEntry[],
  find: string,
  at: string | null = null,
): number {
  const needle = find.toLowerCase();
  let newest = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    if (!entryText(entries[i]).toLowerCase().includes(needle)) continue;
    if (at === null || timeOf(entries[i]) === at) return i;
    if (newest === -1) newest = i;
  }
  return newest;
}

/** Pure: the window of `entries` a request asks for. */
export function windowOf(entries: readonly TranscriptEntry[], request: WindowRequest = {}): TranscriptWindow {
  const size = Math.max(1, request.size ?? PAGE_ENTRIES);
  let end = entries.length;
  let start = Math.max(0, end - size);
  let hit: string | null = null;
  if (request.before) {
    const at = entries.findIndex((e) => e.key === request.before);
    end = at === -1 ? 0 : at;
    start = Math.max(0, end - size);
  } else if (request.find) {
    const h = hitIndex(entries, request.find, request.at ?? null);
    if (h !== -1) {
      hit = entries[h].key;
      // a little before the hit for its context; everything after it, up to a bound
      start = Math.min(start, Math.max(0, h - 10));
      end = Math.min(entries.length, Math.max(h + 1, start + Math.max(size, MAX_AFTER_HIT)));
    }
  }
  return { entries: entries.slice(start, end), earlier: start, later: entries.length - end, hit };
}
