/**
 * The hook event file, as the ledger reads it (docs/runbook.md section 3). Parsing is strict about what the
 * ledger keys on (ids, agent, event, ts) and lenient about the rest: anything missing is null.
 * @module
 */
import { toIso } from "./time.ts";
import { errorText, isRecord } from "../lang/mod.ts";

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
}

/** Why an event file could not be read as an event. */
export class BadEventError extends Error {
  override name = "BadEventError";
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function int(value: unknown): number | null {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^\d+$/.test(value)) return Number(value);
  return null;
}

/** Parses the text of an event file; throws BadEventError with a sentence naming what is wrong. */
export function parseEvent(text: string): HookEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new BadEventError(`not JSON: ${errorText(err)}`);
  }
  if (!isRecord(raw)) throw new BadEventError("not a JSON object");
  const r = raw;
  const required = ["event_id", "asm_id", "agent", "event", "agent_session_id"] as const;
  for (const key of required) {
    if (!str(r[key])) throw new BadEventError(`"${key}" is missing or empty`);
  }
  const ts = toIso(r.ts);
  if (!ts) throw new BadEventError(`"ts" is not a timestamp: ${JSON.stringify(r.ts)}`);
  const ancestors = Array.isArray(r.ancestors)
    ? r.ancestors.flatMap((a) => {
      const pid = int((a as Record<string, unknown>)?.pid);
      if (pid === null) return [];
      const o = a as Record<string, unknown>;
      return [{ pid, exe: str(o.exe), created: int(o.created) }];
    })
    : [];
  return {
    v: int(r.v) ?? 1,
    event_id: r.event_id as string,
    asm_id: r.asm_id as string,
    agent: r.agent as string,
    event: r.event as string,
    raw_event: str(r.raw_event),
    ts,
    agent_session_id: r.agent_session_id as string,
    transcript_path: str(r.transcript_path),
    cwd: str(r.cwd),
    source: str(r.source),
    launch_token: str(r.launch_token),
    session_name: str(r.session_name),
    agent_pid: int(r.agent_pid),
    agent_proc_start: int(r.agent_proc_start),
    boot_id: str(r.boot_id),
    ancestors,
    nested: r.nested === true,
    entrypoint: str(r.entrypoint),
    pid_shared: r.pid_shared === true,
    rules_skipped: str(r.rules_skipped),
    hook_ms: typeof r.hook_ms === "number" ? r.hook_ms : null,
    payload: r.payload ?? null,
  };
}
