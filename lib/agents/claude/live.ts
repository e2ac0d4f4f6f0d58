/**
 * Claude Code's own running-session records: `~/.claude/sessions/<pid>.json`, written at start, rewritten on every
 * status change (`idle | busy | shell | waiting`, with `waitingFor` when it waits), removed on a clean exit, and
 * LEFT BEHIND by SIGKILL (agents/claude-code.md section 5). An entry counts only when its pid is in the process
 * table with the start ticks it recorded (`procStart`) and in asm's pid namespace. Stale entries are ignored and
 * never deleted: another manager running at the same time may still read them.
 * @module
 */
import { join } from "node:path";
import { homeDir } from "../../config/mod.ts";
import { toIso } from "../../ledger/mod.ts";
import { readTailSync, RefusedFile } from "../../files/mod.ts";
import { claudeProjectsDir } from "./discover.ts";
import { troubleReason, type TurnTrouble, turnTrouble } from "./turn_trouble.ts";
import type {
  ActivityReading,
  ActivityState,
  Env,
  LiveCarrier,
  LiveInfo,
  LiveQuery,
  LiveReport,
  ProcLookup,
} from "../protocol.ts";
import { isRecord } from "../../lang/mod.ts";

/** `$HOME/.claude/sessions`: one `<pid>.json` per running Claude Code process. */
export function claudeSessionsDir(env: Env): string {
  return join(homeDir(env), ".claude", "sessions");
}

/** The fields of one record asm reads; the rest of the file is left alone. */
export interface ClaudeRecord {
  pid: number;
  sessionId: string;
  procStart: number;
  /** `status` as written, or null when absent. */
  status: string | null;
  waitingFor: string | null;
  /** The newest of statusUpdatedAt and updatedAt, ISO; null when neither is a number. */
  updatedAt: string | null;
  /** `pidDomain` (`linux:<machine>:pid:[<namespace inode>]`), or null. */
  pidDomain: string | null;
}

const STATES: Record<string, ActivityState> = {
  busy: "working",
  idle: "idle",
  shell: "shell",
  waiting: "waiting",
};

/** Pure: one record file's text -> the record, or null when it is not a record asm can verify. */
export function parseClaudeRecord(text: string): ClaudeRecord | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // a record being rewritten can be read half-written; the next poll reads it whole
    return null;
  }
  if (!isRecord(raw)) return null;
  const r = raw;
  const pid = Number(r.pid);
  const procStart = Number(r.procStart);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(procStart)) return null;
  if (typeof r.sessionId !== "string" || r.sessionId === "") return null;
  const stamps = [r.statusUpdatedAt, r.updatedAt].filter((v): v is number => typeof v === "number");
  return {
    pid,
    sessionId: r.sessionId,
    procStart,
    status: typeof r.status === "string" ? r.status : null,
    waitingFor: typeof r.waitingFor === "string" ? r.waitingFor : null,
    updatedAt: stamps.length ? toIso(Math.max(...stamps)) : null,
    pidDomain: typeof r.pidDomain === "string" ? r.pidDomain : null,
  };
}

/** Claude's `waitingFor` words -> asm's reasons; other words are kept as Claude wrote them. */
export function waitingReason(waitingFor: string | null): string | null {
  if (waitingFor === null || waitingFor === "") return null;
  if (/permission|sandbox|worker request/i.test(waitingFor)) return "permission";
  if (/input needed|question|elicitation/i.test(waitingFor)) return "question";
  return waitingFor;
}

/** Pure: what a record says the session is doing. An unknown status keeps its raw value and no state. */
export function claudeActivity(record: ClaudeRecord): ActivityReading | null {
  if (record.status === null) return null;
  const state = STATES[record.status] ?? null;
  return {
    state,
    raw: record.status,
    reason: state === "waiting" ? waitingReason(record.waitingFor) : null,
    at: record.updatedAt,
  };
}

/** The `pid:[<inode>]` part of a pid domain or of `/proc/self/ns/pid`, or null. */
export function pidNamespace(text: string | null): string | null {
  return text?.match(/pid:\[\d+\]/)?.[0] ?? null;
}

/**
 * Pure: the records that are still true (pid present with the recorded start ticks, same pid namespace when both
 * sides say) -> the report. Two records of one session (resumed in two terminals) keep the newer one.
 */
