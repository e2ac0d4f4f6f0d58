/**
 * The poll's shell, run every 5 s by the server: reads the ledger's open runs and live sessions, reads each pid
 * it needs from /proc once, asks each agent's adapter for its own evidence (`live()`), hands every fact to the
 * pure `judge()`, then writes what it decided through the ledger: gone runs closed (a session with none left
 * becomes lost), activity words with their reason and freshness stored. Unknown status values and failing
 * adapters are logged once each, never thrown.
 * @module
 */
import { adapterOf, loadAgents } from "../agents/registry.ts";
import type { AgentConfig, Env, LiveReport, OpenSessionRef, ProcLookup } from "../agents/protocol.ts";
import {
  type ActivityUpdate,
  clearFinishedActivity,
  closeGoneRuns,
  hookActivity,
  isoAt,
  type Ledger,
  pollRows,
  type ProcessKey,
  recordActivity,
  toIso,
} from "../ledger/mod.ts";
import { bootId, LINUX_PROC, type ProcInfo, type ProcSource, readProc } from "../procs/mod.ts";
import { EMPTY_MEMORY, judge, type JudgedSession, type OpenRun, type PollMemory } from "./judge.ts";

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
  now?: () => number;
  /** Carried between polls; without it every poll is a first one (nothing can be seen stalled). */
  state?: PollState;
  /** One JSON line per notable fact (server.log). */
  log?: (line: Record<string, unknown>) => void;
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

function mtimeOf(path: string | null): string | null {
  if (!path) return null;
  try {
    const mtime = Deno.statSync(path).mtime;
    return mtime ? toIso(mtime.getTime()) : null;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return null;
    throw err;
  }
}

function logOnce(state: PollState, log: PollDeps["log"], key: string, line: Record<string, unknown>): void {
  if (state.logged.has(key)) return;
  state.logged.add(key);
  log?.(line);
}

/** One poll: judge every open run and live session, write the result. */
export function pollOnce(deps: PollDeps): PollReport {
  const { ledger } = deps;
  const state = deps.state ?? newPollState();
  const at = isoAt(deps.now?.() ?? Date.now());
  const { sessions, runs } = pollRows(ledger);
  if (sessions.length === 0 && runs.length === 0) {
    clearFinishedActivity(ledger);
    state.memory = EMPTY_MEMORY;
    return { at, runs: 0, sessions: 0, closed: 0, lost: [], changed: 0 };
  }
  const source = deps.proc ?? LINUX_PROC;
  const procs = procLookup(source);
  for (const run of runs) procs.get(run.pid);

  const openRuns: OpenRun[] = [];
  const refs = new Map<string, OpenSessionRef>();
  const byAgent = new Map<string, OpenSessionRef[]>();
  for (const s of sessions) {
    const ref: OpenSessionRef = {
      agentSessionId: s.agent_session_id,
      transcriptPath: s.transcript_path,
      runs: [],
    };
    refs.set(s.asm_id, ref);
    byAgent.set(s.agent, [...(byAgent.get(s.agent) ?? []), ref]);
  }
  const sessionById = new Map(sessions.map((s) => [s.asm_id, s]));
  for (const run of runs) {
    const s = sessionById.get(run.asm_id);
    if (!s) continue;
    refs.get(run.asm_id)!.runs.push({ pid: run.pid, procStart: run.proc_start });
    openRuns.push({
      asmId: run.asm_id,
      agent: s.agent,
      agentSessionId: s.agent_session_id,
      pid: run.pid,
      procStart: run.proc_start,
      bootId: run.boot_id,
    });
  }

  // only agents with something open are asked: an idle server reads no agent's folders
  const agents = deps.agents ?? loadAgents({ asmHome: deps.asmHome, env: deps.env });
  const evidence = new Map<string, LiveReport>();
  for (const [name, open] of byAgent) {
    const agent = agents.find((a) => a.name === name);
    if (!agent) {
      logOnce(state, deps.log, `no agent ${name}`, { what: "poll: agent not in agents.toml", agent: name });
      continue;
    }
    try {
      const live = adapterOf(agent).live;
      if (live) evidence.set(name, live({ agent, env: deps.env, procs, open, proc: source }));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // the process check still runs without this agent's evidence; one line per distinct failure
      logOnce(state, deps.log, `live ${name} ${message}`, {
        what: "poll: live() failed",
        agent: name,
        error: message,
      });
    }
  }

  const judged: JudgedSession[] = sessions.map((s) => ({
    asmId: s.asm_id,
    agent: s.agent,
    agentSessionId: s.agent_session_id,
    status: s.status,
    transcriptAt: s.status === "live" || s.status === "starting" ? mtimeOf(s.transcript_path) : null,
  }));
  const stalled = new Map(agents.map((a) => [a.name, a.stalled_minutes * 60_000]));
  const judgement = judge({
    now: at,
    bootId: bootId(source),
    procs: procs.table(),
    runs: openRuns,
    sessions: judged,
    evidence,
    hooks: hookActivity(
      ledger,
      judged.filter((s) => s.status === "live" || s.status === "starting").map((s) => s.asmId),
    ),
    stalledAfterMs: (agent) => deps.stalledAfterMs ?? stalled.get(agent) ?? 5 * 60_000,
    memory: state.memory,
  });
  state.memory = judgement.memory;

  const gone = new Map<string, ProcessKey[]>([...judgement.gone].map(([id, g]) => [id, g.runs]));
  const after = closeGoneRuns(ledger, gone, at);
  const lost: string[] = [];
  for (const [asmId, g] of judgement.gone) {
    const status = after.get(asmId) ?? null;
    if (status === "lost") lost.push(asmId);
    deps.log?.({ what: "poll: runs gone", asm_id: asmId, runs: g.runs, why: g.why, status });
  }
  for (const u of judgement.unknown) {
    logOnce(state, deps.log, `unknown ${u.agent} ${u.value}`, {
      what: "poll: unknown activity value",
      agent: u.agent,
      value: u.value,
    });
  }
  const updates: ActivityUpdate[] = [...judgement.activity].map(([asmId, a]) => ({
    asm_id: asmId,
    activity: a?.activity ?? null,
    activity_reason: a?.reason ?? null,
    activity_at: a?.at ?? null,
  }));
  const changed = recordActivity(ledger, updates) + clearFinishedActivity(ledger);
  return {
    at,
    runs: openRuns.length,
    sessions: judgement.activity.size,
    closed: [...gone.values()].reduce((n, r) => n + r.length, 0),
    lost,
    changed,
  };
}
