/**
 * The status transitions of a session, as ONE pure function: `transition(state, input) -> state'`.
 * No clock, no database, no /proc: the ledger gathers the facts, this decides, the ledger writes the result.
 * The table it implements is in docs/runbook.md section 5; transition_test.ts checks it row by row.
 * @module
 */
import type { HookEvent } from "./event.ts";

/** The five statuses, exactly as stored. The page maps killed/lost to ENDED at the last moment. */
export type Status = "starting" | "live" | "ended" | "lost" | "killed";

/** What the transition needs to know of a session row. */
export interface SessionState {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  status: Status;
  name: string | null;
  cwd: string | null;
  transcript_path: string | null;
  nested: boolean;
  pid_shared: boolean;
  entrypoint: string | null;
  launch_token: string | null;
  cleared_from_asm_id: string | null;
  started_at: string | null;
  last_seen: string | null;
  ended_at: string | null;
  end_reason: string | null;
  prompts: number;
  /** the latest SessionStart's `rules_skipped`: which standing rules files were refused, null when none was */
  rules_note: string | null;
}

/** One run: one process (pid + start ticks) that carried the session for a while. */
export interface RunState {
  pid: number;
  proc_start: number;
  boot_id: string | null;
  launch_token: string | null;
  started_at: string;
  ended_at: string | null;
  start_source: string | null;
  end_reason: string | null;
}

/** A session row with its runs; `session` is null before the first event. */
export interface LedgerState {
  session: SessionState | null;
  runs: RunState[];
}

/** A process that carried a run, by its identity. */
export interface ProcessKey {
  pid: number;
  proc_start: number;
}

/** What can happen to a session. */
export type LedgerInput =
  /** a hook event; `clearedFrom` is the session this one replaced through a cleared context, when known */
  | { kind: "hook"; event: HookEvent; clearedFrom?: string | null }
  /** the poll found these runs' processes gone (pid missing, start ticks differ, or another boot) */
  | { kind: "runs_gone"; runs: ProcessKey[]; at: string }
  /** END was pressed: claimed before the signal so a poll landing in between cannot overwrite it */
  | { kind: "kill_claimed"; at: string; reason?: string }
  /**
   * END of a session no process of which asm could ever see (its hook events named none, the agent's records do
   * not list it): nothing is signalled; the session is recorded lost, and a later event from it revives it
   */
  | { kind: "ended_unseen"; at: string }
  /** END failed after its claim (the signal was refused, the process would not go): the claim is taken back */
  | { kind: "kill_released"; previous: Pick<SessionState, "status" | "ended_at" | "end_reason"> }
  /** the agent's own records (verified against the process table) name the process carrying a live session */
  | { kind: "run_evidenced"; run: ProcessKey & { boot_id: string | null }; at: string }
  /**
   * a RESUME launch's own process holds this finished session's thread by the agent's records, before any hook
   * spoke (Codex's TUI fires SessionStart only at the first prompt): live again, with a new run of that launch
   */
  | {
    kind: "resume_evidenced";
    run: ProcessKey & { boot_id: string | null };
    launch_token: string;
    at: string;
  };

/** The end reason of a session ended from asm without a process to signal. */
export const UNSEEN_END_REASON = "ended from asm; asm could not see its process, so nothing was signalled";

const FINISHED: ReadonlySet<Status> = new Set(["ended", "lost", "killed"]);

/** True for the statuses that mean no process is carrying the session. */
export function isFinished(status: Status): boolean {
  return FINISHED.has(status);
}

function earlier(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a <= b ? a : b;
}

function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a >= b ? a : b;
}

function sameProcess(run: RunState, key: ProcessKey): boolean {
  return run.pid === key.pid && run.proc_start === key.proc_start;
}

function newSession(event: HookEvent): SessionState {
  return {
    asm_id: event.asm_id,
    agent: event.agent,
    agent_session_id: event.agent_session_id,
    status: "live",
    name: null,
    cwd: null,
    transcript_path: null,
    nested: false,
    pid_shared: false,
    entrypoint: null,
    launch_token: null,
    cleared_from_asm_id: null,
    started_at: event.ts,
    last_seen: event.ts,
    ended_at: null,
    end_reason: null,
    prompts: 0,
    rules_note: null,
  };
}

function applyHook(state: LedgerState, event: HookEvent, clearedFrom: string | null): LedgerState {
  const s = mergeFacts(state.session ?? newSession(event), event, clearedFrom);
  const runs = state.runs.map((r) => ({ ...r }));
  const { run, runIsNew } = runOfEvent(runs, event);
  switch (event.event) {
    case "SessionEnd":
      applyEnd(s, runs, run, event);
      break;
    case "SessionStart":
      applyStart(s, run, runIsNew, event);
      break;
    default:
      applyActivity(s, run, runIsNew, event);
  }
  return { session: s, runs };
}

