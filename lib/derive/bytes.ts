/**
 * Byte-level helpers for the one pass over a transcript: look at a line's first bytes to learn what it is, and
 * only decode and JSON.parse the lines that carry a fact. Most of a transcript's bytes (attachments, request
 * dumps, tool output) are skipped on their first few hundred bytes and never become a string.
 * @module
 */
import { isRecord } from "../lang/mod.ts";

const utf8 = new TextDecoder("utf-8");

/** How many bytes of a line `headOf` looks at by default. */
export const HEAD_BYTES = 320;

/**
 * The first `n` bytes of the line `[start, end)` as text. A cut through a multi-byte character decodes to U+FFFD,
 * which is harmless: heads are only searched for ASCII keys.
 */
export function headOf(buf: Uint8Array, start: number, end: number, n = HEAD_BYTES): string {
  return utf8.decode(buf.subarray(start, Math.min(end, start + n)));
}

/** The whole line `[start, end)` as text (invalid UTF-8 becomes U+FFFD instead of failing). */
export function textOf(buf: Uint8Array, start: number, end: number): string {
  return utf8.decode(buf.subarray(start, end));
}

/** The bytes of an ASCII text (for matching a line's bytes without decoding it). */
export function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** True when `buf[at, at + pattern.length)` holds `pattern` and lies before `end`. */
export function bytesAt(buf: Uint8Array, at: number, end: number, pattern: Uint8Array): boolean {
  if (at + pattern.length > end) return false;
  for (let i = 0; i < pattern.length; i++) if (buf[at + i] !== pattern[i]) return false;
  return true;
}

/** True when one of `patterns` lies at `at` (see {@link bytesAt}). */
export function anyBytesAt(
  buf: Uint8Array,
  at: number,
  end: number,
  patterns: readonly Uint8Array[],
): boolean {
  for (const pattern of patterns) if (bytesAt(buf, at, end, pattern)) return true;
  return false;
}

/** A JSON object, or undefined for anything else (not JSON, an array, a number...). Never throws. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isRecord(value) ? value : undefined;
}

/** The line `[start, end)` parsed as a JSON object, or undefined. */
export function parseLine(buf: Uint8Array, start: number, end: number): Record<string, unknown> | undefined {
  return parseObject(textOf(buf, start, end));
}

/** The string at `key`, or null (an empty string is null too: it says nothing). */
export function str(record: Record<string, unknown> | undefined, key: string): string | null {
  const value = record?.[key];
  return typeof value === "string" && value !== "" ? value : null;
}

/** The finite number at `key`, or null. */
export function num(record: Record<string, unknown> | undefined, key: string): number | null {
  const value = record?.[key];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The object at `key`, or undefined. */
export function obj(
  record: Record<string, unknown> | undefined,
  key: string,
): Record<string, unknown> | undefined {
  const value = record?.[key];
  return isRecord(value) ? value : undefined;
}

/** The value of the string key `key` in a head (`"key":"value"`), or null. Escaped quotes end the value early. */
export function headValue(head: string, key: string): string | null {
  const marker = `"${key}":"`;
  const at = head.indexOf(marker);
  if (at < 0) return null;
  const from = at + marker.length;
  const to = head.indexOf('"', from);
  return to < 0 ? null : head.slice(from, to);
}

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A timestamp in the ledger's form (ISO-8601 UTC with milliseconds), or null. The agents already write that form;
 * anything else parseable is normalised, anything unparseable is null.
 */
export function isoOf(value: unknown): string | null {
  if (typeof value === "string") {
    if (ISO_MS.test(value)) return value;
    if (value === "") return null;
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : new Date(ms).toISOString();
  }
  if (typeof value === "number" && Number.isFinite(value)) {
    // seconds or milliseconds since the epoch: anything below 1e11 is seconds (that is the year 5138 in ms)
    const ms = value < 1e11 ? value * 1000 : value;
    const date = new Date(ms);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  return null;
}

/** The UTC day (YYYY-MM-DD) of an ISO timestamp in the ledger's form. */
export function utcDay(iso: string): string {
  return iso.slice(0, 10);
}

// an absolute path in free text (a shell command): starts at a word boundary with "/", stops at whitespace,
// quotes and shell punctuation
const ABSOLUTE_PATH = /(?:^|[\s'"=(:])(\/[^\s'"`;|&<>()$*?]+)/g;

/** Absolute paths named in free text (a shell command), at most `limit`. */
export function absolutePaths(text: string, limit = 20): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(ABSOLUTE_PATH)) {
    out.push(m[1]);
    if (out.length >= limit) break;
  }
  return out;
}

/** A text cut to at most `max` characters (first messages and titles are for a list, not for reading). */
export function clip(text: string, max = 500): string {
  return text.length <= max ? text : text.slice(0, max);
}
