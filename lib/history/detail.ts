/**
 * One session as its page shows it: what the ledger knows (the row, its runs, its launches) and its conversation
 * (the agent's own transcript, read through its classifier: message text only; tool calls and injected context
 * marked so the page can collapse them). A transcript the agent deleted is read from asm's compressed copy. The
 * read is bounded (the newest 16 MiB of each file) and goes through the file seam the server hands in, so a
 * hook's hostile `transcript_path` (a FIFO, `/dev/zero`, a link) costs nothing.
 * @module
 */
import { adapterOf, loadAgents } from "../agents/mod.ts";
import type { Env } from "../config/mod.ts";
import { type FileReader, readTail, RefusedFile, type Tail } from "../files/mod.ts";
import { filesOfSession, launchesOf, type Ledger } from "../ledger/mod.ts";
import { messagesOf, type MessageView } from "../ui/mod.ts";
import { copyTail } from "./copies.ts";

/** What reading a session's detail needs. */
export interface DetailDeps {
  ledger: Ledger;
  asmHome: string;
  env: Env;
  files: FileReader;
}

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

/**
 * The newest `MAX_BYTES_PER_FILE` of one transcript (whole lines), read off the event loop through the server's
 * file seam; its copy when the agent deleted it; a sentence when the path is not a regular file (a hook event's
 * `transcript_path` is hostile: a FIFO, `/dev/zero`, a link to a secret).
 */
async function transcriptTail(
  deps: DetailDeps,
  file: { path: string; copy: string | null; stores: readonly string[] },
): Promise<Tail | string | null> {
  const { path, copy } = file;
  try {
    // only inside the agent's own transcript folders: a folder link on the way must not lead the read elsewhere
    return await readTail(path, MAX_BYTES_PER_FILE, deps.files, { within: file.stores });
  } catch (err) {
    if (err instanceof RefusedFile) return err.message;
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return copy === null ? null : copyTail(copy, MAX_BYTES_PER_FILE);
}

/** The detail of one session, or null when the ledger has no such session. */
export async function sessionDetail(deps: DetailDeps, asmId: string): Promise<SessionDetail | null> {
  const session = deps.ledger.session(asmId);
  if (!session) return null;
  const full = deps.ledger.query("SELECT * FROM sessions WHERE asm_id = ?", asmId)[0] ?? {};
  const agent = loadAgents({ asmHome: deps.asmHome, env: deps.env }).find((a) => a.name === session.agent);
  const transcripts = agent ? adapterOf(agent).transcripts : undefined;
  let note: string | null = null;
  let result: { messages: MessageView[]; truncated: number } = { messages: [], truncated: 0 };
  const paths = filesOfSession(deps.ledger, asmId).map((f) => f.path);
  if (paths.length === 0 && session.transcript_path) paths.push(session.transcript_path);
  if (!transcripts) {
    note = `asm cannot read ${session.agent}'s transcripts`;
  } else if (paths.length === 0) {
    note = "no transcript is known for this session yet (the import has not read it)";
  } else {
    const copy = (full.transcript_copy as string | null) ?? null;
    const lines: string[] = [];
    let missing = 0;
    const refused: string[] = [];
    for (const path of paths) {
      const tail = await transcriptTail(deps, {
        path,
        copy: path === session.transcript_path ? copy : null,
        stores: transcripts.stores(deps.env),
      });
      if (tail === null) {
        missing++;
        continue;
      }
      if (typeof tail === "string") {
        refused.push(tail);
        continue;
      }
      for (const line of new TextDecoder().decode(tail.bytes).split("\n")) lines.push(line);
    }
    result = messagesOf(lines, (line) => transcripts.classifyLine(line));
    if (refused.length) note = `asm did not read it: ${refused.join("; ")}`;
    else if (missing === paths.length) note = "its transcript is gone from disk and asm kept no copy of it";
  }
  return {
    session: { ...full, hidden_reason: session.hidden_reason },
    runs: deps.ledger.runs(asmId),
    launches: launchesOf(deps.ledger, asmId),
    messages: result.messages,
    truncated: result.truncated,
    note,
  };
}
