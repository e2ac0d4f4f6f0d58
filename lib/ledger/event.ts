/**
 * The hook event file, as the ledger reads it (docs/runbook.md section 3): the boundary every hook event crosses
 * (the drain, and `asm rebuild`'s replay). Parsing is strict about what the ledger keys on (ids, agent, event,
 * ts) and lenient about the rest: anything missing is null, and a value outside its range (`bounds.ts`) is
 * dropped to null and named, the rest of the event kept.
 * @module
 */
import { isoAt, toIso } from "./time.ts";
import {
  bootIdProblem,
  hookMsProblem,
  idProblem,
  launchTokenProblem,
  MAX_ANCESTORS,
  NAME_MAX_CHARS,
  NOTE_MAX_CHARS,
  pathProblem,
  pidProblem,
  shown,
  textProblem,
  ticksProblem,
  timeProblem,
  wordProblem,
} from "./bounds.ts";
import { type Clock, errorText, isRecord } from "../lang/mod.ts";

/** One ancestor of the hook process, nearest first. */
export interface Ancestor {
  pid: number;
  exe: string | null;
  created: number | null;
}

/** A hook event, validated. */
export interface HookEvent {
  v: number;
  event_id: string;
  asm_id: string;
  agent: string;
  event: string;
  raw_event: string | null;
  ts: string;
  agent_session_id: string;
  transcript_path: string | null;
  cwd: string | null;
  source: string | null;
  launch_token: string | null;
  session_name: string | null;
  agent_pid: number | null;
  agent_proc_start: number | null;
  /**
   * The process the session is judged by (the hook's nearest ancestor that is not the one-off command the agent
   * ran it through), with its start ticks: when no process is proven to be the agent (`agent_pid` null), its
   * death ends the session. Never a proof that it is the agent: END proves that again. Absent in events written
   * before the hook recorded it, and optional so that events built in code need not name it.
   */
  judged_pid?: number | null;
  judged_proc_start?: number | null;
  boot_id: string | null;
  ancestors: Ancestor[];
  nested: boolean;
  entrypoint: string | null;
  pid_shared: boolean;
  /**
   * On SessionStart, which standing rules files the hook refused and why (sentences joined with "; "); null when
   * none was refused, on every other event, and in event files written before the hook said so. Optional so that
   * events built in code need not name it.
   */
  rules_skipped?: string | null;
  hook_ms: number | null;
  payload: unknown;
  /**
   * The values the boundary dropped and why, by key (absent when none was): stored with the event as the
   * evidence of what its file said, and named in the drain's one log line.
   */
  dropped?: Record<string, string>;
}

/** Why an event file could not be read as an event. */
export class BadEventError extends Error {
  override name = "BadEventError";
}

/** Options of {@link parseEvent}. */
export interface ParseOptions {
  /** the clock the timestamp window is judged against (default: Date.now) */
  now?: Clock;
}

