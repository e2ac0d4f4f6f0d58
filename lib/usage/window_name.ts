/**
 * Names and numbers readers share when they turn an endpoint's fields into windows.
 * @module
 */

/** `5-hour`, `weekly`, `daily`, `N-hour`, `N-day`, `N-minute` for a window length in seconds; null when unknown. */
export function windowNameForSeconds(seconds: number | null): string | null {
  if (seconds === null || !Number.isFinite(seconds) || seconds <= 0) return null;
  if (seconds === 7 * 86_400) return "weekly";
  if (seconds === 86_400) return "daily";
  if (seconds % 86_400 === 0) return `${seconds / 86_400}-day`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600}-hour`;
  if (seconds % 60 === 0) return `${seconds / 60}-minute`;
  return `${seconds}-second`;
}

/** An epoch-seconds instant as ISO-8601 UTC ms; null for anything that is not a finite number. */
export function isoFromEpochSeconds(value: unknown): string | null {
  return typeof value === "number" && Number.isFinite(value) ? new Date(value * 1000).toISOString() : null;
}

/** Any parseable timestamp (`2026-01-02T19:59:59.600956+00:00`) as ISO-8601 UTC ms; null otherwise. */
export function isoFromText(value: unknown): string | null {
  if (typeof value !== "string" || value === "") return null;
  // Date.parse stops at milliseconds; drop the extra fraction digits some endpoints send
  const ms = Date.parse(value.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** A finite number, else null. */
export function finite(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}
