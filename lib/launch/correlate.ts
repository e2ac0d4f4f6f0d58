/**
 * Correlation: which session did each launch become? Two independent paths to the same fact, because the fast
 * one does not always exist, plus adoption for a window no hook reports:
 *
 * 1. token (fast): a hook event carried the launch token (from `ASM_LAUNCH_TOKEN`, or from an ancestor's command
 *    line); the drain stored it on the run and the session.
 * 2. ancestry (guaranteed): in the process table, the agent process under the process whose command line
 *    carries the token is the process of an open run.
 * 3. adoption: the agent process under the token holds a thread by the agent's own records, and the four
 *    proofs hold together (see {@link adoptionVerdict}). A RESUME is adopted the same way when the thread is
 *    the very session it resumes, finished: an agent that reports only at the first prompt (Codex's TUI) would
 *    otherwise read "lost" while its window is open and waiting.
 *
 * A launch still unmatched 120 s after it was requested expires and stays as evidence. Once a launch is matched
 * or expired its files (launcher, prompt, environment) are deleted (files.ts). `correlateOnce` is the shell the
 * server runs every 2 s; the decisions are pure. Every launch is on its own: one whose match or adoption fails
 * costs one log line (once) and the others are still matched; only a ledger refusing every write stops the pass.
 * @module
 */
import { adapterOf, type AgentConfig, isAgentProcess } from "../agents/mod.ts";
import {
  adoptThread,
  asmIdOf,
  expireLaunches,
  isoAt,
  launchesSeenInEvents,
  type LaunchRow,
  launchRow,
  type Ledger,
  LedgerUnwritableError,
  matchLaunch,
  pendingLaunches,
  type Status,
  underHarnessRoot,
} from "../ledger/mod.ts";
import { bootId, LINUX_PROC, type ProcInfo, type ProcSource, snapshot } from "../procs/mod.ts";
import { sweepLaunchFiles } from "./files.ts";
import { type Clock, errorText, type Log } from "../lang/mod.ts";

/** How long a launch may stay unmatched before it expires. */
export const LAUNCH_EXPIRY_MS = 120_000;

/**
 * How long a launch's own hooks get to report before adoption looks at it: hooks report within seconds, and a
 * token match says more (the agent itself told us) than an adoption does.
 */
export const ADOPT_AFTER_MS = 10_000;

/**
 * Pure: whether a command line is one of a launch's own: the launcher (`/bin/sh <dir>/<token>.sh <token>`) or
 * the shim that replaced it (`deno run ... shim.ts <token> ...`). A command line that merely mentions the token
 * is not: the tmux server a launch started keeps that launch's `new-session ... -- /bin/sh <token>.sh <token>`
 * as its own command line, and every later window of every other launch runs below it.
 */
export function launchedBy(argv: readonly string[], token: string): boolean {
  if (argv.length === 3 && argv[2] === token && argv[1].endsWith(`/${token}.sh`)) return true;
  if (argv[1] !== "run") return false;
  const shim = argv.findIndex((a) => a === "shim.ts" || a.endsWith("/shim.ts"));
  return shim > 1 && argv[shim + 1] === token;
}

/**
 * Pure: the processes below the launch's own process (the launcher script, then the shim that replaced it;
 * {@link launchedBy}), nearest first.
 */
