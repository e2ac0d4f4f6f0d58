/**
 * Live runs for a bench: sleeping processes the bench starts (`sleep 600`), each registered as an agent session
 * through the ledger's own `applyEvent` with its real pid, start ticks and boot id, so the poll judges real
 * processes. The bench stops them, by pid, when it is done.
 * @module
 */
import { bootId, readProc } from "../lib/procs/mod.ts";
import { type HookEvent, isoAt } from "../lib/ledger/mod.ts";
import { benchEvent } from "./events.ts";

/** The agents a bench's sessions take turns at. */
export const BENCH_AGENTS = ["claude", "codex", "gemini"] as const;

/** One sleeping process and the session it carries. */
export interface LiveRun {
  pid: number;
  procStart: number;
  agent: string;
  agentSessionId: string;
}

/** The sleeping processes of one bench. */
export interface LiveRuns {
  runs: LiveRun[];
  /** The SessionStart events that register them (one per run, agents mixed). */
  events(at: number): HookEvent[];
  /** Stops every process this started (SIGTERM, by pid) and waits for each. */
  stop(): Promise<void>;
}

/** Starts `count` sleeping processes, one per session, the agents taking turns. */
export async function startLiveRuns(count: number, label = "bench"): Promise<LiveRuns> {
  const children: Deno.ChildProcess[] = [];
  const stop = async () => {
    for (const child of children) {
      try {
        child.kill("SIGTERM");
      } catch (err) {
        // already gone: nothing to stop
        if (!(err instanceof TypeError)) throw err;
      }
    }
    await Promise.all(children.map((c) => c.status));
  };
  try {
    const runs: LiveRun[] = [];
    for (let i = 0; i < count; i++) {
      const child = new Deno.Command("sleep", {
        args: ["600"],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      })
        .spawn();
      children.push(child);
      const proc = readProc(child.pid);
      if (!proc) throw new Error(`the bench's sleeping process ${child.pid} is not in /proc`);
      runs.push({
        pid: child.pid,
        procStart: proc.startTicks,
        agent: BENCH_AGENTS[i % BENCH_AGENTS.length],
        agentSessionId: `${label}-live-${i}`,
      });
    }
    const boot = bootId();
    return {
      runs,
      events: (at) =>
        runs.map((run, i) =>
          benchEvent(run.agent, run.agentSessionId, "SessionStart", isoAt(at + i), {
            session_name: `Live bench session ${i}`,
            agent_pid: run.pid,
            agent_proc_start: run.procStart,
            boot_id: boot,
          })
        ),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
