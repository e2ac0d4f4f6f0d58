/**
 * The top bar's one signal per agent: the most urgent activity among that agent's live sessions, naming the
 * session it comes from (agent-island-state-model: each provider's sessions are judged separately, then the most
 * urgent one speaks for it). Pure.
 * @module
 */

/** A live session as the glance needs it. */
export interface GlanceSession {
  asm_id: string;
  agent: string;
  title: string;
  status: string;
  activity: string | null;
  activity_reason?: string | null;
}

/** One agent's signal. */
export interface AgentGlance {
  agent: string;
  /** the activity word, or "" when the agent has no live session */
  word: string;
  reason: string | null;
  asm_id: string | null;
  title: string | null;
  /** how many live sessions the agent has */
  live: number;
}

/**
 * Most urgent first. A failed turn waits on the person like a question does, but says less about what to do, so it
 * ranks just below; a retry is the agent's own business until it gives up. Words not listed (Shell, Starting, an
 * unknown word) rank below Idle.
 */
export const URGENCY = [
  "Waiting on you",
  "Turn failed",
  "Needs attention",
  "Retrying",
  "Working",
  "Idle",
] as const;

/** The words that wait on the person: the page title and favicon badge count them. */
const WAITS_ON_PERSON: ReadonlySet<string> = new Set(["Waiting on you", "Turn failed"]);

function rank(word: string | null): number {
  const i = URGENCY.indexOf((word ?? "") as typeof URGENCY[number]);
  return i < 0 ? URGENCY.length : i;
}

/** One glance per agent in `agents` (in that order), from the live sessions. Ties go to the first in id order. */
export function glance(sessions: GlanceSession[], agents: string[]): AgentGlance[] {
  return agents.map((agent) => {
    const mine = sessions
      .filter((s) => s.agent === agent && (s.status === "live" || s.status === "starting"))
      .sort((a, b) => rank(a.activity) - rank(b.activity) || a.asm_id.localeCompare(b.asm_id));
    const top = mine[0];
    return {
      agent,
      word: top ? (top.activity ?? (top.status === "starting" ? "Starting" : "Live")) : "",
      reason: top?.activity_reason ?? null,
      asm_id: top?.asm_id ?? null,
      title: top?.title ?? null,
      live: mine.length,
    };
  });
}

/** The count the page title and favicon badge show: sessions waiting on the person (a failed turn included). */
export function waitingCount(sessions: GlanceSession[]): number {
  return sessions.filter((s) =>
    (s.status === "live" || s.status === "starting") && WAITS_ON_PERSON.has(s.activity ?? "")
  )
    .length;
}

/** The words of one agent's glance: its most urgent activity, why, and the session it names. */
export function glanceText(g: AgentGlance): string {
  if (!g.word) return "no live session";
  const more = g.live > 1 ? ` (+${g.live - 1} more)` : "";
  return `${g.word}${g.reason ? ` (${g.reason})` : ""}: ${g.title ?? ""}${more}`;
}