/** The facts an event carries, merged in: they only fill blanks or move forward, never erase what was said. */
function mergeFacts(before: SessionState, event: HookEvent, clearedFrom: string | null): SessionState {
  return {
    ...before,
    name: event.session_name ?? before.name,
    cwd: before.cwd ?? event.cwd,
    transcript_path: event.transcript_path ?? before.transcript_path,
    nested: before.nested || event.nested,
    pid_shared: before.pid_shared || event.pid_shared,
    entrypoint: before.entrypoint ?? event.entrypoint,
    launch_token: before.launch_token ?? event.launch_token,
    cleared_from_asm_id: before.cleared_from_asm_id ?? clearedFrom,
    started_at: earlier(before.started_at, event.ts),
    last_seen: later(before.last_seen, event.ts),
    prompts: before.prompts + (event.event === "UserPromptSubmit" ? 1 : 0),
    // about the latest start only: a start whose rules all applied clears what an earlier start said
    rules_note: event.event === "SessionStart" ? event.rules_skipped ?? null : before.rules_note,
  };
}

/**
 * The process an event names: the one proven to be the agent, else the one the session is judged by (the hook's
 * nearest ancestor past the command it ran through), except on an end: a hook running as its agent exits may be
 * orphaned and name whatever adopted it, and an end that names no process closes every open run, as it should.
 */
export function processOfEvent(event: HookEvent): ProcessKey | null {
  if (event.agent_pid !== null && event.agent_proc_start !== null) {
    return { pid: event.agent_pid, proc_start: event.agent_proc_start };
  }
  const judgedPid = event.judged_pid ?? null;
  const judgedStart = event.judged_proc_start ?? null;
  // pid 1 (init, or a container's) is never what ran a hook; the hook records none for it
  if (judgedPid === null || judgedStart === null || judgedPid <= 1 || event.event === "SessionEnd") {
    return null;
  }
  return { pid: judgedPid, proc_start: judgedStart };
}

/**
 * The run of the process the event names ({@link processOfEvent}), made when it is new (mutates `runs`). An
 * event that names no process has no run.
 */
function runOfEvent(runs: RunState[], event: HookEvent): { run: RunState | undefined; runIsNew: boolean } {
  const key = processOfEvent(event);
  if (key === null) return { run: undefined, runIsNew: false };
  const run = runs.find((r) => sameProcess(r, key));
  if (run) {
    run.started_at = earlier(run.started_at, event.ts)!;
    if (event.event === "SessionStart") run.start_source = event.source ?? run.start_source;
    run.launch_token = run.launch_token ?? event.launch_token;
    return { run, runIsNew: false };
  }
  // a judged process (unproven) never joins a session that has an open run: it only stands in where nothing else
  // would end the session, and beside a live run it could hold the session open after its agent is gone
  if (event.agent_pid === null && runs.some((r) => r.ended_at === null)) {
    return { run: undefined, runIsNew: false };
  }
  const made: RunState = {
    pid: key.pid,
    proc_start: key.proc_start,
    boot_id: event.boot_id,
    launch_token: event.launch_token,
    started_at: event.ts,
    ended_at: null,
    start_source: event.event === "SessionStart" ? event.source : null,
    end_reason: null,
  };
  runs.push(made);
  return { run: made, runIsNew: true };
}

/** "Newer than the end": evidence produced after the session was recorded as finished. */
function newerThanEnd(s: SessionState, event: HookEvent): boolean {
  return s.ended_at === null || event.ts > s.ended_at;
}

/**
 * A SessionEnd closes its own run (or every open one when it names no process); the session ends when no run is
 * left open. A repeated end (Gemini fires SessionEnd up to three times) changes nothing more; a killed session's
 * claim stands (the end only closes the run). Mutates `s` and `runs`.
 */
function applyEnd(s: SessionState, runs: RunState[], run: RunState | undefined, event: HookEvent): void {
  for (const r of run ? [run] : runs.filter((r) => r.ended_at === null)) {
    if (r.ended_at === null) {
      r.ended_at = event.ts;
      r.end_reason = event.source;
    }
  }
  if (s.status !== "live" && s.status !== "starting" && s.status !== "lost") return;
  // lost -> ended: the agent said goodbye after all, which is the truer word
  if (!runs.some((r) => r.ended_at === null) || s.status === "lost") {
    s.status = "ended";
    s.ended_at = event.ts;
    s.end_reason = event.source;
  }
}

/**
 * A SessionStart makes a starting session live, and a finished one live again when it is newer than the end (a
 * resume). A start older than the recorded end arrived late: it happened, but its new run is over.
 */
function applyStart(s: SessionState, run: RunState | undefined, runIsNew: boolean, event: HookEvent): void {
  if (s.status === "starting" || s.status === "live") {
    s.status = "live";
  } else if (newerThanEnd(s, event)) {
    s.status = "live";
    s.ended_at = null;
    s.end_reason = null;
  } else if (run && runIsNew) {
    run.ended_at = s.ended_at;
    run.end_reason = s.end_reason;
  }
}

/**
 * A prompt, a stop or any other activity: a starting session is live; a lost one that speaks after it was
 * declared lost is live again with its run reopened (the poll was wrong); a finished session's late new run is
 * closed at its end.
 */
