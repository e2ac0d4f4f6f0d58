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

/** Normalises any parseable timestamp to the ledger's form; null when it cannot be parsed. */
export function toIso(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return isoAt(value);
  if (typeof value !== "string" || value === "") return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : isoAt(ms);
}
