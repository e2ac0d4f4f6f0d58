/**
 * The process-truth half of the poll: which open runs are provably gone. A run is alive only if a process with
 * its pid exists, its start ticks equal the recorded ones and the boot is the current one; a recycled pid never
 * keeps a dead session alive. The full poll (agent evidence, activity words) is `poll.ts` over `judge.ts`; gate 0
 * uses this process-only pass.
 * @module
 */
import { isoAt, type Ledger, type ProcessKey, type RunRow } from "../ledger/mod.ts";
import { isSameProcess, LINUX_PROC, type ProcSource } from "../procs/mod.ts";

/** Pure: the open runs whose process is not the recorded one, grouped by session. */
export function goneRuns(open: RunRow[], alive: (run: RunRow) => boolean): Map<string, ProcessKey[]> {
  const gone = new Map<string, ProcessKey[]>();
  for (const run of open) {
    if (alive(run)) continue;
    const list = gone.get(run.asm_id) ?? [];
    list.push({ pid: run.pid, proc_start: run.proc_start });
    gone.set(run.asm_id, list);
  }
  return gone;
}

/** Marks the runs whose processes are gone; a live session with no run left becomes lost. Returns the ids. */
export function reapGoneRuns(ledger: Ledger, options: { source?: ProcSource; at?: string } = {}): string[] {
  const source = options.source ?? LINUX_PROC;
  const at = options.at ?? isoAt();
  const gone = goneRuns(
    ledger.openRuns(),
    (run) => isSameProcess({ pid: run.pid, procStart: run.proc_start, bootId: run.boot_id }, source),
  );
  for (const [asmId, runs] of gone) ledger.runsGone(asmId, runs, at);
  return [...gone.keys()];
}
