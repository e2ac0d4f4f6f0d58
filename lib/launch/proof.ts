/**
 * Proof before action. Pure: these take the facts (a run as the ledger recorded it, the process table of this
 * instant, the current boot, the panes of the terminal host) and say whether the process and the window are
 * provably the ones asm means. END signals nothing, and send types nothing, that is not proven here.
 * @module
 */
import type { AgentConfig } from "../agents/mod.ts";
import type { ProcInfo } from "../procs/mod.ts";
import type { PaneInfo } from "./terminal_host.ts";

/** A run as the ledger recorded it. */
export interface RecordedRun {
  pid: number;
  proc_start: number;
  boot_id: string | null;
}

/** Whether a run's process is provably the agent process it was. */
export type ProcessProof = { ok: true; proc: ProcInfo } | { ok: false; why: string };

/**
 * Proves a run's process: a process with that pid exists, its start ticks equal the recorded ones, the boot is
 * the one it was recorded on, and its executable (and script, for an interpreter) is the agent's. A recycled pid
 * fails the second test, so it is never signalled.
 */
export function proveRun(
  run: RecordedRun,
  agent: AgentConfig,
  procs: ReadonlyMap<number, ProcInfo>,
  bootId: string | null,
  isAgent: (agent: AgentConfig, exe: string | null, argv: string[]) => boolean,
): ProcessProof {
  const proc = procs.get(run.pid);
  if (!proc) return { ok: false, why: `its process (pid ${run.pid}) is gone` };
  if (proc.startTicks !== run.proc_start) {
    return {
      ok: false,
      why:
        `pid ${run.pid} now belongs to another process (started at tick ${proc.startTicks}, not ${run.proc_start})`,
    };
  }
  if (run.boot_id !== null && bootId !== null && run.boot_id !== bootId) {
    return { ok: false, why: `its process (pid ${run.pid}) was recorded before the machine last started` };
  }
  if (!isAgent(agent, proc.exe, proc.argv)) {
    return {
      ok: false,
      why: `pid ${run.pid} is not ${agent.display} (its program is ${proc.exe ?? "unreadable"})`,
    };
  }
  return { ok: true, proc };
}

/**
 * The pane whose process tree holds `pid`: walking up from `pid` through the process table, the first process
 * that is a pane's own process. Null when the process is in no pane the host can see.
 */
export function paneCarrying(
  panes: readonly PaneInfo[],
  procs: ReadonlyMap<number, ProcInfo>,
  pid: number,
): PaneInfo | null {
  const byPid = new Map(panes.map((p) => [p.panePid, p]));
  const seen = new Set<number>();
  for (let current = procs.get(pid); current && !seen.has(current.pid); current = procs.get(current.ppid)) {
    seen.add(current.pid);
    const pane = byPid.get(current.pid);
    if (pane) return pane;
  }
  return null;
}
