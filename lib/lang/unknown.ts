/**
 * Narrowing what arrives as `unknown`: a value parsed from JSON or TOML, and a value a `catch` caught (anything can
 * be thrown, not only an Error).
 * @module
 */

/** True for a plain object: not null, not an array (what a JSON or TOML table parses to). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The message of a caught value, as a plain string: an Error's message, anything else as `String` writes it. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
