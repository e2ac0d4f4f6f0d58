/**
 * One search, start to finish, over facts handed in (the ledger's reads, each agent's line classifier, a file
 * reader, a clock): it runs inside the search Worker (worker.ts), never on the server's event loop.
 *
 * Shallow (default): the session rows' name, title, first message, summary, folder and project. Deep: message
 * text inside the transcripts; the index answers for files it has caught up with, the bounded scan reads the
 * rest. Both walk newest session first and count MATCHES (occurrences), not sessions. Bounded three ways: seconds,
 * hits, and bytes read per scanned file (the newest `bytesPerFile` of it); the answer says which bound bit.
 * @module
 */
import type { SearchReader } from "../ledger/mod.ts";
import { type Classify, messageLines, type ScanBytes } from "./scan.ts";
import { matchesIn, needleOf, refusalOf, snippetOf } from "./text.ts";

/** The three bounds of a search. */
export interface SearchLimits {
  /** stop after this long (the answer then has what was found so far) */
  seconds: number;
  /** stop after this many matches */
  hits: number;
  /** read at most this many bytes of each scanned transcript: its newest part */
  bytesPerFile: number;
}

/** The bounds a search has unless asked otherwise. */
export const DEFAULT_LIMITS: SearchLimits = { seconds: 5, hits: 200, bytesPerFile: 8 << 20 };

/** Snippets kept per session (the match count covers every match). */
export const SNIPPETS_PER_SESSION = 3;

/** What a search is asked. */
export interface SearchRequest {
  query: string;
  /** read inside the transcripts */
  deep: boolean;
  /** hidden rows too */
  all: boolean;
  limits?: Partial<SearchLimits>;
}

/** About 80 characters around one match, on one line. */
export interface SearchSnippet {
  text: string;
  /** deep: the line's kind (prompt, assistant, tool); shallow: the field (name, title, first_message, ...) */
  where: string;
  /** when the line was written (deep, when the transcript says), else null */
  ts: string | null;
}

/** The matches of one session. */
export interface SessionMatches {
  asm_id: string;
  agent: string;
  title: string | null;
  last_seen: string | null;
  matches: number;
  snippets: SearchSnippet[];
  /** the byte bound cut the oldest part of one of its files off (older matches may be missing) */
  truncated: boolean;
}

/** Which bound stopped a search early (null: it read everything). */
export type BoundedBy = "time" | "hits" | "bytes" | null;

/** What a search answers. */
export interface SearchAnswer {
  query: string;
  deep: boolean;
  /** every match counted (with a bound that bit: the matches found before it did) */
  matches: number;
  /** newest first */
  sessions: SessionMatches[];
  bounded_by: BoundedBy;
  took_ms: number;
  /** transcript files the index answered for */
  indexed_files: number;
  /** transcript files read by the bounded scan (not indexed yet) */
  scanned_files: number;
  /** scanned files whose oldest part the byte bound left unread */
  truncated_files: number;
}

/** The facts a search runs over. */
export interface SearchDeps {
  reader: SearchReader;
  /** the agent's line classifier; null for an agent asm cannot read */
  classifierOf(agent: string): Classify | null;
  /**
   * the newest `maxBytes` of one of `agent`'s transcripts (or of its copy when the original is gone); null when
   * neither exists
   */
  readTail(path: string, copy: string | null, maxBytes: number, agent: string): ScanBytes | null;
  /** milliseconds, monotonic */
  now(): number;
}

/** Thrown for a query search refuses (its message is the sentence to show). */
export class RefusedQuery extends Error {
  override name = "RefusedQuery";
}

/** Runs one search. Throws {@link RefusedQuery} for a query shorter than two characters. */
export function runSearch(request: SearchRequest, deps: SearchDeps): SearchAnswer {
  const refusal = refusalOf(request.query);
  if (refusal !== null) throw new RefusedQuery(refusal);
  const limits = { ...DEFAULT_LIMITS, ...request.limits };
  const started = deps.now();
  const walk = new Walk(needleOf(request.query), limits, started + limits.seconds * 1000, deps.now);
  const answer = request.deep ? deep(request, deps, walk) : shallow(request, deps, walk);
  return { ...answer, took_ms: Math.round(deps.now() - started) };
}

/** The running totals of one search and the bounds it checks. */
class Walk {
  matches = 0;
  boundedBy: BoundedBy = null;
  constructor(
    readonly needle: string,
    readonly limits: SearchLimits,
    readonly deadline: number,
    readonly now: () => number,
  ) {}

