/**
 * The poll's decision, as pure functions: (open runs, process table, each agent's own evidence, the hook
 * evidence, what the poll remembers) -> which runs are gone, and what each live session is doing. No clock (the
 * time of the poll is a fact handed in), no /proc, no database: `poll.ts` gathers the facts and writes the result.
 *
 * A run is alive only while a process with its pid exists with the recorded start ticks on the boot it was
 * recorded on: a recycled pid can never keep a session alive. The agent's own records may also say a process no
 * longer carries a session (Claude after `/clear`, a Codex daemon that let a thread go); that softer proof must
 * hold on two polls in a row before the run closes, so a record caught mid-rewrite cannot end a session.
 *
 * A run is the process the hook proved to be the agent, else the one the session is judged by (the hook's
 * nearest ancestor past its one-off wrapper, lib/ledger `processOfEvent`): either way its death ends the session.
 * A live session with no run (its hook events named no process at all) is proven from the agent's own records
 * alone: when they list it with a verified process, that process becomes its run (`adopt`); when they do not,
 * the session is "unsure" with the reason, never simply LIVE (transcript recency never proves a process).
 *
 * Activity follows agent-island-state-model.txt: the newest evidence, the agent's own record first; recency alone
 * is never a state; "Needs attention" only for a session asm itself saw working whose evidence then stopped
 * moving without a turn end for the agent's `stalled_minutes`.
 * @module
 */
import type { ActivityReading, ActivityState, LiveCarrier, LiveReport } from "../agents/mod.ts";
import type { HookActivity, ProcessKey, Status } from "../ledger/mod.ts";

/** The activity a live session shows, as stored in `sessions.activity` (the page's words are in words.ts). */
export type ActivityWord = ActivityState | "stalled" | "unknown";

/** An open run, with the session facts it is judged by. */
export interface OpenRun {
  asmId: string;
  agent: string;
  agentSessionId: string;
  pid: number;
  procStart: number;
  bootId: string | null;
}

/** A session whose activity the poll judges. */
export interface JudgedSession {
  asmId: string;
  agent: string;
  agentSessionId: string;
  status: Status;
  /** When its transcript last changed (the file's mtime), or null. */
  transcriptAt: string | null;
}

/** The process table, as much of it as the poll read. */
export interface ProcTable {
  get(pid: number): { startTicks: number } | undefined;
}

/** What the poll remembers from one tick to the next (the judge returns the next one; it never mutates). */
export interface PollMemory {
  /** Sessions asm saw working while their evidence was fresh: only these can become "Needs attention". */
  sawWorking: ReadonlySet<string>;
  /** Runs the agent's records disowned, by run key, with how many polls in a row they did. */
  doubted: ReadonlyMap<string, number>;
}

/** A poll that remembers nothing yet (a fresh server). */
export const EMPTY_MEMORY: PollMemory = { sawWorking: new Set(), doubted: new Map() };

/** Everything one poll decides on. */
export interface PollFacts {
  /** The time of this poll, ISO-8601 UTC ms. */
  now: string;
  /** The current boot id, or null when it could not be read. */
  bootId: string | null;
  procs: ProcTable;
  runs: readonly OpenRun[];
  /** The sessions that are live or starting. */
  sessions: readonly JudgedSession[];
  /** Each agent's `live()` report, by agent name (absent: that agent has no live capability). */
  evidence: ReadonlyMap<string, LiveReport>;
  /** The latest hook evidence, by asm id. */
  hooks: ReadonlyMap<string, HookActivity>;
  /** How long a session asm saw working may go without new evidence, per agent. */
  stalledAfterMs(agent: string): number;
  /** Each agent's own reading of a call for attention (its adapter's), before asm's generic one. */
  attentionOf?(
    agent: string,
  ): ((event: string, kind: string | null) => string | null | undefined) | undefined;
  memory: PollMemory;
}

/** Whether one run's process is still the recorded one. */
export type RunVerdict =
  | { alive: true }
  /** `proof`: "process" (pid, start ticks or boot) is final; "records" (the agent's own) needs a second poll */
  | { alive: false; why: string; proof: "process" | "records" };

/** An activity word with its reason and how fresh its evidence is. */
export interface Activity {
  activity: ActivityWord;
  reason: string | null;
  /** When the newest evidence behind it changed, ISO; null when nothing says. */
  at: string | null;
}

