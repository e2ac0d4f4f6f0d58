/**
 * The usage row's words, computed at paint time from absolute facts: a countdown is recomputed on every paint,
 * never cached (a cached "resets in 2 h" is how a page ends up saying "25%, resets now" the next morning).
 * @module
 */
import type { UsageReading } from "../usage/mod.ts";

/** One window as the row draws it. */
export interface WindowView {
  name: string;
  /** 0-100 for the bar; null: no figure */
  percent: number | null;
  /** the bar's colour: calm under 70 %, warn to 90 %, near the limit from 90 % */
  fill: "calm" | "warn" | "near" | "none";
  text: string;
  reset: string;
}

/** The colour of a fill (percent used). */
export function fillOf(percent: number | null): WindowView["fill"] {
  if (percent === null) return "none";
  return percent >= 90 ? "near" : percent >= 70 ? "warn" : "calm";
}

/** "resets in 2 h 05 min" from an absolute reset time at `now` (epoch ms); "" when unknown. */
export function resetText(resetsAt: string | null, now: number): string {
  if (!resetsAt) return "reset unknown";
  const s = Math.round((Date.parse(resetsAt) - now) / 1000);
  // the window whose reset passed no longer exists: the reading rule already made it 0 / unknown at the server
  if (s <= 0) return "resetting now";
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `resets in ${d} d ${h} h`;
  if (h > 0) return `resets in ${h} h ${String(m).padStart(2, "0")} min`;
  return `resets in ${Math.max(1, m)} min`;
}

/** The windows of a reading, at `now`. */
export function windowViews(reading: UsageReading, now: number): WindowView[] {
  return reading.windows.map((w) => ({
    name: w.name,
    percent: w.percent_used === null ? null : Math.max(0, Math.min(100, w.percent_used)),
    fill: fillOf(w.percent_used),
    text: w.percent_used === null ? "no figure" : `${Math.round(w.percent_used)}%`,
    reset: resetText(w.resets_at, now),
  }));
}

/** The note beside an agent's windows: why it is not a fresh reading, with the age of what is shown. */
export function readingNote(reading: UsageReading): string {
  const parts: string[] = [];
  if (reading.label) parts.push(reading.label);
  if (reading.state === "stale" && reading.age !== null) {
    parts.push(`stale, ${Math.round(reading.age / 60)} min old`);
  }
  if (reading.state !== "ok" && reading.message) parts.push(reading.message);
  return parts.join("; ");
}

/**
 * A note as the row shows it, and all of it: file paths (in parentheses) go to the details, and an ISO time reads
 * as a person's time ("1 Dec 08:00"). The short form fits the sticky row; the detail is one click away.
 */
export function noteParts(note: string): { short: string; detail: string | null } {
  if (!note) return { short: "", detail: null };
  const human = note.replace(
    /\b(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g,
    (_, _y, m, d, hh, mm) => `${Number(d)} ${MONTHS[Number(m) - 1]} ${hh}:${mm}`,
  );
  const short = human.replace(/\s*\([^()]*\/[^()]*\)/g, "").replace(/\s+;/g, ";").trim();
  return { short, detail: short === human ? null : human };
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
