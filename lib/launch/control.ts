/**
 * Acting on a running session: END (stop it and let its window close), send (type a slash command into its
 * pane) and focus (bring its window forward). Each acts on that very process, proven first (pid, start ticks,
 * boot, the agent's program), and refuses with a sentence when it cannot prove it. Never a second copy, never a
 * guess.
 * @module
 */
import { adapterOf, type AgentConfig, isAgentProcess } from "../agents/mod.ts";
import { activityOf, isoAt, type RunRow, type SessionRow, unsureOf } from "../ledger/mod.ts";
import { bootId, isSameProcess, LINUX_PROC, type ProcInfo, snapshot } from "../procs/mod.ts";
import { errorText } from "../lang/mod.ts";
import { type ActionDeps, ActionRefused } from "./deps.ts";
import { paneCarrying, proveRun } from "./proof.ts";
import type { PaneInfo } from "./terminal_host.ts";

/**
 * What END did. `window_closed` is looked at, not assumed: the session's own pane gone from the terminal; null when
 * the session is in no window asm can see.
 */
export interface EndResult {
  asm_id: string;
  /** `lost`: no process of the session could be seen, so none was signalled ({@link UNSEEN_END_NOTE}). */
  status: "killed" | "lost";
  /** The processes signalled. */
  pids: number[];
  /** The last signal sent, or null when nothing was signalled. */
  signal: "SIGTERM" | "SIGKILL" | null;
  /** Every signalled process is gone. */
  exited: boolean;
  window_id: string | null;
  windows_before: number | null;
  windows_after: number | null;
  window_closed: boolean | null;
  /** What the person should know of an END that signalled nothing; absent otherwise. */
  note?: string;
}

/** What END answers when it recorded a session ended without a process to signal. */
export const UNSEEN_END_NOTE =
  "asm could not see this session's process, so it signalled nothing: it recorded " +
  "the session ended. If the agent is still running, quit it in its own window; its next hook event shows it " +
  "live again";

/** What send did. */
export interface SendResult {
  asm_id: string;
  pane_id: string;
  window_id: string;
  typed: string;
}

/** What focus did. */
export interface FocusResult {
  asm_id: string;
  pane_id: string;
  window_id: string;
}

interface Proven {
  row: SessionRow;
  agent: AgentConfig;
  runs: { run: RunRow; proc: ProcInfo }[];
  procs: Map<number, ProcInfo>;
}

/** The session's open runs whose processes are proven now; refuses with the reason when none is. */
function proveSession(deps: ActionDeps, asmId: string, action: string): Proven {
  const row = deps.ledger.session(asmId);
  if (!row) throw new ActionRefused("unknown", `asm has no session ${asmId}`);
  if (row.status !== "live" && row.status !== "starting") {
    throw new ActionRefused(
      "conflict",
      `this session is not running (it is ${row.status}); there is nothing to ${action}`,
    );
  }
  const agent = deps.agents.find((a) => a.name === row.agent);
  if (!agent) {
    throw new ActionRefused("conflict", `this session's agent "${row.agent}" is no longer in agents.toml`);
  }
  const source = deps.proc ?? LINUX_PROC;
  const procs = snapshot(source);
  const boot = bootId(source);
  const open = deps.ledger.runs(asmId).filter((r) => r.ended_at === null);
  if (open.length === 0) {
    throw new ActionRefused(
      "conflict",
      `asm cannot prove which process carries this session (no hook has reported its process), so it will not ${action} it`,
    );
  }
  const runs: Proven["runs"] = [];
  const why: string[] = [];
  for (const run of open) {
    const proof = proveRun(run, agent, procs, boot, isAgentProcess);
    if (proof.ok) runs.push({ run, proc: proof.proc });
    else why.push(proof.why);
  }
  if (runs.length === 0) {
    throw new ActionRefused(
      "conflict",
      `asm cannot prove this session's process: ${why.join("; ")}; it will not ${action} it`,
    );
  }
  return { row, agent, runs, procs };
}

/** END's refusal of a session whose program is shared with another application (agents.toml or the hook), or null. */
export function sharedRefusal(agent: AgentConfig, row: Pick<SessionRow, "pid_shared">): string | null {
  if (!agent.shared && row.pid_shared === 0) return null;
  return `${agent.display}'s program is shared with another application (agents.toml marks it shared), so asm ` +
    "never ends it: a signal could close that application too. Quit the session in its own window";
}