/** What one poll decided. */
export interface Judgement {
  /** Runs to close, by asm id, with why. */
  gone: Map<string, { runs: ProcessKey[]; why: string[] }>;
  /** The activity of each session still live or starting; null is "no reading". */
  activity: Map<string, Activity | null>;
  /** Status values an agent wrote that asm does not know (the shell logs each once). */
  unknown: { agent: string; value: string }[];
  /** Each session still live or starting: why its process cannot be proven, or null when it is. */
  unsure: Map<string, string | null>;
  /** Processes the agent's own records name for live sessions that have no run: each becomes the session's run. */
  adopt: { asmId: string; pid: number; procStart: number }[];
  memory: PollMemory;
}

/** Why a live session with no run, that its agent's own records do not list, cannot be proven. */
export const UNSURE_NO_PROCESS = "asm cannot see this session's process: its hook events named none, and " +
  "the agent's own records do not list it. END records it ended without signalling anything";

/** The key a run is remembered by. */
export function runKey(run: Pick<OpenRun, "asmId" | "pid" | "procStart">): string {
  return `${run.asmId}|${run.pid}|${run.procStart}`;
}

/** Pure: is this run's process still the one recorded, and if not, what proves it. */
export function judgeRun(
  run: OpenRun,
  procs: ProcTable,
  evidence: { bootId: string | null; carrier?: LiveCarrier },
): RunVerdict {
  const proc = procs.get(run.pid);
  if (!proc) return { alive: false, why: `no process ${run.pid}`, proof: "process" };
  if (proc.startTicks !== run.procStart) {
    return {
      alive: false,
      why:
        `pid ${run.pid} is another process now (start ticks ${proc.startTicks}, recorded ${run.procStart})`,
      proof: "process",
    };
  }
  if (run.bootId !== null && evidence.bootId !== null && run.bootId !== evidence.bootId) {
    return { alive: false, why: `recorded on another boot (${run.bootId})`, proof: "process" };
  }
  const carrier = evidence.carrier;
  if (carrier && carrier.procStart === run.procStart && !carrier.sessionIds.has(run.agentSessionId)) {
    return {
      alive: false,
      why: `the agent's own records say process ${run.pid} no longer carries this session`,
      proof: "records",
    };
  }
  return { alive: true };
}

/** The state a hook turn event says. */
function turnState(event: string): ActivityState | null {
  if (event === "UserPromptSubmit") return "working";
  if (event === "Stop" || event === "SessionStart") return "idle";
  return null;
}

/**
 * Why a call for attention means the agent waits on the user, or null when it does not (an informational
 * notification), as asm reads any agent's words; an agent's adapter maps its own first (`AgentAdapter.attention`,
 * where an idle-prompt notification is no wait). PermissionRequest is always permission.
 */
export function attentionReason(event: string, kind: string | null): string | null {
  if (event === "PermissionRequest") return "permission";
  if (event !== "Notification" || kind === null) return null;
  if (/permission/i.test(kind)) return "permission";
  if (/elicitation|needs_input|question/i.test(kind)) return "question";
  return null;
}

function newest(...stamps: (string | null | undefined)[]): string | null {
  let best: string | null = null;
  for (const s of stamps) if (s && (best === null || s > best)) best = s;
  return best;
}

function span(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}

/** What {@link judgeActivity} weighs for one session. */
export interface ActivityFacts {
  status: Status;
  /** The agent's own record of this session, if it keeps one. */
  own: ActivityReading | null;
  hooks: HookActivity | null;
  transcriptAt: string | null;
  now: string;
  stalledAfterMs: number;
  /** asm saw this session working with fresh evidence on an earlier poll. */
  sawWorking: boolean;
  /** The agent's own reading of a call for attention, before asm's generic one (its adapter's `attention`). */
  attention?: (event: string, kind: string | null) => string | null | undefined;
}

