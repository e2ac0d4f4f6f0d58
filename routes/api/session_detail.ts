/**
 * `GET /api/sessions/:id`: one session with its runs, its launches and its conversation (the agent's own
 * transcript, read through its classifier: message text only; tool calls and injected context marked so the page
 * can collapse them). A transcript the agent deleted is read from asm's compressed copy.
 * @module
 */
import { adapterOf, loadAgents } from "../../lib/agents/registry.ts";
import { filesOfSession, launchesOf } from "../../lib/ledger/mod.ts";
import { json, jsonError, type Route, type ServerContext } from "../../lib/server/router.ts";
import { transcriptBytes } from "../../lib/history/copies.ts";
import { messagesOf, type MessageView } from "../../lib/ui/transcript_view.ts";

/** The most of one transcript the detail reads: its tail, so a huge file costs a bounded read. */
const MAX_BYTES_PER_FILE = 16 * 1024 * 1024;

/** What the detail answers. */
export interface SessionDetail {
  session: Record<string, unknown>;
  runs: unknown[];
  launches: unknown[];
  messages: MessageView[];
  /** messages left out before the newest ones shown */
  truncated: number;
  /** why there is no conversation, when there is none */
  note: string | null;
}

function* linesOf(bytes: Uint8Array): Generator<string> {
  let start = 0;
  if (bytes.length > MAX_BYTES_PER_FILE) {
    start = bytes.length - MAX_BYTES_PER_FILE;
    // start at a line boundary: a cut line is not a line
    while (start < bytes.length && bytes[start - 1] !== 10) start++;
  }
  const text = new TextDecoder().decode(bytes.subarray(start));
  yield* text.split("\n");
}

/** The detail of one session, or null when the ledger has no such session. */
export function sessionDetail(ctx: ServerContext, asmId: string): SessionDetail | null {
  const session = ctx.ledger.session(asmId);
  if (!session) return null;
  const full = ctx.ledger.query("SELECT * FROM sessions WHERE asm_id = ?", asmId)[0] ?? {};
  const agent = loadAgents({ asmHome: ctx.asmHome, env: ctx.env }).find((a) => a.name === session.agent);
  const transcripts = agent ? adapterOf(agent).transcripts : undefined;
  let note: string | null = null;
  let result: { messages: MessageView[]; truncated: number } = { messages: [], truncated: 0 };
  const paths = filesOfSession(ctx.ledger, asmId).map((f) => f.path);
  if (paths.length === 0 && session.transcript_path) paths.push(session.transcript_path);
  if (!transcripts) {
    note = `asm cannot read ${session.agent}'s transcripts`;
  } else if (paths.length === 0) {
    note = "no transcript is known for this session yet (the import has not read it)";
  } else {
    const copy = (full.transcript_copy as string | null) ?? null;
    const lines: string[] = [];
    let missing = 0;
    for (const path of paths) {
      const bytes = transcriptBytes(path, path === session.transcript_path ? copy : null);
      if (bytes === null) {
        missing++;
        continue;
      }
      for (const line of linesOf(bytes)) lines.push(line);
    }
    result = messagesOf(lines, (line) => transcripts.classifyLine(line));
    if (missing === paths.length) note = "its transcript is gone from disk and asm kept no copy of it";
  }
  return {
    session: { ...full, hidden_reason: session.hidden_reason },
    runs: ctx.ledger.runs(asmId),
    launches: launchesOf(ctx.ledger, asmId),
    messages: result.messages,
    truncated: result.truncated,
    note,
  };
}

/** The detail route. */
export const sessionDetailRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/sessions/:id",
  handle(_req, ctx, params) {
    const detail = sessionDetail(ctx, params.id);
    return detail ? json(detail) : jsonError(404, `asm has no session ${params.id}`);
  },
}];