function applyActivity(
  s: SessionState,
  run: RunState | undefined,
  runIsNew: boolean,
  event: HookEvent,
): void {
  if (s.status === "starting") {
    s.status = "live";
  } else if (s.status === "lost" && newerThanEnd(s, event)) {
    s.status = "live";
    s.ended_at = null;
    s.end_reason = null;
    if (run) {
      run.ended_at = null;
      run.end_reason = null;
    }
  } else if (isFinished(s.status) && run && runIsNew) {
    run.ended_at = s.ended_at;
    run.end_reason = s.end_reason;
  }
}

function applyRunsGone(state: LedgerState, gone: ProcessKey[], at: string): LedgerState {
  if (!state.session) return state;
  const runs = state.runs.map((r) => {
    if (r.ended_at === null && gone.some((g) => sameProcess(r, g))) {
      return { ...r, ended_at: at, end_reason: "process gone" };
    }
    return { ...r };
  });
  const s = { ...state.session };
  const anyOpen = runs.some((r) => r.ended_at === null);
  if ((s.status === "live" || s.status === "starting") && !anyOpen) {
    s.status = "lost";
    s.ended_at = at;
    s.end_reason = "process gone";
  }
  return { session: s, runs };
}

function applyKillClaimed(state: LedgerState, at: string, reason: string): LedgerState {
  if (!state.session) return state;
  const s = { ...state.session };
  if (s.status === "live" || s.status === "starting" || s.status === "lost") {
    s.status = "killed";
    s.ended_at = at;
    s.end_reason = reason;
  }
  return { session: s, runs: state.runs.map((r) => ({ ...r })) };
}

/** Only a running session with no open run: one whose process asm knows goes through END's signal instead. */
function applyEndedUnseen(state: LedgerState, at: string): LedgerState {
  if (!state.session) return state;
  const s = { ...state.session };
  const running = s.status === "live" || s.status === "starting";
  if (running && !state.runs.some((r) => r.ended_at === null)) {
    s.status = "lost";
    s.ended_at = at;
    s.end_reason = UNSEEN_END_REASON;
  }
  return { session: s, runs: state.runs.map((r) => ({ ...r })) };
}

function applyKillReleased(
  state: LedgerState,
  previous: Pick<SessionState, "status" | "ended_at" | "end_reason">,
): LedgerState {
  if (!state.session || state.session.status !== "killed") return state;
  // only the claim goes back: what the session said meanwhile (its runs, its last sighting) stays
  const s = {
    ...state.session,
    status: previous.status,
    ended_at: previous.ended_at,
    end_reason: previous.end_reason,
  };
  return { session: s, runs: state.runs.map((r) => ({ ...r })) };
}

function applyRunEvidenced(
  state: LedgerState,
  run: ProcessKey & { boot_id: string | null },
  at: string,
): LedgerState {
  const s = state.session;
  if (!s || (s.status !== "live" && s.status !== "starting")) return state;
  const runs = state.runs.map((r) => ({ ...r }));
  if (runs.some((r) => sameProcess(r, run) && r.ended_at === null)) return state;
  runs.push({
    pid: run.pid,
    proc_start: run.proc_start,
    boot_id: run.boot_id,
    launch_token: null,
    started_at: at,
    ended_at: null,
    start_source: "evidence",
    end_reason: null,
  });
  return { session: { ...s, status: "live" }, runs };
}

/**
 * A resume proven from the agent's own records (no hook yet): a finished session is live again with the launch's
 * run, as a SessionStart with source resume would make it. A session already live or starting is driven by
 * someone else and stays as it is; evidence older than the end is not a resume.
 */
function applyResumeEvidenced(
  state: LedgerState,
  run: ProcessKey & { boot_id: string | null },
  launchToken: string,
  at: string,
): LedgerState {
  const s = state.session;
  if (!s || !isFinished(s.status) || (s.ended_at !== null && at <= s.ended_at)) return state;
  const runs = state.runs.map((r) => ({ ...r }));
  if (runs.some((r) => sameProcess(r, run))) return state;
  runs.push({
    pid: run.pid,
    proc_start: run.proc_start,
    boot_id: run.boot_id,
    launch_token: launchToken,
    started_at: at,
    ended_at: null,
    start_source: "resume",
    end_reason: null,
  });
  return {
    session: { ...s, status: "live", ended_at: null, end_reason: null, last_seen: later(s.last_seen, at) },
    runs,
  };
}

/**
 * The next state of a session after one input. Pure: same inputs, same output; the inputs are not mutated.
 * Duplicate events are discarded before this is called (the ledger keys events on event_id).
 */
export function transition(state: LedgerState, input: LedgerInput): LedgerState {
  switch (input.kind) {
    case "hook":
      return applyHook(state, input.event, input.clearedFrom ?? null);
    case "runs_gone":
      return applyRunsGone(state, input.runs, input.at);
    case "kill_claimed":
      return applyKillClaimed(state, input.at, input.reason ?? "ended from asm");
    case "ended_unseen":
      return applyEndedUnseen(state, input.at);
    case "kill_released":
      return applyKillReleased(state, input.previous);
    case "run_evidenced":
      return applyRunEvidenced(state, input.run, input.at);
    case "resume_evidenced":
      return applyResumeEvidenced(state, input.run, input.launch_token, input.at);
  }
}
