/**
 * The TypeScript Codex CLI's session file (0.1.2504172351 to 0.1.2505172129; docs/agents/codex_old_versions.md):
 * `$CODEX_HOME/sessions/rollout-<YYYY-MM-DD>-<id>.json`, one JSON document written by the terminal UI after every
 * item, whole (`JSON.stringify(doc, null, 2)`, no newline at its end):
 *
 * ```json
 * {"session": {"timestamp": "<the last save>", "id": "<uuid>", "instructions": "..."},
 *  "items": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "..."}]}, ...]}
 * ```
 *
 * The items are the conversation's response items without times of their own; no folder, model or token counts.
 * Read as the Rust CLI's first rollouts are: a `{id, timestamp}` head, then the items as bare lines.
 * @module
 */
import { isRecord } from "../../lang/mod.ts";

/** A TypeScript CLI session file's name: `rollout-<day>-<id>.json`; the id, or null for any other name. */
export function sessionDocumentId(name: string): string | null {
  return name.match(
    /^rollout-\d{4}-\d{2}-\d{2}-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/i,
  )?.[1] ?? null;
}

function parseDocument(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // the byte pass hands over only lines that end in a newline, and the document's closing brace has none
    try {
      return JSON.parse(`${text}\n}`);
    } catch {
      return undefined;
    }
  }
}

/**
 * The document's text as the lines of a rollout before the envelope: its `{id, timestamp}` head, then each item.
 * Null when the text is not such a document.
 */
export function sessionDocumentLines(text: string): Record<string, unknown>[] | null {
  const doc = parseDocument(text);
  if (!isRecord(doc) || !isRecord(doc.session) || !Array.isArray(doc.items)) return null;
  const { id, timestamp } = doc.session;
  if (typeof id !== "string") return null;
  return [{ id, timestamp }, ...doc.items.filter(isRecord)];
}
