/**
 * The poll's shell, run every 5 s by the server: reads the ledger's open runs and live sessions, reads each pid
 * it needs from /proc once, asks each agent's adapter for its own evidence (`live()`), hands every fact to the
 * pure `judge()`, then writes what it decided through the ledger: gone runs closed (a session with none left
 * becomes lost), activity words with their reason and freshness stored. Unknown status values and failing
 * adapters are logged once each, never thrown.
 *
 * Every row is on its own: a run whose pid or start time is out of range (stored by an older asm) is closed with
 * one log line, and a session whose transcript cannot be looked at or whose write fails costs one log line (once,
 * not every 5 s) while every other session is judged and written. Only a ledger that refuses every write stops
 * the tick (the ledger watch says why).
 * @module
 */
import {
  adapterOf,
  type AgentConfig,
  type LiveReport,
  loadAgents,
  type OpenSessionRef,
  type ProcLookup,
} from "../agents/mod.ts";
import type { Env } from "../config/mod.ts";
import {
  type ActivityUpdate,
  clearFinishedActivity,
  closeGoneRuns,
  closeRunsOutOfRange,
  hookActivity,
  isoAt,
  type Ledger,
  LedgerUnwritableError,
  pollRows,
  type ProcessKey,
  recordActivity,
  recordUnsure,
  toIso,
} from "../ledger/mod.ts";
import { bootId, LINUX_PROC, type ProcInfo, type ProcSource, readProc } from "../procs/mod.ts";
import {
  EMPTY_MEMORY,
  judge,
  type JudgedSession,
  type Judgement,
  type OpenRun,
  type PollMemory,
} from "./judge.ts";
import { type Clock, errorText, type Log, type LogLine } from "../lang/mod.ts";

/** What one server (or test) carries from poll to poll. */
export interface PollState {
  memory: PollMemory;
  /** What was already logged once (unknown values, failing adapters). */
  logged: Set<string>;
}

/** A state for a first poll. */
export function newPollState(): PollState {
  return { memory: EMPTY_MEMORY, logged: new Set() };
}

/** What {@link pollOnce} needs. */
export interface PollDeps {
  ledger: Ledger;
  /** Where the agents' folders are (HOME, CODEX_HOME, GEMINI_CLI_HOME). */
  env: Env;
  /** For `$ASM_HOME/agents.toml`; default from `env`. */
  asmHome?: string;
  /** The agents (default: the registry). */
  agents?: AgentConfig[];
  /** /proc (default: the real one). */
  proc?: ProcSource;
  /** The clock, epoch ms (default: Date.now). */
  now?: Clock;
  /** Carried between polls; without it every poll is a first one (nothing can be seen stalled). */
  state?: PollState;
  /** One JSON line per notable fact (server.log). */
  log?: Log;
  /** Overrides every agent's `stalled_minutes` (tests). */
  stalledAfterMs?: number;
}

/** What one poll did. */
export interface PollReport {
  at: string;
  /** Open runs judged. */
  runs: number;
  /** Sessions whose activity was judged. */
  sessions: number;
  /** Runs closed because their process is gone. */
  closed: number;
  /** Sessions that became lost. */
  lost: string[];
  /** Activity rows that changed. */
  changed: number;
}

/** A process table that reads each pid from /proc at most once. */
export function procLookup(source: ProcSource): ProcLookup & { table(): Map<number, ProcInfo> } {
  const read = new Map<number, ProcInfo | null>();
  return {
    get(pid) {
      if (!read.has(pid)) read.set(pid, readProc(pid, source));
      return read.get(pid) ?? undefined;
    },
    table() {
      return new Map([...read].filter((e): e is [number, ProcInfo] => e[1] !== null));
    },
  };
}

/**
 * The transcript's mtime, or null when it is not there. Any other failure (a path the kernel refuses: too long,
 * a NUL byte, a loop of links) is this session's alone: null, and one log line.
 */
function mtimeOf(path: string | null, rowFailed: (err: unknown) => void): string | null {
  if (!path) return null;
  try {
    const mtime = Deno.statSync(path).mtime;
    return mtime ? toIso(mtime.getTime()) : null;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory)) rowFailed(err);
    return null;
  }
}

function logOnce(state: PollState, log: PollDeps["log"], key: string, line: LogLine): void {
  if (state.logged.has(key)) return;
  state.logged.add(key);
  log?.(line);
}

/**
 * One row's failure: one log line per (row, step, error), kept for the server's life, so a row that fails every
 * tick is named once. A ledger refusing writes is no row's failure: it stops the tick (tasks.ts, the watch).
 */
