/**
 * The ranges every value entering the ledger must lie in, decided once (docs/runbook.md sections 3 and 6, and
 * docs/decisions). Event files and transcripts are hostile, and any bug in any agent's payload can write one: a
 * single `agent_pid` of 2^62 stored in `runs` made every read of that row throw (node:sqlite refuses an integer
 * beyond 2^53), and with it the poll, the launches task, the board's sweep and the session's page, for good.
 *
 * Each check takes a value as it came and answers why it is out of range (a short phrase for the log line), or
 * null when it is in range. Pure: the clock comes in as epoch milliseconds.
 * @module
 */

/** The largest pid Linux can give: PID_MAX_LIMIT (4 x 1024 x 1024 on 64-bit), above any `kernel.pid_max`. */
export const PID_MAX = 4_194_304;

/**
 * The largest start time (`/proc/<pid>/stat` field 22, clock ticks since boot) the ledger keeps. The kernel's
 * field is 64 bits; 2^53 ticks at 100 Hz is 2.8 million years of uptime, and anything larger cannot even be read
 * back as a number.
 */
export const TICKS_MAX = Number.MAX_SAFE_INTEGER;

/** The earliest moment the ledger believes: no agent (nor asm) ran before it; a clock reading 1970 was not set. */
export const EARLIEST_TS = "2000-01-01T00:00:00.000Z";

/**
 * How far after the clock a moment may lie: the hook, the agents and the server share one machine and one clock,
 * so a day is room enough for a clock stepped back by NTP and a writer that put local time in a UTC field (at most
 * 14 h). A later moment would pin `last_seen` at the top of the list, and make every late event look newer than
 * the session's end.
 */
export const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

/** A path's limit: PATH_MAX, 4096 bytes (UTF-8) on Linux. */
export const PATH_MAX_BYTES = 4096;

/** The longest id (event id, agent session id, card id): the agents' are UUIDs (36), Codex's rollout ids less. */
export const ID_MAX_CHARS = 256;

/** The longest word (agent and event names, sources, entrypoints, models, versions). */
export const WORD_MAX_CHARS = 128;

/** The longest session name (a launch's is at most 200 characters). */
export const NAME_MAX_CHARS = 256;

/** The longest free text kept for a list or a page (a session's name, title or summary). */
export const TEXT_MAX_CHARS = 4096;

/** The longest note (the hook's `rules_skipped`: a few sentences, each naming a path). */
export const NOTE_MAX_CHARS = 16_384;

/** The most ancestors the hook writes. */
export const MAX_ANCESTORS = 8;

/** The longest a hook can have taken: anything beyond the timestamps' own window measures no hook. */
export const HOOK_MS_MAX = FUTURE_SLACK_MS;

/** The largest token count (context used, context window): a thousand times the largest window of any agent. */
export const TOKENS_MAX = 1_000_000_000;

/** The kernel's boot id is a UUID; asm only compares it, so it keeps 1 to 64 letters, digits and dashes. */
const BOOT_ID = /^[0-9A-Za-z-]{1,64}$/;

/** A launch token as lib/launch `token.ts` mints it (`asmlt_` and base36), with room to spare. */
const LAUNCH_TOKEN = /^asmlt_[0-9a-z]{1,64}$/;

// C0 controls and DEL: never part of an id or a word (a path may hold them, the kernel allows it)
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const encoder = new TextEncoder();

/** A value as a log line shows it: short, whatever it is (a megabyte string is named by its length). */
export function shown(value: unknown): string {
  if (typeof value === "string") {
    return value.length > 40 ? `a text of ${value.length} characters` : JSON.stringify(value);
  }
  if (typeof value === "bigint") return `${value}`;
  // 2^62 as JavaScript prints it is 4611686018427388000: the digits of the number read are these
  if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return Math.abs(value) < 1e21 ? `${BigInt(value)}` : `${value}`;
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

/** Why `value` is not a pid the kernel can give, or null. */
export function pidProblem(value: unknown): string | null {
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= PID_MAX) return null;
  return `${shown(value)} is not a pid (1 to ${PID_MAX})`;
}

/** Why `value` is not a process start time in clock ticks, or null. */
export function ticksProblem(value: unknown): string | null {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return null;
  return `${shown(value)} is not a start time in clock ticks (0 to 2^53)`;
}

/** Why `value` is not a boot id, or null. */
export function bootIdProblem(value: unknown): string | null {
  if (typeof value === "string" && BOOT_ID.test(value)) return null;
  return `${shown(value)} is not a boot id (1 to 64 letters, digits and dashes)`;
}

