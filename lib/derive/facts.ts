/**
 * Building {@link SessionFacts} line by line: the small, shared verbs every agent's fold uses (a typed turn on a
 * day, a folder named, a skill run, a moment seen), and merging the facts of several files of one session.
 * Pure: no clock, no I/O.
 * @module
 */
import type { SessionFacts } from "./transcript_types.ts";
import { clip, utcDay } from "./bytes.ts";

export type { SessionFacts };

/** Most distinct folders one session keeps (a runaway transcript must not grow the state without bound). */
export const MAX_FOLDERS = 200;
/** Most distinct skills one session keeps. */
export const MAX_SKILLS = 100;
/** Most distinct unknown line types one session keeps (the rest are still skipped, only not named). */
export const MAX_UNKNOWN_TYPES = 20;

/** Facts of a session nothing has been read of yet. */
export function newFacts(sessionId: string | null = null): SessionFacts {
  return {
    session_id: sessionId,
    parent_session_id: null,
    source: null,
    thread_source: null,
    cwd: null,
    started_at: null,
    last_seen: null,
    turns: 0,
    days: {},
    first_message: null,
    name: null,
    title: null,
    summary: null,
    model: null,
    context_tokens: null,
    context_window: null,
    agent_version: null,
    folders: {},
    skills: {},
    cleared_at: null,
    cleared_from_session_id: null,
    bad_lines: 0,
    unknown_types: {},
  };
}

/** Widens the session's time span with a moment seen in the transcript (ISO-8601 UTC ms). */
export function seenAt(facts: SessionFacts, iso: string | null): void {
  if (iso === null) return;
  if (facts.started_at === null || iso < facts.started_at) facts.started_at = iso;
  if (facts.last_seen === null || iso > facts.last_seen) facts.last_seen = iso;
}

/**
 * One prompt the person typed, at `iso` (null when the line has no time: it counts, but on no day). The first
 * one becomes the first message.
 */
export function addTurn(facts: SessionFacts, iso: string | null, text: string | null): void {
  facts.turns++;
  if (iso !== null) {
    const day = utcDay(iso);
    facts.days[day] = (facts.days[day] ?? 0) + 1;
  }
  if (facts.first_message === null && text !== null && text.trim() !== "") {
    facts.first_message = clip(text.trim());
  }
}

/** A folder (or a file inside one) the transcript names. Only absolute paths count; trailing slashes go. */
export function mentionPath(facts: SessionFacts, path: unknown): void {
  if (typeof path !== "string" || !path.startsWith("/") || path.length > 4096) return;
  const clean = path.length > 1 ? path.replace(/\/+$/, "") : path;
  if (clean === "" || clean.includes("\0")) return;
  if (!(clean in facts.folders) && Object.keys(facts.folders).length >= MAX_FOLDERS) return;
  facts.folders[clean] = (facts.folders[clean] ?? 0) + 1;
}

/** One run of a skill, as the harness recorded it. */
export function addSkill(facts: SessionFacts, name: string): void {
  const skill = name.trim();
  if (skill === "" || skill.length > 200) return;
  if (!(skill in facts.skills) && Object.keys(facts.skills).length >= MAX_SKILLS) return;
  facts.skills[skill] = (facts.skills[skill] ?? 0) + 1;
}

/**
 * A line of a type the reader does not know at all (a record of a version it was not written for): skipped,
 * and counted by type so the import logs it once per file. Types the reader ignores on purpose never come here.
 */
export function skipUnknown(facts: SessionFacts, type: string): void {
  const name = type.length > 80 ? `${type.slice(0, 80)}…` : type;
  // a state saved before this field existed resumes without it
  const known = facts.unknown_types ??= {};
  if (!(name in known) && Object.keys(known).length >= MAX_UNKNOWN_TYPES) return;
  known[name] = (known[name] ?? 0) + 1;
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/**
 * The facts of one session kept in several files, as if they were one file: counts add up, the time span
 * widens, and the latest file (by last_seen) speaks for model, context, titles and version.
 */
export function mergeFacts(list: SessionFacts[]): SessionFacts {
  if (list.length === 1) return list[0];
  const byTime = [...list].sort((a, b) => (a.last_seen ?? "").localeCompare(b.last_seen ?? ""));
  const out = newFacts(list.find((f) => f.session_id !== null)?.session_id ?? null);
  for (const f of byTime) {
    out.turns += f.turns;
    addCounts(out.days, f.days);
    addCounts(out.folders, f.folders);
    addCounts(out.skills, f.skills);
    out.bad_lines += f.bad_lines;
    addCounts(out.unknown_types, f.unknown_types ?? {});
    seenAt(out, f.started_at);
    seenAt(out, f.last_seen);
    for (
      const key of [
        "parent_session_id",
        "source",
        "thread_source",
        "cwd",
        "name",
        "title",
        "summary",
        "model",
        "context_tokens",
        "context_window",
        "agent_version",
        "cleared_from_session_id",
      ] as const
    ) {
      if (f[key] !== null) (out as unknown as Record<string, unknown>)[key] = f[key];
    }
  }
  const first = [...list].filter((f) => f.first_message !== null)
    .sort((a, b) => (a.started_at ?? "").localeCompare(b.started_at ?? ""))[0];
  out.first_message = first?.first_message ?? null;
  const cleared = list.filter((f) => f.cleared_at !== null).map((f) => f.cleared_at!).sort()[0];
  out.cleared_at = cleared ?? null;
  return out;
}
