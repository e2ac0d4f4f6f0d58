/**
 * Codex's response items (agents/codex.md section 3): the conversation as the model saw it, one item a line
 * (`{"type":"response_item","payload":{...}}`, or a bare item in rollouts written before that envelope). Which
 * user message is the typed prompt and which is Codex's injected context is decided here once: the byte pass
 * counts turns with it, search labels lines with it and the session page shows them with it.
 * @module
 */
import { obj } from "../../derive/bytes.ts";
import { isRecord } from "../../lang/mod.ts";

/** The response items that are tool calls. */
export const TOOL_CALLS: ReadonlySet<string> = new Set([
  "function_call",
  "custom_tool_call",
  "local_shell_call",
]);
/** The response item types a rollout written before the `{type, payload}` envelope kept as bare lines. */
export const BARE_ITEMS: ReadonlySet<string> = new Set(["message", ...TOOL_CALLS]);
/** The other bare item types those rollouts (and the TypeScript CLI's sessions) hold: known, and not read. */
export const BARE_IGNORED: ReadonlySet<string> = new Set([
  "reasoning",
  "function_call_output",
  "custom_tool_call_output",
  "web_search_call",
]);

// Codex's own injected user-role blocks, for rollouts written before content_item_kinds existed (`<user_action>`:
// a review's findings handed back to the thread that asked for the review)
const INJECTED =
  /^\s*<(environment_context|user_instructions|permissions instructions|skills_instructions|user_shell_command|turn_aborted|user_action)/;

/** The text of a message item: its content parts' texts, one per line. */
export function messageText(payload: Record<string, unknown>): string {
  const content = payload.content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const c of content) {
    if (isRecord(c) && typeof c.text === "string") parts.push(c.text);
  }
  return parts.join("\n");
}

/** True for the prompt a person typed (or passed to `codex exec`). */
export function isTypedCodexMessage(payload: Record<string, unknown>): boolean {
  if (payload.role !== "user") return false;
  const meta = obj(payload, "internal_chat_message_metadata_passthrough");
  const kinds = meta?.content_item_kinds;
  if (Array.isArray(kinds)) return kinds.includes("user.text");
  return !INJECTED.test(messageText(payload)) && !messageText(payload).startsWith("# AGENTS.md");
}

/**
 * The working folder Codex's injected environment block names: `<cwd>...</cwd>` (0.25 on), or the
 * `Current working directory: ...` line before; null for any other message. The only place rollouts before
 * 0.34 (no session_meta cwd) say their folder.
 */
export function environmentCwd(payload: Record<string, unknown>): string | null {
  if (payload.role !== "user") return null;
  const text = messageText(payload);
  if (!/^\s*<environment_context>/.test(text)) return null;
  const tagged = text.match(/<cwd>([^<\n]+)<\/cwd>/)?.[1];
  const found = (tagged ?? text.match(/^Current working directory: (.+)$/m)?.[1])?.trim();
  return found?.startsWith("/") ? found : null;
}

/** The response item a parsed line holds: in its envelope, or bare (rollouts before the envelope); else undefined. */
export function responseItemOf(line: Record<string, unknown>): Record<string, unknown> | undefined {
  if (line.type === "response_item") return obj(line, "payload");
  const bare = line.payload === undefined && typeof line.type === "string" &&
    (BARE_ITEMS.has(line.type) || line.type.endsWith("_call_output"));
  return bare ? line : undefined;
}
