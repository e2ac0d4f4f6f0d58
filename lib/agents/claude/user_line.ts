/**
 * Claude Code's `type:"user"` lines (agents/claude-code.md section 3): which are prompts the person typed and
 * which the harness put in the conversation. The byte pass counts turns with these rules, search labels lines
 * with them and the session page shows them, so all three agree.
 * @module
 */
import { obj } from "../../derive/bytes.ts";
import { isRecord } from "../../lang/mod.ts";

/** The text of a message content (a string, or the text blocks of a list), and whether it holds a tool result. */
export function contentText(content: unknown): { text: string; toolResult: boolean } {
  if (typeof content === "string") return { text: content, toolResult: false };
  if (!Array.isArray(content)) return { text: "", toolResult: false };
  const parts: string[] = [];
  let toolResult = false;
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "tool_result") toolResult = true;
    else if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
  }
  return { text: parts.join("\n"), toolResult };
}

/** `/mock-skill extra-args` for a slash command's tags; the text itself otherwise. */
export function readableCommand(text: string): string {
  const name = text.match(/<command-name>([^<]*)<\/command-name>/)?.[1];
  if (name === undefined) return text;
  const args = text.match(/<command-args>([^<]*)<\/command-args>/)?.[1] ?? "";
  return `${name} ${args}`.trim();
}

/**
 * True for a user line the person sent: `promptSource` "typed" or "sdk" (-p), or `origin.kind` "human" (a typed
 * slash skill). Lines of versions before those fields: any text that is not a command's echo or a notification.
 */
export function isTyped(line: Record<string, unknown>, text: string): boolean {
  const promptSource = line.promptSource;
  const origin = obj(line, "origin");
  if (promptSource === "typed" || promptSource === "sdk") return true;
  if (origin?.kind === "human") return true;
  if (promptSource !== undefined || origin !== undefined) return false;
  // versions before promptSource/origin: a plain user line that is not a command's echo
  return !/^\s*<(command-name|command-message|local-command-stdout|local-command-caveat|bash-|task-notification)/
    .test(text) && !text.startsWith("[Request interrupted");
}

/**
 * What a `type:"user"` line that holds no tool result is: a prompt the person typed (or sent with -p), or context
 * the harness put in the conversation (system reminders, skill bodies, compaction summaries, task notifications,
 * a sub-agent's task).
 */
export function claudeUserKind(line: Record<string, unknown>, text: string): "prompt" | "injected" {
  if (line.isMeta === true || line.isCompactSummary === true) return "injected";
  return line.isSidechain !== true && isTyped(line, text) ? "prompt" : "injected";
}
