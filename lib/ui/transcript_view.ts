/**
 * A session's conversation as the detail page shows it: the agent's own per-line classifier decides what each
 * line is (prompt, assistant, tool, injected, meta) and gives its message text; this keeps the messages in order,
 * lets a re-appended record replace its earlier copy (last copy wins), drops metadata, and keeps the newest
 * `limit` messages. Pure.
 * @module
 */
import type { LineKind, TranscriptLine } from "../derive/mod.ts";

/** One message of the detail view. */
export interface MessageView {
  kind: Exclude<LineKind, "meta">;
  text: string;
  ts: string | null;
}

/** The messages of some transcript lines (several files of one session: pass them in order). */
export function messagesOf(
  lines: Iterable<string>,
  classify: (line: string) => TranscriptLine | null,
  limit = 400,
): { messages: MessageView[]; truncated: number } {
  const byId = new Map<string, number>();
  const out: (MessageView | null)[] = [];
  for (const raw of lines) {
    if (raw.trim() === "") continue;
    const line = classify(raw);
    if (!line || line.kind === "meta" || line.text.trim() === "") continue;
    const view: MessageView = { kind: line.kind, text: line.text, ts: line.ts };
    if (line.id !== null && byId.has(line.id)) {
      // a record re-appended under the same id: the last copy wins, in the place of the first
      out[byId.get(line.id)!] = view;
      continue;
    }
    if (line.id !== null) byId.set(line.id, out.length);
    out.push(view);
  }
  const all = out.filter((m): m is MessageView => m !== null);
  const truncated = Math.max(0, all.length - limit);
  return { messages: all.slice(truncated), truncated };
}