function rowFailure(state: PollState, log: PollDeps["log"], step: string, asmId: string) {
  return (err: unknown): void => {
    if (err instanceof LedgerUnwritableError) throw err;
    const error = errorText(err);
    // the kernel's message may quote the whole path it refused (a hostile one is kilobytes long)
    const shown = error.length > 300 ? `${error.slice(0, 300)}...` : error;
    logOnce(state, log, `row ${step} ${asmId} ${error}`, {
      what: "poll: row failed",
      step,
      asm_id: asmId,
      error: shown,
    });
  };
}

/** One poll: judge every open run and live session, write the result. */
export function pollOnce(deps: PollDeps): PollReport {
  const { ledger } = deps;
  const state = deps.state ?? newPollState();
  const at = isoAt(deps.now?.() ?? Date.now());
  // a run no process can carry (an older asm stored a pid of 2^62): closed once, named once, read by nobody
  for (const run of closeRunsOutOfRange(ledger, at)) {
    deps.log?.({ what: "poll: run out of range closed", ...run });
  }
  const rows = pollRows(ledger);
  if (rows.sessions.length === 0 && rows.runs.length === 0) {
    clearFinishedActivity(ledger);
    state.memory = EMPTY_MEMORY;
    return { at, runs: 0, sessions: 0, closed: 0, lost: [], changed: 0 };
  }
  const source = deps.proc ?? LINUX_PROC;
  const procs = procLookup(source);
  for (const run of rows.runs) procs.get(run.pid);
  const open = openSessions(rows);
  const agents = deps.agents ?? loadAgents({ asmHome: deps.asmHome, env: deps.env });
  const evidence = askAgents(open.byAgent, agents, { deps, state, procs, source });
  const judgement = judgeNow(rows, open.runs, evidence, { deps, state, agents, procs, source, at });
  state.memory = judgement.memory;
  const { closed, lost } = closeGone(judgement, ledger, { at, state, log: deps.log });
  adoptRuns(judgement, ledger, { at, bootId: bootId(source), state, log: deps.log });
  logUnknown(judgement, state, deps.log);
  const changed = recordJudgedActivity(judgement, ledger) + recordUnsure(ledger, judgement.unsure);
  return { at, runs: open.runs.length, sessions: judgement.activity.size, closed, lost, changed };
}

type PollRows = ReturnType<typeof pollRows>;

/** The open runs as the judge takes them, and each agent's open sessions as its `live()` takes them. */
function openSessions(rows: PollRows): { runs: OpenRun[]; byAgent: Map<string, OpenSessionRef[]> } {
  const refs = new Map<string, OpenSessionRef>();
  const byAgent = new Map<string, OpenSessionRef[]>();
  for (const s of rows.sessions) {
    const ref: OpenSessionRef = {
      agentSessionId: s.agent_session_id,
      transcriptPath: s.transcript_path,
      runs: [],
    };
    refs.set(s.asm_id, ref);
    const list = byAgent.get(s.agent);
    if (list) list.push(ref);
    else byAgent.set(s.agent, [ref]);
  }
  const sessionById = new Map(rows.sessions.map((s) => [s.asm_id, s]));
  const runs: OpenRun[] = [];
  for (const run of rows.runs) {
    const s = sessionById.get(run.asm_id);
    if (!s) continue;
    refs.get(run.asm_id)!.runs.push({ pid: run.pid, procStart: run.proc_start });
    runs.push({
      asmId: run.asm_id,
      agent: s.agent,
      agentSessionId: s.agent_session_id,
      pid: run.pid,
      procStart: run.proc_start,
      bootId: run.boot_id,
    });
  }
  return { runs, byAgent };
}

/** What one tick has in hand while it gathers facts. */
interface Tick {
  deps: PollDeps;
  state: PollState;
  procs: ReturnType<typeof procLookup>;
  source: ProcSource;
}

/**
 * Each agent's own running-session evidence. Only agents with something open are asked: an idle server reads no
 * agent's folders. An agent whose `live()` fails is left out (the process check still runs), one line per
 * distinct failure.
 */
function askAgents(
  byAgent: Map<string, OpenSessionRef[]>,
  agents: AgentConfig[],
  tick: Tick,
): Map<string, LiveReport> {
  const { deps, state, procs, source } = tick;
  const evidence = new Map<string, LiveReport>();
  for (const [name, open] of byAgent) {
    const agent = agents.find((a) => a.name === name);
    if (!agent) {
      logOnce(state, deps.log, `no agent ${name}`, { what: "poll: agent not in agents.toml", agent: name });
      continue;
    }
    try {
      const live = adapterOf(agent).live;
      const report = live?.({ agent, env: deps.env, procs, open, proc: source });
      if (report) evidence.set(name, report);
      for (const problem of report?.problems ?? []) {
        logOnce(state, deps.log, `live ${name} ${problem}`, {
          what: "poll: part of live() unreadable",
          agent: name,
          problem,
        });
      }
    } catch (err) {
      const message = errorText(err);
      logOnce(state, deps.log, `live ${name} ${message}`, {
        what: "poll: live() failed",
        agent: name,
        error: message,
      });
    }
  }
  return evidence;
}

