/**
 * Timestamps: ISO-8601 UTC with milliseconds everywhere in the database and the API, no exceptions.
 * @module
 */

/** `2026-11-29T22:13:07.621Z` for the given epoch milliseconds (default now). */
export function isoAt(epochMs: number = Date.now()): string {
  return new Date(epochMs).toISOString();
}

/** True when `value` is exactly the ledger's timestamp form. */
export function isIsoUtcMs(value: unknown): value is string {
  return typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value) &&
    !Number.isNaN(Date.parse(value));
}

/** The most milliseconds a Date holds either side of the epoch (a larger number is no moment at all). */
const DATE_LIMIT_MS = 8.64e15;

/**
 * Normalises any parseable timestamp to the ledger's form; null when it cannot be parsed, or names no moment a
 * Date can hold (a number of 1e20 ms would make `toISOString` throw).
 */
export function toIso(value: unknown): string | null {
  if (typeof value === "number") {
    return Number.isFinite(value) && Math.abs(value) <= DATE_LIMIT_MS ? isoAt(value) : null;
  }
  if (typeof value !== "string" || value === "") return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : isoAt(ms);
}
