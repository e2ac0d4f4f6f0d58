/**
 * Gemini CLI keeps no record of its running sessions (agents/gemini.md section 5): the only evidence of its own is
 * the process, a node child whose script resolves to `@google/gemini-cli/bundle/gemini.js` (under a launcher node
 * running the same script; the hooks record the child, their nearest matching ancestor). Its activity comes from
 * the BeforeAgent / AfterAgent hooks, which the ledger already holds as UserPromptSubmit / Stop, except a turn
 * that failed: AfterAgent fires for it too, so only the chat file's own `error` record tells (turn_trouble.ts).
 * @module
 */
import { readTailSync, RefusedFile } from "../../files/mod.ts";
import { errorText } from "../../lang/mod.ts";
import { isAgentProcess } from "../glob.ts";
import type {
  ActivityReading,
  Env,
  LiveInfo,
  LiveQuery,
  LiveReport,
  OpenSessionRef,
  ProcLookup,
} from "../protocol.ts";
import type { ProcInfo } from "../../procs/mod.ts";
import { geminiDir } from "./discover.ts";
import { chatTurnFailure } from "./turn_trouble.ts";

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

/** How much of a chat file is read for a failed turn: its newest records (a `$set` rewrite can be long). */
const TROUBLE_TAIL_BYTES = 256 * 1024;

/** Gemini CLI's `live()`: its open sessions' processes, checked to be Gemini CLI, and their chats' failed turns. */
export function geminiLive(query: LiveQuery): LiveReport {
  const report = geminiLiveFrom(query.open, query.procs, (p) => isAgentProcess(query.agent, p.exe, p.argv));
  // a live session's turn may have failed, which its hooks cannot say: its chat's newest records do
  const paths = new Map(query.open.map((ref) => [ref.agentSessionId, ref.transcriptPath]));
  const problems: string[] = [];
  for (const info of report.sessions.values()) {
    const path = paths.get(info.agentSessionId);
    if (path) info.activity = failedTurnAt(path, query.env, problems);
  }
  return problems.length > 0 ? { ...report, problems } : report;
}

/** The failed turn a chat file's tail shows; null when it shows none or is not Gemini's own file. */
function failedTurnAt(path: string, env: Env, problems: string[]): ActivityReading | null {
  try {
    const tail = readTailSync(path, TROUBLE_TAIL_BYTES, { within: [geminiDir(env)] });
    const failure = chatTurnFailure(new TextDecoder().decode(tail.bytes));
    return failure && { state: "failed", raw: "error", reason: failure.message, at: failure.at };
  } catch (err) {
    // not written yet (a fresh session), or not Gemini's own file (a hook's path is hostile): the hooks speak
    if (err instanceof Deno.errors.NotFound || err instanceof RefusedFile) return null;
    // unreadable (its mode, an I/O error): the session keeps its other evidence, the poll logs why
    problems.push(`the chat file ${path} could not be read: ${errorText(err)}`);
    return null;
  }
}
