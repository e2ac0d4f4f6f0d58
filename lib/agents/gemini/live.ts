/**
 * Gemini CLI keeps no record of its running sessions (agents/gemini.md section 5): the only evidence of its own is
 * the process, a node child whose script resolves to `@google/gemini-cli/bundle/gemini.js` (under a launcher node
 * running the same script; the hooks record the child, their nearest matching ancestor). Its activity comes from
 * the BeforeAgent / AfterAgent hooks, which the ledger already holds as UserPromptSubmit / Stop.
 * @module
 */
import { isAgentProcess } from "../glob.ts";
import type { LiveInfo, LiveQuery, LiveReport, OpenSessionRef, ProcLookup } from "../protocol.ts";
import type { ProcInfo } from "../../procs/mod.ts";

/**
 * Pure: an open session is live in Gemini's own terms when one of its runs is a process with the recorded start
 * ticks that is Gemini CLI (node AND the gemini.js script). No activity: the hooks speak for Gemini.
 */
export function geminiLiveFrom(
  open: OpenSessionRef[],
  procs: ProcLookup,
  isGemini: (p: ProcInfo) => boolean,
): LiveReport {
  const sessions = new Map<string, LiveInfo>();
  for (const ref of open) {
    for (const run of ref.runs) {
      const proc = procs.get(run.pid);
      if (!proc || proc.startTicks !== run.procStart || !isGemini(proc)) continue;
      sessions.set(ref.agentSessionId, {
        agentSessionId: ref.agentSessionId,
        pid: run.pid,
        procStart: run.procStart,
        activity: null,
      });
      break;
    }
  }
  // no carriers: nothing Gemini writes lists the sessions a process carries
  return { sessions, carriers: new Map() };
}

/** Gemini CLI's `live()`: its open sessions' processes, checked to be Gemini CLI. */
export function geminiLive(query: LiveQuery): LiveReport {
  return geminiLiveFrom(query.open, query.procs, (p) => isAgentProcess(query.agent, p.exe, p.argv));
}