/** Pure: one session's activity, whether asm has now seen it working, and an unknown value it must log. */
export function judgeActivity(
  facts: ActivityFacts,
): { activity: Activity | null; sawWorking: boolean; unknown: string | null } {
  const { own, hooks } = facts;
  const turn = hooks?.turn ?? null;
  const attention = hooks?.attention ?? null;
  const freshness = newest(own?.at, turn?.ts, attention?.ts, facts.transcriptAt);

  if (own && own.state === null) {
    // a value the agent wrote that asm does not know: a neutral word, never a guess
    return {
      activity: { activity: "unknown", reason: `unknown status "${own.raw}"`, at: freshness },
      sawWorking: false,
      unknown: own.raw,
    };
  }
  let state: ActivityState | null = null;
  let reason: string | null = null;
  let basis: string | null = null;
  if (
    own && own.state === "failed" && turn && turnState(turn.event) === "working" && turn.ts > (own.at ?? "")
  ) {
    // a prompt after the failed turn: the agent's record of the new turn may land a moment after the hook
    state = "working";
    basis = turn.ts;
  } else if (own) {
    state = own.state;
    reason = own.reason;
    basis = own.at;
  } else if (turn && turnState(turn.event)) {
    state = turnState(turn.event);
    basis = turn.ts;
  } else if (facts.status === "starting") {
    state = "starting";
  }
  // a call for attention newer than every other piece of evidence: the agent is waiting on the user
  // the agent's own reading first (undefined: it leaves the call to asm's generic one)
  const mapped = attention ? facts.attention?.(attention.event, attention.kind) : undefined;
  const waitsFor = attention
    ? (mapped !== undefined ? mapped : attentionReason(attention.event, attention.kind))
    : null;
  if (attention && waitsFor && attention.ts > (newest(basis, turn?.ts, facts.transcriptAt) ?? "")) {
    state = "waiting";
    reason = waitsFor;
  }
  if (state === null) return { activity: null, sawWorking: false, unknown: null };
  if (state !== "working") {
    return { activity: { activity: state, reason, at: freshness }, sawWorking: false, unknown: null };
  }
  const age = freshness === null ? null : Date.parse(facts.now) - Date.parse(freshness);
  const fresh = age !== null && age < facts.stalledAfterMs;
  if (age !== null && !fresh && facts.sawWorking) {
    return {
      activity: {
        activity: "stalled",
        reason: `no new evidence for ${span(age)} and no turn end`,
        at: freshness,
      },
      sawWorking: true,
      unknown: null,
    };
  }
  return {
    activity: { activity: "working", reason: null, at: freshness },
    sawWorking: facts.sawWorking || fresh,
    unknown: null,
  };
}

/** Pure: the whole poll. */
export function judge(facts: PollFacts): Judgement {
  const gone = new Map<string, { runs: ProcessKey[]; why: string[] }>();
  const doubted = new Map<string, number>();
  const aliveRuns = new Map<string, number>();
  for (const run of facts.runs) {
    const carrier = facts.evidence.get(run.agent)?.carriers.get(run.pid);
    let verdict = judgeRun(run, facts.procs, { bootId: facts.bootId, carrier });
    if (!verdict.alive && verdict.proof === "records") {
      const times = (facts.memory.doubted.get(runKey(run)) ?? 0) + 1;
      if (times < 2) {
        doubted.set(runKey(run), times);
        verdict = { alive: true };
      }
    }
    if (verdict.alive) {
      aliveRuns.set(run.asmId, (aliveRuns.get(run.asmId) ?? 0) + 1);
      continue;
    }
    const entry = gone.get(run.asmId) ?? { runs: [], why: [] };
    entry.runs.push({ pid: run.pid, proc_start: run.procStart });
    entry.why.push(verdict.why);
    gone.set(run.asmId, entry);
  }

  const activity = new Map<string, Activity | null>();
  const sawWorking = new Set<string>();
  const unknown: { agent: string; value: string }[] = [];
  const unsure = new Map<string, string | null>();
  const adopt: Judgement["adopt"] = [];
  for (const session of facts.sessions) {
    if (session.status !== "live" && session.status !== "starting") continue;
    // every open run gone: the session becomes lost and has no activity
    if (gone.has(session.asmId) && !aliveRuns.has(session.asmId)) continue;
    if (aliveRuns.has(session.asmId)) {
      unsure.set(session.asmId, null);
    } else {
      // no run at all: only the agent's own records (each entry verified against the process table) may prove it
      const own = facts.evidence.get(session.agent)?.sessions.get(session.agentSessionId);
      if (own) adopt.push({ asmId: session.asmId, pid: own.pid, procStart: own.procStart });
      unsure.set(session.asmId, own ? null : UNSURE_NO_PROCESS);
    }
    const judged = judgeActivity({
      status: session.status,
      own: facts.evidence.get(session.agent)?.sessions.get(session.agentSessionId)?.activity ?? null,
      hooks: facts.hooks.get(session.asmId) ?? null,
      transcriptAt: session.transcriptAt,
      now: facts.now,
      stalledAfterMs: facts.stalledAfterMs(session.agent),
      sawWorking: facts.memory.sawWorking.has(session.asmId),
      attention: facts.attentionOf?.(session.agent),
    });
    activity.set(session.asmId, judged.activity);
    if (judged.sawWorking) sawWorking.add(session.asmId);
    if (judged.unknown !== null) unknown.push({ agent: session.agent, value: judged.unknown });
  }
  return { gone, activity, unknown, unsure, adopt, memory: { sawWorking, doubted } };
}