export function processesUnderToken(token: string, procs: ReadonlyMap<number, ProcInfo>): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs.values()) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const holders = [...procs.values()].filter((p) => launchedBy(p.argv, token));
  const seen = new Set(holders.map((p) => p.pid));
  const out: ProcInfo[] = [];
  const queue = [...holders];
  while (queue.length) {
    const next = queue.shift()!;
    for (const child of children.get(next.pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** What adoption decides on, for one pending launch. */
export interface AdoptionFacts {
  /** The launch: asm's own (it is in the launches table) and unmatched. */
  launch: LaunchRow;
  /** The launch's window process is alive with the start ticks recorded when it opened. */
  paneAlive: boolean;
  /** The agent process found under the token, or null. */
  proc: ProcInfo | null;
  /** That process's working folder. */
  procCwd: string | null;
  /** The thread the agent's own records say that process holds, or null. */
  thread: string | null;
  /** The ledger's status for that thread's row, or null when there is no row. */
  existing: Status | null;
  /** That thread's row, as asm ids go (a RESUME must hold the very session it resumes). */
  threadAsmId: string | null;
}

/**
 * Pure: the four proofs of adoption, together. (1) the launch is asm's and unmatched; (2) its recorded process
 * is alive; (3) the thread is in that folder, opened inside that window of time (by a process that started after
 * the launch's window did); (4) nothing else is driving it (the ledger has no row for it: a live or starting
 * row means somebody else has it). A RESUME's thread must be the session it resumes, and that row finished; a
 * new launch's thread must have no row at all (a finished one is reopened by a resume, not by a new launch).
 */
export function adoptionVerdict(f: AdoptionFacts): { adopt: true } | { adopt: false; why: string } {
  if (f.launch.matched_asm_id !== null || f.launch.expired) {
    return { adopt: false, why: "the launch is not pending" };
  }
  if (!f.paneAlive) return { adopt: false, why: "the launch's window is gone" };
  if (!f.proc) return { adopt: false, why: "no agent process runs under the launch's token" };
  if (f.thread === null) return { adopt: false, why: "the agent's own records name no single thread for it" };
  if (f.procCwd !== f.launch.cwd) {
    return { adopt: false, why: "the agent runs in another folder than the launch" };
  }
  if (f.launch.pane_proc_start === null || f.proc.startTicks < f.launch.pane_proc_start) {
    return { adopt: false, why: "the agent process is older than the launch's window" };
  }
  if (f.existing === "live" || f.existing === "starting") {
    return { adopt: false, why: "another process drives it" };
  }
  if (f.launch.kind === "resume") {
    if (f.threadAsmId !== f.launch.resumes_asm_id) {
      return { adopt: false, why: "the agent holds another thread than the session the resume asked for" };
    }
    if (f.existing === null) return { adopt: false, why: "the ledger has no row for the resumed session" };
    return { adopt: true };
  }
  if (f.existing !== null) return { adopt: false, why: "the ledger already has a row for it" };
  return { adopt: true };
}

/** What the correlation service needs. */
export interface CorrelateDeps {
  ledger: Ledger;
  /** Where the agents' folders are. */
  env: Record<string, string>;
  agents: AgentConfig[];
  /** Folders whose sessions are the harness's own (hidden rows). */
  harnessRoots: readonly string[];
  /** `$ASM_HOME/launches`: the files of matched and expired launches there are deleted; absent, none are. */
  launchesDir?: string;
  proc?: ProcSource;
  now?: Clock;
  log?: Log;
  /**
   * The launch failures named already, kept between passes (the server's): a launch failing every 2 s is named
   * once. Without it each pass names its failures afresh.
   */
  logged?: Set<string>;
}

/** What one pass did. */
export interface CorrelateReport {
  token: number;
  ancestry: number;
  adopted: number;
  expired: number;
  /** Launch files deleted (their launch matched, expired or never opened a window). */
  filesDeleted: number;
}

/** One correlation pass: the fast path, the ancestry walk and adoption for what is left, then expiry. */
export function correlateOnce(deps: CorrelateDeps): CorrelateReport {
  const nowMs = deps.now?.() ?? Date.now();
  const at = isoAt(nowMs);
  const report: CorrelateReport = { token: 0, ancestry: 0, adopted: 0, expired: 0, filesDeleted: 0 };
  const failed = launchFailure(deps);
  for (const seen of launchesSeenInEvents(deps.ledger)) {
    try {
      if (matchLaunch(deps.ledger, seen.token, seen.asm_id, "token", at)) {
        report.token++;
        deps.log?.({ what: "launch matched", token: seen.token, asm_id: seen.asm_id, by: "token" });
      }
    } catch (err) {
      failed(seen.token, err);
    }
  }
  const pending = pendingLaunches(deps.ledger);
  if (pending.length) {
    const source = deps.proc ?? LINUX_PROC;
    const procs = snapshot(source);
    const boot = bootId(source);
    const open = deps.ledger.openRuns();
    for (const launch of pending) {
      const agent = deps.agents.find((a) => a.name === launch.agent);
      if (!agent) continue;
      try {
        const found = processesUnderToken(launch.token, procs).filter((p) =>
          isAgentProcess(agent, p.exe, p.argv)
        );
        const run = open.find((r) =>
          found.some((p) => p.pid === r.pid && p.startTicks === r.proc_start) && (r.boot_id ?? boot) === boot
        );
        if (run) {
          if (matchLaunch(deps.ledger, launch.token, run.asm_id, "ancestry", at)) {
            report.ancestry++;
            deps.log?.({ what: "launch matched", token: launch.token, asm_id: run.asm_id, by: "ancestry" });
          }
          continue;
        }
        if (Date.parse(launch.requested_at) > nowMs - ADOPT_AFTER_MS) continue;
        if (adopt(deps, launch, agent, found, procs, source, at)) report.adopted++;
      } catch (err) {
        failed(launch.token, err);
      }
    }
  }
  const expired = expireLaunches(deps.ledger, isoAt(nowMs - LAUNCH_EXPIRY_MS), at);
  for (const token of expired) deps.log?.({ what: "launch expired", token });
  report.expired = expired.length;
  if (deps.launchesDir !== undefined) {
    report.filesDeleted = sweepLaunchFiles(deps.launchesDir, (token) => launchRow(deps.ledger, token), {
      nowMs,
      expiryMs: LAUNCH_EXPIRY_MS,
      log: deps.log,
    }).length;
  }
  return report;
}

/**
 * One launch's failure: one log line per (launch, error), once while `deps.logged` is kept. A ledger refusing
 * every write is no launch's failure: it stops the pass (the ledger watch says why).
 */
function launchFailure(deps: CorrelateDeps): (token: string, err: unknown) => void {
  const logged = deps.logged ?? new Set<string>();
  return (token, err) => {
    if (err instanceof LedgerUnwritableError) throw err;
    const error = errorText(err);
    const key = `${token} ${error}`;
    if (logged.has(key)) return;
    logged.add(key);
    deps.log?.({ what: "launch failed to correlate", token, error });
  };
}

function adopt(
  deps: CorrelateDeps,
  launch: LaunchRow,
  agent: AgentConfig,
  found: ProcInfo[],
  procs: ReadonlyMap<number, ProcInfo>,
  source: ProcSource,
  at: string,
): boolean {
  const threadOf = adapterOf(agent).launch?.threadOf;
  if (!threadOf) return false;
  const pane = launch.pane_pid === null ? undefined : procs.get(launch.pane_pid);
  const paneAlive = pane !== undefined && pane.startTicks === launch.pane_proc_start;
  // the agent process nearest the token that its records tie to a thread
  let proc: ProcInfo | null = null;
  let thread: string | null = null;
  for (const p of found) {
    thread = threadOf({ pid: p.pid, startTicks: p.startTicks }, deps.env, source);
    if (thread !== null) {
      proc = p;
      break;
    }
  }
  const procCwd = proc ? source.readLink(`/proc/${proc.pid}/cwd`) : null;
  const threadAsmId = thread === null ? null : asmIdOf(agent.name, thread);
  const existing = threadAsmId === null ? null : deps.ledger.session(threadAsmId)?.status ?? null;
  const verdict = adoptionVerdict({
    launch,
    paneAlive,
    proc: proc ?? found[0] ?? null,
    procCwd,
    thread,
    existing,
    threadAsmId,
  });
  if (!verdict.adopt || proc === null || thread === null || threadAsmId === null) return false;
  if (launch.kind === "resume") {
    const run = { pid: proc.pid, proc_start: proc.startTicks, boot_id: bootId(source) };
    if (deps.ledger.adoptResume(threadAsmId, run, launch.token, at) !== "live") return false;
    matchLaunch(deps.ledger, launch.token, threadAsmId, "adoption", at);
    deps.log?.({ what: "resume adopted", token: launch.token, agent: agent.name, thread });
    return true;
  }
  const adopted = adoptThread(deps.ledger, {
    token: launch.token,
    agent: agent.name,
    agentSessionId: thread,
    cwd: launch.cwd,
    pid: proc.pid,
    procStart: proc.startTicks,
    bootId: bootId(source),
    harness: underHarnessRoot(launch.cwd, deps.harnessRoots),
    at,
  });
  if (adopted) deps.log?.({ what: "launch adopted", token: launch.token, agent: agent.name, thread });
  return adopted;
}