/** Why `value` is not a launch token, or null. */
export function launchTokenProblem(value: unknown): string | null {
  if (typeof value === "string" && LAUNCH_TOKEN.test(value)) return null;
  return `${shown(value)} is not a launch token`;
}

/**
 * Why the moment `iso` (the ledger's form, or anything `Date.parse` reads) lies outside the window the ledger
 * believes: not before {@link EARLIEST_TS}, not more than {@link FUTURE_SLACK_MS} after `nowMs`. Null when inside.
 */
export function timeProblem(iso: string, nowMs: number): string | null {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return `${shown(iso)} is not a timestamp`;
  if (ms < Date.parse(EARLIEST_TS)) return `${iso} is before ${EARLIEST_TS.slice(0, 4)}`;
  if (ms > nowMs + FUTURE_SLACK_MS) return `${iso} is more than a day after the clock`;
  return null;
}

/** Why `value` is not an absolute path the kernel could take, or null. */
export function pathProblem(value: unknown): string | null {
  if (typeof value !== "string") return `${shown(value)} is not a path`;
  if (!value.startsWith("/")) return `${shown(value)} is not an absolute path`;
  if (value.includes("\0")) return `${shown(value)} holds a NUL byte`;
  // a UTF-16 length above the limit already has more bytes than it
  const bytes = value.length > PATH_MAX_BYTES ? value.length : encoder.encode(value).length;
  if (bytes > PATH_MAX_BYTES) return `a path of ${bytes} bytes, more than ${PATH_MAX_BYTES}`;
  return null;
}

/** Why `value` is not an id (at most {@link ID_MAX_CHARS} characters, no control character), or null. */
export function idProblem(value: unknown): string | null {
  return wordLike(value, ID_MAX_CHARS, "an id");
}

/** Why `value` is not a word (at most {@link WORD_MAX_CHARS} characters, no control character), or null. */
export function wordProblem(value: unknown): string | null {
  return wordLike(value, WORD_MAX_CHARS, "a word");
}

function wordLike(value: unknown, max: number, what: string): string | null {
  if (typeof value !== "string" || value === "") return `${shown(value)} is not ${what}`;
  if (value.length > max) return `${shown(value)}, longer than ${what} can be (${max})`;
  if (CONTROL.test(value)) return `${shown(value)} holds a control character`;
  return null;
}

/** Why `value` is not a text of at most `max` characters (any character but NUL), or null. */
export function textProblem(value: unknown, max: number = TEXT_MAX_CHARS): string | null {
  if (typeof value !== "string") return `${shown(value)} is not a text`;
  if (value.length > max) return `${shown(value)}, more than ${max}`;
  if (value.includes("\0")) return `${shown(value)} holds a NUL byte`;
  return null;
}

/** Why `value` is not a count of tokens (0 to {@link TOKENS_MAX}), or null. */
export function tokensProblem(value: unknown): string | null {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= TOKENS_MAX) return null;
  return `${shown(value)} is not a token count (0 to ${TOKENS_MAX})`;
}

/** Why `value` is not a hook's duration in ms (finite, 0 to {@link HOOK_MS_MAX}), or null. */
export function hookMsProblem(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= HOOK_MS_MAX) return null;
  return `${shown(value)} is not a duration in ms (0 to ${HOOK_MS_MAX})`;
}

/**
 * True when a run's process key is one the kernel can give: the TS twin of {@link RUN_IN_RANGE_SQL} (a run
 * outside it names no process, so it is no run: the ledger's readers leave it out).
 */
export function runInRange(run: { pid: unknown; proc_start: unknown }): boolean {
  return pidProblem(run.pid) === null && ticksProblem(run.proc_start) === null;
}

/**
 * {@link runInRange} in SQL, for the `runs` table (optionally through an alias): integers only (SQLite keeps
 * whatever it is given), within the kernel's ranges. Every reader of runs' process keys filters with it, so a row
 * an older asm stored out of range never reaches a number conversion that throws.
 */
export function runInRangeSql(alias = ""): string {
  const col = (name: string) => (alias === "" ? name : `${alias}.${name}`);
  return `(typeof(${col("pid")}) = 'integer' AND ${col("pid")} BETWEEN 1 AND ${PID_MAX}
    AND typeof(${col("proc_start")}) = 'integer' AND ${col("proc_start")} BETWEEN 0 AND ${TICKS_MAX})`;
}

/** {@link runInRangeSql} for the `runs` table without an alias. */
export const RUN_IN_RANGE_SQL: string = runInRangeSql();