/** The pure judge, given this tick's facts: the process table, the evidence, the hooks, the transcripts' times. */
function judgeNow(
  rows: PollRows,
  runs: OpenRun[],
  evidence: Map<string, LiveReport>,
  tick: Tick & { agents: AgentConfig[]; at: string },
): Judgement {
  const { deps, state, agents, procs, source, at } = tick;
  const open = (status: string) => status === "live" || status === "starting";
  const sessions: JudgedSession[] = rows.sessions.map((s) => ({
    asmId: s.asm_id,
    agent: s.agent,
    agentSessionId: s.agent_session_id,
    status: s.status,
    transcriptAt: open(s.status)
      ? mtimeOf(s.transcript_path, rowFailure(state, deps.log, "transcript", s.asm_id))
      : null,
  }));
  const stalled = new Map(agents.map((a) => [a.name, a.stalled_minutes * 60_000]));
  return judge({
    now: at,
    bootId: bootId(source),
    procs: procs.table(),
    runs,
    sessions,
    evidence,
    hooks: hookActivity(deps.ledger, sessions.filter((s) => open(s.status)).map((s) => s.asmId)),
    stalledAfterMs: (agent) => deps.stalledAfterMs ?? stalled.get(agent) ?? 5 * 60_000,
    attentionOf: (agent) => {
      const config = agents.find((a) => a.name === agent);
      return config ? adapterOf(config).attention : undefined;
    },
    memory: state.memory,
  });
}

/**
 * Closes the runs the judge found gone (a live session with none left becomes lost); one log line each. A session
 * whose close fails is named once and tried again next tick; the others close.
 */
function closeGone(
  judgement: Judgement,
  ledger: Ledger,
  context: { at: string; state: PollState; log: PollDeps["log"] },
): { closed: number; lost: string[] } {
  const { at, state, log } = context;
  const gone = new Map<string, ProcessKey[]>([...judgement.gone].map(([id, g]) => [id, g.runs]));
  const after = closeGoneRuns(ledger, gone, at, (asmId, err) => rowFailure(state, log, "close", asmId)(err));
  const lost: string[] = [];
  let closed = 0;
  for (const [asmId, g] of judgement.gone) {
    if (!after.has(asmId)) continue;
    const status = after.get(asmId) ?? null;
    if (status === "lost") lost.push(asmId);
    closed += g.runs.length;
    log?.({ what: "poll: runs gone", asm_id: asmId, runs: g.runs, why: g.why, status });
  }
  return { closed, lost };
}

/**
 * A live session with no run whose agent's own records name its process: that process becomes its run (so the
 * next poll judges it by pid and start ticks, and its end is seen). One log line each.
 */
function adoptRuns(
  judgement: Judgement,
  ledger: Ledger,
  context: { at: string; bootId: string | null; state: PollState; log: PollDeps["log"] },
): void {
  for (const a of judgement.adopt) {
    try {
      ledger.adoptRun(a.asmId, { pid: a.pid, proc_start: a.procStart, boot_id: context.bootId }, context.at);
    } catch (err) {
      rowFailure(context.state, context.log, "adopt", a.asmId)(err);
      continue;
    }
    context.log?.({ what: "poll: run from the agent's own records", asm_id: a.asmId, pid: a.pid });
  }
}

/** An activity value an agent reported that asm does not know: one line per (agent, value). */
function logUnknown(judgement: Judgement, state: PollState, log: PollDeps["log"]): void {
  for (const u of judgement.unknown) {
    logOnce(state, log, `unknown ${u.agent} ${u.value}`, {
      what: "poll: unknown activity value",
      agent: u.agent,
      value: u.value,
    });
  }
}

/** Writes the activity words the judge decided; the count of rows that changed. */
function recordJudgedActivity(judgement: Judgement, ledger: Ledger): number {
  const updates: ActivityUpdate[] = [...judgement.activity].map(([asmId, a]) => ({
    asm_id: asmId,
    activity: a?.activity ?? null,
    activity_reason: a?.reason ?? null,
    activity_at: a?.at ?? null,
  }));
  return recordActivity(ledger, updates) + clearFinishedActivity(ledger);
}
