/**
 * The words the page shows for stored facts, decided at the last moment: `killed` and `lost` both read ENDED
 * (the tooltip keeps the difference), null context reads "no reading", never 0. Pure; used by the server render
 * and by the browser's live patching, so both always say the same thing.
 * @module
 */

/**
 * The status word and its tooltip. A live session whose process asm cannot prove reads UNSURE with the reason,
 * never LIVE: a status that lies once is worse than none.
 */
export function statusWord(
  status: string,
  endReason: string | null,
  unsureReason: string | null = null,
): { word: string; tip: string } {
  if ((status === "live" || status === "starting") && unsureReason) {
    return { word: "UNSURE", tip: unsureReason };
  }
  switch (status) {
    case "live":
      return { word: "LIVE", tip: "a process of this session is running" };
    case "starting":
      return { word: "STARTING", tip: "launched; waiting for the agent's first sign of life" };
    case "ended":
      return { word: "ENDED", tip: `the agent ended it${endReason ? ` (${endReason})` : ""}` };
    case "killed":
      return { word: "ENDED", tip: "ended from asm (END)" };
    case "lost":
      return { word: "ENDED", tip: "its window went away without saying so (closed, crashed, or a reboot)" };
    default:
      return { word: status.toUpperCase(), tip: `status "${status}"` };
  }
}

/** A token count as a person reads it: 84k, 1.2M. */
export function tokensText(tokens: number): string {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 1_000) return `${Math.round(tokens / 1_000)}k`;
  return String(tokens);
}

/**
 * The Context cell: the share of the model's window in use ("42%"), or the raw count when the window is not
 * known (never a guessed share); null tokens are "no reading", a state and not a zero.
 */
export function contextText(tokens: number | null | undefined, window?: number | null): string {
  if (tokens === null || tokens === undefined) return "no reading";
  if (window) return `${Math.min(999, Math.round((tokens / window) * 100))}%`;
  return tokensText(tokens);
}

/** The Context cell's tooltip: the raw tokens of the window, or why there is no share. */
export function contextTip(tokens: number | null | undefined, window?: number | null): string {
  if (tokens === null || tokens === undefined) return "no context reading yet";
  if (window) return `${tokensText(tokens)} of ${tokensText(window)} tokens in the model's window`;
  return `${tokensText(tokens)} tokens; the model's window is not known`;
}

/** The activity word with its reason, for a live session ("" when not live). */
export function activityText(activity: string | null | undefined, reason: string | null | undefined): string {
  if (!activity) return "";
  return reason ? `${activity}: ${reason}` : activity;
}

/** "3 min ago" style age of an ISO timestamp at `now` (epoch ms). */
export function ageText(iso: string | null | undefined, now: number): string {
  if (!iso) return "";
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/**
 * How a state looks across the room: each tone has a colour, a shape and its word (the style in
 * lib/ui/document.tsx). One tone per fact, whatever the agent: the words come from asm's own vocabulary.
 */
export type Tone =
  | "waiting"
  | "failed"
  | "attention"
  | "retrying"
  | "working"
  | "starting"
  | "idle"
  | "shell"
  | "unsure"
  | "live"
  | "ended"
  | "none";

const ACTIVITY_TONES: Record<string, Tone> = {
  "Waiting on you": "waiting",
  "Turn failed": "failed",
  "Needs attention": "attention",
  "Retrying": "retrying",
  "Working": "working",
  "Starting": "starting",
  "Idle": "idle",
  "Shell": "shell",
};

/** The tone of an activity word (`Waiting on you`, ...); "none" for no activity, "live" for one asm does not know. */
export function activityTone(word: string | null | undefined): Tone {
  if (!word) return "none";
  return ACTIVITY_TONES[word] ?? "live";
}

/** The tone of a status word (LIVE, UNSURE, STARTING, ENDED). */
export function statusTone(word: string): Tone {
  return word === "LIVE" ? "live" : word === "UNSURE" ? "unsure" : word === "STARTING" ? "starting" : "ended";
}

/** Most urgent first: the "needs me first" order. Tones not listed come after. */
export const NEEDS_ME_FIRST: readonly Tone[] = [
  "waiting",
  "failed",
  "attention",
  "retrying",
  "unsure",
  "working",
  "starting",
];

/**
 * What a derived cell (turns, project, closeout) says while only the two ends of its session's transcript were read
 * (the cold import's first phase): a word, never a number or a blank that is not yet true.
 */
export const DERIVING = "deriving";
/** The tooltip of a cell that says {@link DERIVING}. */
export const DERIVING_TIP =
  "the whole transcript is still being read; its turns, project and closeout follow when it is";
/** What a row whose visibility waits for its whole transcript says before its title, and the header's count. */
export const STILL_BEING_READ = "still being read";
/** The tooltip of that word and of the count. */
export const STILL_BEING_READ_TIP =
  "shown while its whole transcript is read: a session in which nothing happened is hidden once that is known";

/** The Turns cell: the count, "" when there is none, {@link DERIVING} while the transcript is read whole. */
export function turnsText(turns: number | null | undefined, deriving = false): string {
  if (deriving) return DERIVING;
  return turns === null || turns === undefined ? "" : String(turns);
}

/** The Project cell: the project, "" when there is none, {@link DERIVING} while the transcript is read whole. */
export function projectText(project: string | null | undefined, deriving = false): string {
  return deriving ? DERIVING : project ?? "";
}

/**
 * The Closeout cell: "closed out", "open", nothing when the session never had one to do, {@link DERIVING} while
 * its transcript is read whole.
 */
export function closeoutText(state: string | null | undefined, deriving = false): string {
  if (deriving) return DERIVING;
  return state === "closed" ? "closed out" : state === "open" ? "open" : "";
}

/** Seconds left as a person reads them ("40 s", "3 min", "2 h 5 min"); "--" when not known. */
export function timeLeftText(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "--";
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s} s`;
  // rounded up: "1 min" left is never said of 90 seconds
  const minutes = Math.ceil(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}