  /** False once a bound stopped the search (time is checked here). */
  going(): boolean {
    if (this.boundedBy === null && this.now() > this.deadline) this.boundedBy = "time";
    return this.boundedBy === null;
  }

  /** Counts the matches of `text` into `into` (up to the hit bound); keeps a snippet while there is room. */
  count(text: string, where: string, ts: string | null, into: SessionMatches): void {
    const at = matchesIn(text, this.needle);
    if (at.length === 0) return;
    const take = Math.min(at.length, this.limits.hits - this.matches);
    this.matches += take;
    into.matches += take;
    if (into.snippets.length < SNIPPETS_PER_SESSION) {
      into.snippets.push({ text: snippetOf(text, at[0], this.needle.length), where, ts });
    }
    if (this.matches >= this.limits.hits) this.boundedBy = "hits";
  }
}

type Found = Omit<SearchAnswer, "took_ms">;

function shallow(request: SearchRequest, deps: SearchDeps, walk: Walk): Found {
  const found: SessionMatches[] = [];
  for (const s of deps.reader.sessions(request.all, request.query)) {
    if (!walk.going()) break;
    const hit = matchesOf(s);
    const read = new Set<string>();
    for (const [field, value] of Object.entries(s.fields)) {
      // the same text in two fields (a folder that is also the project, a name that is also the title) is one
      if (value === null || read.has(value) || !walk.going()) continue;
      read.add(value);
      walk.count(value, field, null, hit);
    }
    if (hit.matches > 0) found.push(hit);
  }
  return answerOf(request, walk, found, { indexed: 0, scanned: 0, truncated: 0 });
}

function deep(request: SearchRequest, deps: SearchDeps, walk: Walk): Found {
  const files = deps.reader.files(request.all);
  // each indexed row holds at least one match, so the first `hits` rows in walk order are all a search can use
  const indexed = new Map<string, { kind: string; ts: string | null; text: string }[]>();
  for (const row of deps.reader.indexedHits(request.query, { all: request.all, limit: walk.limits.hits })) {
    const list = indexed.get(row.path) ?? [];
    list.push(row);
    indexed.set(row.path, list);
  }
  const tally = { indexed: 0, scanned: 0, truncated: 0 };
  const found: SessionMatches[] = [];
  for (const s of deps.reader.sessions(request.all)) {
    if (!walk.going()) break;
    const hit = matchesOf(s);
    for (const file of files.get(s.asm_id) ?? []) {
      if (!walk.going()) break;
      let lines: { kind: string; ts: string | null; text: string }[];
      if (file.indexed) {
        tally.indexed++;
        lines = indexed.get(file.path) ?? [];
      } else {
        const classify = deps.classifierOf(file.agent);
        const tail = classify === null
          ? null
          : deps.readTail(file.path, file.copy, walk.limits.bytesPerFile, file.agent);
        if (classify === null || tail === null) continue;
        tally.scanned++;
        if (tail.truncated) {
          tally.truncated++;
          hit.truncated = true;
        }
        lines = messageLines(tail.bytes, classify).reverse(); // newest line first, as the index gives them
      }
      for (const line of lines) {
        if (!walk.going()) break;
        walk.count(line.text, line.kind, line.ts, hit);
      }
    }
    if (hit.matches > 0) found.push(hit);
  }
  return answerOf(request, walk, found, tally);
}

function matchesOf(s: { asm_id: string; agent: string; title: string | null; last_seen: string | null }) {
  return {
    asm_id: s.asm_id,
    agent: s.agent,
    title: s.title,
    last_seen: s.last_seen,
    matches: 0,
    snippets: [],
    truncated: false,
  } as SessionMatches;
}

function answerOf(
  request: SearchRequest,
  walk: Walk,
  sessions: SessionMatches[],
  tally: { indexed: number; scanned: number; truncated: number },
): Found {
  return {
    query: request.query.trim(),
    deep: request.deep,
    matches: walk.matches,
    sessions,
    // time and hits stop the walk; the byte bound only leaves old parts of files unread, so it is named last
    bounded_by: walk.boundedBy ?? (tally.truncated > 0 ? "bytes" : null),
    indexed_files: tally.indexed,
    scanned_files: tally.scanned,
    truncated_files: tally.truncated,
  };
}
