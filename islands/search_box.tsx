/// <reference lib="dom" />
/**
 * Search: shallow (titles, first messages, summaries, folders) or deep (message text inside every transcript),
 * answered by `GET /api/search`. Results count matches, not sessions, show a snippet, and say which bound (time,
 * hits, bytes) cut the search short. Renders when the person searches, never on a poll.
 * @module
 */
import { signal } from "@preact/signals";
import { api } from "./api.ts";

/** Props of the search box. */
export interface SearchBoxProps extends Record<string, unknown> {
  all: boolean;
}

interface SearchAnswer {
  query: string;
  deep: boolean;
  matches: number;
  sessions: {
    asm_id: string;
    agent: string;
    title: string | null;
    matches: number;
    snippets: { text: string; where: string; ts?: string | null }[];
  }[];
  bounded_by: string | null;
  took_ms: number;
}

const answer = signal<SearchAnswer | null>(null);
const problem = signal<string | null>(null);
const busy = signal(false);

const BOUND_WORDS: Record<string, string> = {
  time: "it ran out of time",
  hits: "it reached the most matches it counts",
  bytes: "a transcript was longer than it reads",
};

async function search(q: string, deep: boolean, all: boolean): Promise<void> {
  busy.value = true;
  problem.value = null;
  try {
    const params = new URLSearchParams({ q });
    if (deep) params.set("deep", "1");
    if (all) params.set("all", "1");
    const res = await api(`/api/search?${params}`);
    const body = await res.json();
    if (!res.ok) {
      problem.value = String(body.error ?? `the search failed (${res.status})`);
      answer.value = null;
    } else answer.value = body as SearchAnswer;
  } catch (err) {
    problem.value = `the search failed: ${(err as Error).message}`;
  } finally {
    busy.value = false;
  }
}

/**
 * Where a result opens: a transcript hit opens its session's page at the hit, marked (`?find=`, and `at=` the
 * time of the snippet's line when it has one); a title or folder match opens the page as it is.
 */
export function hitHref(
  asmId: string,
  a: { deep: boolean; query: string },
  ts: string | null = null,
): string {
  if (!a.deep) return `/sessions/${asmId}`;
  const q = new URLSearchParams({ find: a.query });
  if (ts) q.set("at", ts);
  return `/sessions/${asmId}?${q}#hit`;
}

/** The search box and its results. */
export function SearchBox({ all }: SearchBoxProps) {
  const a = answer.value;
  return (
    <div class="search">
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          search(String(data.get("q") ?? "").trim(), data.get("deep") === "on", all);
        }}
      >
        <input name="q" type="search" aria-label="Search" placeholder="search sessions" />
        <label>
          <input name="deep" type="checkbox" /> inside transcripts
        </label>
        <button type="submit" disabled={busy.value}>{busy.value ? "Searching…" : "Search"}</button>
        {a && (
          <button type="button" onClick={() => (answer.value = null)}>
            Clear
          </button>
        )}
      </form>
      {problem.value && <p class="notice error" role="status">{problem.value}</p>}
      {a && (
        <div class="results" data-search-for={a.query}>
          <p class="lede">
            {a.matches} {a.matches === 1 ? "match" : "matches"} in {a.sessions.length}{" "}
            {a.sessions.length === 1 ? "session" : "sessions"}{" "}
            ({a.deep ? "inside transcripts" : "titles and folders"}, {a.took_ms}{" "}
            ms){a.bounded_by ? `; stopped early: ${BOUND_WORDS[a.bounded_by] ?? a.bounded_by}` : ""}
          </p>
          {a.sessions.map((s) => (
            <div key={s.asm_id} class="result">
              <a href={hitHref(s.asm_id, a)}>
                <span class={`chip chip-${s.agent}`}>{s.agent}</span> {s.title ?? s.asm_id.slice(0, 8)}
              </a>{" "}
              <span class="muted">{s.matches} {s.matches === 1 ? "match" : "matches"}</span>
              {s.snippets.slice(0, 3).map((snippet, i) => (
                <div key={i} class="snippet">
                  <span class="muted">{snippet.where}:</span> {a.deep
                    ? <a href={hitHref(s.asm_id, a, snippet.ts ?? null)}>{snippet.text}</a>
                    : snippet.text}
                </div>
              ))}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