/** A key is absent or null: what the hook could not compute, never a dropped value. */
function absent(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/** Digits only are read as a number too (an older writer quoted them); anything else is kept as it came. */
function numeric(value: unknown): unknown {
  return typeof value === "string" && /^\d{1,20}$/.test(value) ? Number(value) : value;
}

/** Why `value` is not a format version (the hook writes 1), or null. */
function formatProblem(value: unknown): string | null {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 1000
    ? null
    : `${shown(value)} is not a format version`;
}

/** The values of one file, each checked; what is out of range is noted in `dropped` and read as null. */
class Checked {
  readonly dropped: Record<string, string> = {};
  constructor(readonly raw: Record<string, unknown>) {}

  /** `raw[key]` when `problem` finds nothing wrong with it; null (and noted) when it does. */
  take<T>(key: string, problem: (value: unknown) => string | null, value: unknown = this.raw[key]): T | null {
    if (absent(value)) return null;
    const why = problem(value);
    if (why === null) return value as T;
    this.dropped[key] = why;
    return null;
  }
}

/** The ancestors the hook listed, each entry checked; at most {@link MAX_ANCESTORS}. */
function ancestorsOf(checked: Checked): Ancestor[] {
  const raw = checked.raw.ancestors;
  if (absent(raw)) return [];
  if (!Array.isArray(raw)) {
    checked.dropped.ancestors = `${shown(raw)} is not a list`;
    return [];
  }
  const notes: string[] = [];
  if (raw.length > MAX_ANCESTORS) {
    notes.push(
      `${raw.length} entries, more than the hook writes (${MAX_ANCESTORS}): the first ${MAX_ANCESTORS} kept`,
    );
  }
  const out: Ancestor[] = [];
  raw.slice(0, MAX_ANCESTORS).forEach((entry, i) => {
    const o = isRecord(entry) ? entry : {};
    const pid = numeric(o.pid);
    const pidWhy = pidProblem(pid);
    if (pidWhy !== null) {
      notes.push(
        `entry ${i + 1} left out: ${isRecord(entry) ? pidWhy : `${shown(entry)} is not an ancestor`}`,
      );
      return;
    }
    const exeWhy = absent(o.exe) ? null : pathProblem(o.exe);
    const created = numeric(o.created);
    const createdWhy = absent(created) ? null : ticksProblem(created);
    if (exeWhy !== null) notes.push(`entry ${i + 1} exe: ${exeWhy}`);
    if (createdWhy !== null) notes.push(`entry ${i + 1} created: ${createdWhy}`);
    out.push({
      pid: pid as number,
      exe: absent(o.exe) || exeWhy !== null ? null : o.exe as string,
      created: absent(created) || createdWhy !== null ? null : created as number,
    });
  });
  if (notes.length > 0) checked.dropped.ancestors = notes.join("; ");
  return out;
}

/**
 * Parses the text of an event file. Strict about what the ledger keys on: an id, the agent or the event name
 * that is missing, empty or out of range (an id of a megabyte is not an id; cut short, it would be another one)
 * throws BadEventError with a sentence naming it. Every other value out of range (docs/runbook.md section 3,
 * `bounds.ts`) is read as null and named with its reason in the event's `dropped`, the rest of the event kept. A
 * `ts` outside the window (before 2000, or more than a day after the clock) is replaced by the time it was read:
 * the ledger orders by it and a session's last_seen follows it, and the hook wrote the file moments before.
 */
export function parseEvent(text: string, options: ParseOptions = {}): HookEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new BadEventError(`not JSON: ${errorText(err)}`);
  }
  if (!isRecord(raw)) throw new BadEventError("not a JSON object");
  const r = raw;
  const keys = [
    ["event_id", idProblem],
    ["asm_id", idProblem],
    ["agent", wordProblem],
    ["event", wordProblem],
    ["agent_session_id", idProblem],
  ] as const;
  for (const [key, problem] of keys) {
    if (typeof r[key] !== "string" || r[key] === "") throw new BadEventError(`"${key}" is missing or empty`);
    const why = problem(r[key]);
    if (why !== null) throw new BadEventError(`"${key}" is out of range: ${why}`);
  }
  let ts = toIso(r.ts);
  if (!ts) throw new BadEventError(`"ts" is not a timestamp: ${shown(r.ts)}`);
  const nowMs = (options.now ?? Date.now)();
  const checked = new Checked(r);
  const tsWhy = timeProblem(ts, nowMs);
  if (tsWhy !== null) {
    checked.dropped.ts = `${tsWhy}; the time the event was read is used`;
    ts = isoAt(nowMs);
  }
  const v = checked.take<number>("v", formatProblem, numeric(r.v));
  const event: HookEvent = {
    v: v ?? 1,
    event_id: r.event_id as string,
    asm_id: r.asm_id as string,
    agent: r.agent as string,
    event: r.event as string,
    raw_event: checked.take("raw_event", wordProblem),
    ts,
    agent_session_id: r.agent_session_id as string,
    transcript_path: checked.take("transcript_path", pathProblem),
    cwd: checked.take("cwd", pathProblem),
    source: checked.take("source", wordProblem),
    launch_token: checked.take("launch_token", launchTokenProblem),
    session_name: checked.take("session_name", (x) => textProblem(x, NAME_MAX_CHARS)),
    agent_pid: checked.take("agent_pid", pidProblem, numeric(r.agent_pid)),
    agent_proc_start: checked.take("agent_proc_start", ticksProblem, numeric(r.agent_proc_start)),
    judged_pid: checked.take("judged_pid", pidProblem, numeric(r.judged_pid)),
    judged_proc_start: checked.take("judged_proc_start", ticksProblem, numeric(r.judged_proc_start)),
    boot_id: checked.take("boot_id", bootIdProblem),
    ancestors: ancestorsOf(checked),
    nested: r.nested === true,
    entrypoint: checked.take("entrypoint", wordProblem),
    pid_shared: r.pid_shared === true,
    rules_skipped: checked.take("rules_skipped", (x) => textProblem(x, NOTE_MAX_CHARS)),
    hook_ms: checked.take("hook_ms", hookMsProblem),
    payload: r.payload ?? null,
  };
  if (Object.keys(checked.dropped).length > 0) event.dropped = checked.dropped;
  return event;
}

/**
 * Why an event built anywhere (not only read from a file) must not reach the ledger: a process key or a boot id
 * outside the kernel's ranges, or an id outside its bounds; null when it may. The ledger asks it before applying
 * an event, so no door can store a run no read could load.
 */
export function eventRangeProblem(event: HookEvent): string | null {
  const checks: [string, unknown, (value: unknown) => string | null][] = [
    ["event_id", event.event_id, idProblem],
    ["agent_session_id", event.agent_session_id, idProblem],
    ["agent", event.agent, wordProblem],
    ["agent_pid", event.agent_pid, pidProblem],
    ["agent_proc_start", event.agent_proc_start, ticksProblem],
    ["judged_pid", event.judged_pid ?? null, pidProblem],
    ["judged_proc_start", event.judged_proc_start ?? null, ticksProblem],
    ["boot_id", event.boot_id, bootIdProblem],
  ];
  for (const [key, value, problem] of checks) {
    if (value === null) continue;
    const why = problem(value);
    if (why !== null) return `${key}: ${why}`;
  }
  return null;
}