async function gone(
  pids: { pid: number; startTicks: number }[],
  deps: ActionDeps,
  waitMs: number,
): Promise<boolean> {
  const source = deps.proc ?? LINUX_PROC;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const alive = pids.filter((p) =>
      isSameProcess({ pid: p.pid, procStart: p.startTicks, bootId: null }, source)
    );
    if (alive.length === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function signal(deps: ActionDeps, pid: number, sig: "SIGTERM" | "SIGKILL"): void {
  try {
    (deps.kill ?? Deno.kill)(pid, sig);
  } catch (err) {
    // gone between the proof and the signal: that is what END wanted
    if (
      !(err instanceof Deno.errors.NotFound) &&
      !(err instanceof Error && /ESRCH|No such process/.test(err.message))
    ) {
      throw err;
    }
  }
}

/**
 * END: proves the session's processes, claims `killed` in the ledger BEFORE the signal (a poll landing in between
 * must not overwrite it), sends SIGTERM (SIGKILL after the wait, to the same proven process only), then counts
 * the terminal's windows: `window_closed` is the session's own pane gone from the terminal (the counts before and
 * after are reported beside it; another window opening meanwhile does not make a closed one open).
 */
export async function endSession(deps: ActionDeps, asmId: string): Promise<EndResult> {
  const row0 = deps.ledger.session(asmId);
  if (row0) {
    const agent0 = deps.agents.find((a) => a.name === row0.agent);
    const refusal = agent0 ? sharedRefusal(agent0, row0) : null;
    if (refusal) throw new ActionRefused("conflict", refusal);
  }
  if (row0 && unseen(deps, row0)) return endUnseen(deps, asmId);
  const { agent, runs, procs } = proveSession(deps, asmId, "end");
  for (const { proc } of runs) {
    const refusal = adapterOf(agent).launch?.endRefusal?.(proc) ?? null;
    if (refusal) throw new ActionRefused("conflict", refusal);
  }
  const panes = await deps.host.panes();
  const pane = runs.map(({ proc }) => paneCarrying(panes, procs, proc.pid)).find((p) => p !== null) ?? null;
  const before = pane ? await deps.host.windowCount() : null;

  const claimedFrom = deps.ledger.session(asmId)!;
  deps.ledger.claimKilled(asmId, isoAt(deps.now?.()));
  const targets = runs.map(({ proc }) => ({ pid: proc.pid, startTicks: proc.startTicks }));
  const waitMs = deps.endWaitMs ?? 5000;
  let used: EndResult["signal"] = "SIGTERM";
  let exited: boolean;
  try {
    for (const t of targets) signal(deps, t.pid, "SIGTERM");
    exited = await gone(targets, deps, waitMs);
    if (!exited) {
      // only a process that is still provably the same one gets the harder signal
      used = "SIGKILL";
      const source = deps.proc ?? LINUX_PROC;
      for (const t of targets) {
        if (isSameProcess({ pid: t.pid, procStart: t.startTicks, bootId: null }, source)) {
          signal(deps, t.pid, "SIGKILL");
        }
      }
      exited = await gone(targets, deps, 2000);
    }
  } catch (err) {
    release(deps, asmId, claimedFrom);
    throw new ActionRefused(
      "conflict",
      `END could not signal the session's process (pid ${targets.map((t) => t.pid).join(", ")}): ${
        errorText(err)
      }; the session is as it was`,
    );
  }
  if (!exited) {
    // not even SIGKILL made it go (a process stuck in the kernel): the claim would be a lie on the page
    release(deps, asmId, claimedFrom);
    throw new ActionRefused(
      "conflict",
      `END sent SIGTERM and then SIGKILL, but the session's process (pid ${
        targets.map((t) => t.pid).join(", ")
      }) is still running; the session is as it was`,
    );
  }
  let after: number | null = null;
  let closed: boolean | null = null;
  if (pane && before !== null) {
    const deadline = Date.now() + waitMs;
    for (;;) {
      // the session's own pane (its id and its process: ids start again in a new tmux server) is gone; the
      // count is reported, not compared: another launch may open a window meanwhile. Counted after the panes
      // are listed, so a window that closes between the two reads is never reported closed and still counted
      closed = !(await deps.host.panes()).some((p) => p.paneId === pane.paneId && p.panePid === pane.panePid);
      after = await deps.host.windowCount();
      if (closed || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  deps.log?.({
    what: "ended",
    asm_id: asmId,
    pids: targets.map((t) => t.pid),
    signal: used,
    window_closed: closed,
  });
  return {
    asm_id: asmId,
    status: "killed",
    pids: targets.map((t) => t.pid),
    signal: used,
    exited,
    window_id: pane?.windowId ?? null,
    windows_before: before,
    windows_after: after,
    window_closed: closed,
  };
}

/**
 * A live session no process of which asm has ever seen: no open run, and the poll found none in the agent's own
 * records either (its unsure reason). A starting session is not one: its launch is still in flight.
 */
function unseen(deps: ActionDeps, row: SessionRow): boolean {
  if (row.status !== "live") return false;
  if (deps.ledger.runs(row.asm_id).some((r) => r.ended_at === null)) return false;
  return unsureOf(deps.ledger, row.asm_id) !== null;
}

/**
 * END without a process: nothing to prove and nothing to signal, so no row or card can be stuck on a session
 * asm cannot see. The ledger records it lost with its reason (a later hook event revives it, as any lost
 * session revives); the card is filed by the caller as for any END.
 */
function endUnseen(deps: ActionDeps, asmId: string): EndResult {
  const status = deps.ledger.endUnseen(asmId, isoAt(deps.now?.()));
  if (status !== "lost") {
    throw new ActionRefused(
      "conflict",
      `this session changed while END looked at it (it is ${status}); try again`,
    );
  }
  deps.log?.({ what: "ended without a process", asm_id: asmId });
  return {
    asm_id: asmId,
    status: "lost",
    pids: [],
    signal: null,
    exited: true,
    window_id: null,
    windows_before: null,
    windows_after: null,
    window_closed: null,
    note: UNSEEN_END_NOTE,
  };
}

/** Takes END's claim back on its failure path: the session returns to the status, end and reason it had. */
function release(deps: ActionDeps, asmId: string, before: SessionRow): void {
  deps.ledger.releaseKill(asmId, {
    status: before.status,
    ended_at: before.ended_at,
    end_reason: before.end_reason,
  });
  deps.log?.({ what: "END released its claim", asm_id: asmId, status: before.status });
}

/** The pane carrying one of the session's proven processes, or a refusal. */
export async function provenPane(deps: ActionDeps, asmId: string, action: string): Promise<PaneInfo> {
  const { runs, procs } = proveSession(deps, asmId, action);
  const panes = await deps.host.panes();
  for (const { proc } of runs) {
    const pane = paneCarrying(panes, procs, proc.pid);
    if (pane) return pane;
  }
  throw new ActionRefused(
    "conflict",
    `asm cannot prove which ${deps.host.name} window runs this session (its process, pid ${
      runs.map((r) => r.proc.pid).join(", ")
    }, is in no pane asm can see), so it will not ${action} it`,
  );
}

/** The most one Send may type. */
export const MAX_SEND_CHARS = 10_000;

/**
 * What Send types: one line of printable text (a prompt, or a slash command), at most {@link MAX_SEND_CHARS}.
 * A newline would press Enter in the middle of it, so it is refused: the terminal view types anything.
 */
export function sendTextProblem(text: unknown): string | null {
  if (typeof text !== "string" || text.trim() === "") return "send types text: give it some";
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(text)) {
    return "send types one line of printable text (its Enter is pressed after it); the window in the page types anything";
  }
  if (text.length > MAX_SEND_CHARS) return `send types at most ${MAX_SEND_CHARS} characters`;
  return null;
}

/**
 * Types one line (a prompt, or a slash command) and Enter into the session's own pane, after proving the pane's
 * process tree holds its process.
 */
export async function sendCommand(deps: ActionDeps, asmId: string, text: unknown): Promise<SendResult> {
  const problem = sendTextProblem(text);
  if (problem) throw new ActionRefused("invalid", problem);
  return await typeLine(deps, asmId, text as string);
}

/**
 * Types one line and its Enter into the session's own proven pane (Send, and the live closeout, whose line comes
 * from agents.toml); refused while the session waits on a dialog, which would take the line as its answer.
 */
export async function typeLine(deps: ActionDeps, asmId: string, text: string): Promise<SendResult> {
  // a dialog open in the window would take the text and its Enter as its answer
  const { activity, reason } = activityOf(deps.ledger, asmId);
  if (activity === "waiting") {
    throw new ActionRefused(
      "conflict",
      `the session is waiting on you${reason ? ` (${reason})` : ""}: what Send types, and its Enter, would ` +
        `answer that dialog; answer it in its window first (the session's page shows the window: switch on ` +
        `"type into it")`,
    );
  }
  const pane = await provenPane(deps, asmId, "type into");
  await deps.host.type(pane.paneId, text);
  deps.log?.({ what: "sent", asm_id: asmId, pane: pane.paneId });
  return { asm_id: asmId, pane_id: pane.paneId, window_id: pane.windowId, typed: text };
}

/**
 * Which of these sessions have a pane proven to hold their process (one listing of the host's panes): the list
 * offers Jump and Send only on those, since asm refuses the others.
 */
export async function provenPanes(deps: ActionDeps, asmIds: readonly string[]): Promise<Set<string>> {
  const proven = new Set<string>();
  if (asmIds.length === 0) return proven;
  let panes: PaneInfo[];
  try {
    panes = await deps.host.panes();
  } catch {
    return proven; // no terminal host: no pane is proven
  }
  for (const asmId of asmIds) {
    try {
      const { runs, procs } = proveSession(deps, asmId, "focus");
      if (runs.some(({ proc }) => paneCarrying(panes, procs, proc.pid))) proven.add(asmId);
    } catch {
      // not provable: no pane
    }
  }
  return proven;
}

/** Brings the session's own window forward, after the same proof. */
export async function focusSession(deps: ActionDeps, asmId: string): Promise<FocusResult> {
  const pane = await provenPane(deps, asmId, "focus");
  await deps.host.focus(pane.paneId);
  return { asm_id: asmId, pane_id: pane.paneId, window_id: pane.windowId };
}