export function claudeLiveFrom(
  records: ClaudeRecord[],
  procs: ProcLookup,
  ownNamespace: string | null,
): LiveReport {
  const sessions = new Map<string, LiveInfo>();
  const carriers = new Map<number, LiveCarrier>();
  const newest = new Map<string, string>();
  for (const record of records) {
    const proc = procs.get(record.pid);
    if (!proc || proc.startTicks !== record.procStart) continue;
    const theirs = pidNamespace(record.pidDomain);
    if (theirs !== null && ownNamespace !== null && theirs !== ownNamespace) continue;
    // the record lists the one session this process carries: a run of any other session on it has moved on
    carriers.set(record.pid, { procStart: record.procStart, sessionIds: new Set([record.sessionId]) });
    const seen = newest.get(record.sessionId);
    if (seen !== undefined && (record.updatedAt ?? "") <= seen) continue;
    newest.set(record.sessionId, record.updatedAt ?? "");
    sessions.set(record.sessionId, {
      agentSessionId: record.sessionId,
      pid: record.pid,
      procStart: record.procStart,
      activity: claudeActivity(record),
    });
  }
  return { sessions, carriers };
}

/** Reads every `<pid>.json` record (a missing folder is no records). */
export function readClaudeRecords(env: Env): ClaudeRecord[] {
  const dir = claudeSessionsDir(env);
  const records: ClaudeRecord[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  for (const entry of entries) {
    if (!entry.isFile || !/^\d+\.json$/.test(entry.name)) continue;
    let text: string;
    try {
      text = Deno.readTextFileSync(join(dir, entry.name));
    } catch (err) {
      // removed by a clean exit between the listing and the read
      if (err instanceof Deno.errors.NotFound) continue;
      throw err;
    }
    const record = parseClaudeRecord(text);
    if (record) records.push(record);
  }
  return records;
}

/** How much of a busy or idle session's transcript is read for a turn in trouble: its newest lines. */
const TROUBLE_TAIL_BYTES = 256 * 1024;

/**
 * Pure: a session's reading, corrected by what its transcript says of the current turn: a busy session whose
 * agent is retrying after API errors reads "retrying", never "working"; an idle one whose last turn failed on
 * an API error reads "failed" with the error's own message (the turn is over, nothing was done, and the person must
 * act).
 */
export function withTrouble(
  reading: ActivityReading | null,
  trouble: TurnTrouble | null,
): ActivityReading | null {
  if (reading === null || trouble === null) return reading;
  if (reading.state === "working" && trouble.kind === "retrying") {
    return { ...reading, state: "retrying", reason: troubleReason(trouble) };
  }
  if (reading.state === "idle" && trouble.kind === "failed") {
    return { ...reading, state: "failed", reason: troubleReason(trouble) };
  }
  return reading;
}

/** Claude Code's `live()`: its records, verified against the process table of this poll. */
export function claudeLive(query: LiveQuery): LiveReport {
  const report = claudeLiveFrom(
    readClaudeRecords(query.env),
    query.procs,
    pidNamespace(query.proc.readLink("/proc/self/ns/pid")),
  );
  // a busy or idle session may be in trouble its record does not say: its transcript's newest lines do
  const paths = new Map(query.open.map((ref) => [ref.agentSessionId, ref.transcriptPath]));
  for (const info of report.sessions.values()) {
    const state = info.activity?.state;
    const path = paths.get(info.agentSessionId);
    if ((state !== "working" && state !== "idle") || !path) continue;
    info.activity = withTrouble(info.activity, turnTroubleAt(path, query.env));
  }
  return report;
}

/** The trouble a transcript's tail shows; null when it shows none or cannot be read as Claude's own file. */
function turnTroubleAt(path: string, env: Env): TurnTrouble | null {
  try {
    const tail = readTailSync(path, TROUBLE_TAIL_BYTES, { within: [claudeProjectsDir(env)] });
    return turnTrouble(new TextDecoder().decode(tail.bytes));
  } catch (err) {
    // not written yet (a fresh session), or not Claude's own file: the record's word stands
    if (err instanceof Deno.errors.NotFound || err instanceof RefusedFile) return null;
    throw err;
  }
}
