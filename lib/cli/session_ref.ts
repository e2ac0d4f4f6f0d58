/**
 * A session as a person names it on the command line: its asm id, a unique prefix of it (what `./asm sessions`
 * shows), or the agent's own session id or a unique prefix of that. Pure: the caller reads the sessions (the
 * ledger, read-only) and carries the answer out. The asm id wins: a prefix that fits exactly one asm id names
 * that session even when it also begins some agent's own id, so the short ids `./asm sessions` prints always
 * resolve.
 * @module
 */

/** What the resolution needs of a session row. */
export interface SessionRef {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  title?: string | null;
}

/** The fewest characters a prefix may have: one or two would name a session by accident. */
export const MIN_PREFIX = 4;

/** The fewest characters `./asm sessions` shows of an id. */
export const SHORT_ID_LENGTH = 8;

/** How many candidates an ambiguous prefix lists. */
export const MAX_CANDIDATES = 5;

/** What a reference names. */
export type Resolution =
  | { kind: "found"; session: SessionRef }
  | { kind: "ambiguous"; candidates: SessionRef[] }
  | { kind: "unknown" }
  | { kind: "too short" };

function oneOrMany(matches: SessionRef[]): Resolution | null {
  if (matches.length === 1) return { kind: "found", session: matches[0] };
  return matches.length > 1 ? { kind: "ambiguous", candidates: matches } : null;
}

/** Which session `ref` names among `sessions`. */
export function resolveSession(ref: string, sessions: readonly SessionRef[]): Resolution {
  const exact = sessions.find((s) => s.asm_id === ref);
  if (exact) return { kind: "found", session: exact };
  const own = oneOrMany(sessions.filter((s) => s.agent_session_id === ref));
  if (own) return own;
  if (ref.length < MIN_PREFIX) return { kind: "too short" };
  return oneOrMany(sessions.filter((s) => s.asm_id.startsWith(ref))) ??
    oneOrMany(sessions.filter((s) => s.agent_session_id.startsWith(ref))) ??
    { kind: "unknown" };
}

function candidate(s: SessionRef): string {
  return `${s.asm_id} (${s.agent}${s.title ? `, ${JSON.stringify(s.title)}` : ""})`;
}

/** The sentence that refuses a reference naming no single session; null when it names one. */
export function resolutionProblem(ref: string, resolution: Resolution): string | null {
  switch (resolution.kind) {
    case "found":
      return null;
    case "too short":
      return `"${ref}" is too short to name a session; give at least ${MIN_PREFIX} characters of its id`;
    case "unknown":
      return `no session has an id that is or begins with "${ref}"; asm sessions --all lists them`;
    case "ambiguous": {
      const { candidates } = resolution;
      const more = candidates.length - MAX_CANDIDATES;
      return `"${ref}" begins the ids of ${candidates.length} sessions: ` +
        candidates.slice(0, MAX_CANDIDATES).map(candidate).join("; ") +
        (more > 0 ? `; and ${more} more` : "") + `; give more of the id`;
    }
  }
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * The shortest prefix of each id that no other id shares, at least `min` characters: what `./asm sessions`
 * prints, and what {@link resolveSession} resolves back to the same id.
 */
export function shortIds(ids: readonly string[], min = SHORT_ID_LENGTH): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const out = new Map<string, string>();
  sorted.forEach((id, i) => {
    const before = i > 0 ? commonPrefix(id, sorted[i - 1]) : 0;
    const after = i + 1 < sorted.length ? commonPrefix(id, sorted[i + 1]) : 0;
    out.set(id, id.slice(0, Math.max(min, before + 1, after + 1)));
  });
  return out;
}
