/**
 * What one Claude Code transcript line shows on the session page (agents/claude-code.md section 3).
 *
 * An assistant line holds one content block (Claude writes one line per block, all sharing `message.id` and
 * repeating the same `message.usage`): a `text` block is the reply, a `tool_use` block a tool call with its
 * input, a `thinking` block nothing. Each assistant line also gives its usage under `call` = `message.id`, so the
 * page counts a call written on several lines once. A user line is tool results (`tool_result` blocks, paired by
 * `tool_use_id`), or a prompt, or injected context, told apart by the rule search uses ({@link claudeUserKind}).
 * Every other record (attachments, system lines, metadata) shows nothing.
 * @module
 */
import { isoOf, obj, parseObject, str } from "../../derive/bytes.ts";
import type { TokenUsage, ViewLine, ViewRecord } from "../../derive/mod.ts";
import { isRecord } from "../../lang/mod.ts";
import {
  blockTexts,
  clipBytes,
  commonFields,
  firstText,
  locatedSummary,
  textAt,
  type ToolFields,
  toolInput,
} from "../view_records.ts";
import { claudeUserKind, contentText, readableCommand } from "./user_line.ts";

/** What one Claude line shows: its records in order, under the line's `uuid` (as search keys it). */
export function viewClaudeLine(raw: string): ViewLine | null {
  const line = parseObject(raw);
  if (line === undefined) return null;
  const id = str(line, "uuid");
  const ts = isoOf(line.timestamp);
  const message = obj(line, "message");
  switch (line.type) {
    case "assistant":
      return { id, records: assistantRecords(message, ts) };
    case "user":
      return { id, records: userRecords(line, message, ts) };
    default:
      return { id, records: [] };
  }
}

function assistantRecords(message: Record<string, unknown> | undefined, ts: string | null): ViewRecord[] {
  const records: ViewRecord[] = [];
  const content = message?.content;
  if (typeof content === "string" && content.trim() !== "") {
    records.push({ kind: "assistant", text: clipBytes(content), ts });
  }
  for (const block of Array.isArray(content) ? content : []) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string" && block.text.trim() !== "") {
      records.push({ kind: "assistant", text: clipBytes(block.text), ts });
    } else if (block.type === "tool_use" || block.type === "server_tool_use") {
      const tool = textAt(block, "name") ?? "";
      records.push({
        kind: "tool_call",
        tool,
        call_id: textAt(block, "id"),
        input: toolInput(block.input, claudeToolFields(tool, block.input)),
        ts,
      });
    }
    // thinking and redacted_thinking blocks are the model's own notes: the page shows the reply, not those
  }
  const usage = usageOf(message);
  if (usage !== null) records.push({ kind: "usage", usage, ts });
  return records;
}

/**
 * The token counts of one assistant line, keyed by `message.id`. None for a message the harness made itself
 * (model `<synthetic>`: an API error shown as a reply, "No response requested."): no model call took place.
 */
function usageOf(message: Record<string, unknown> | undefined): TokenUsage | null {
  const usage = obj(message, "usage");
  const model = str(message, "model");
  if (usage === undefined || model === "<synthetic>") return null;
  // what the model read is the uncached input plus what was written to and read from the prompt cache
  const inputs = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
    .map((key) => count(usage[key]))
    .filter((n): n is number => n !== null);
  return {
    model,
    input: inputs.length === 0 ? null : inputs.reduce((a, b) => a + b, 0),
    output: count(usage.output_tokens),
    scope: "call",
    call: str(message, "id"),
  };
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/** The ToolInput fields of one Claude tool call (Claude Code's own tools; any other by the shared keys). */
export function claudeToolFields(tool: string, input: unknown): ToolFields {
  if (!isRecord(input)) return {};
  switch (tool) {
    case "Bash":
      return { command: textAt(input, "command") };
    case "Read":
    case "NotebookEdit":
      return { path: firstText(input, ["file_path", "notebook_path"]) };
    case "Write": {
      const content = input.content;
      // a Write replaces the whole file: the page shows its text as added
      return {
        path: textAt(input, "file_path"),
        edit: typeof content === "string" ? { before: "", after: content } : null,
      };
    }
    case "Edit":
      return commonFields(input);
    case "MultiEdit":
      return { path: textAt(input, "file_path"), edit: joinedEdits(input.edits) };
    case "Glob":
    case "Grep":
      return { summary: locatedSummary(input) };
    case "WebFetch":
      return { summary: textAt(input, "url") };
    case "WebSearch":
      return { summary: textAt(input, "query") };
    case "Skill": {
      const skill = textAt(input, "skill");
      const args = textAt(input, "args");
      return { summary: skill !== null && args !== null ? `${skill} ${args}` : skill };
    }
    case "Task":
    case "Agent":
      return { summary: textAt(input, "description") };
    default:
      return commonFields(input);
  }
}

/** A MultiEdit's edits as one edit: the replaced texts in order, and their replacements in the same order. */
function joinedEdits(edits: unknown): { before: string; after: string } | null {
  if (!Array.isArray(edits)) return null;
  const befores: string[] = [];
  const afters: string[] = [];
  for (const edit of edits) {
    if (!isRecord(edit) || typeof edit.old_string !== "string" || typeof edit.new_string !== "string") {
      continue;
    }
    befores.push(edit.old_string);
    afters.push(edit.new_string);
  }
  return befores.length === 0 ? null : { before: befores.join("\n"), after: afters.join("\n") };
}

function userRecords(
  line: Record<string, unknown>,
  message: Record<string, unknown> | undefined,
  ts: string | null,
): ViewRecord[] {
  const content = message?.content;
  const { text, toolResult } = contentText(content);
  if (toolResult) {
    const records: ViewRecord[] = [];
    for (const block of content as unknown[]) {
      if (!isRecord(block) || block.type !== "tool_result") continue;
      records.push({
        kind: "tool_result",
        call_id: textAt(block, "tool_use_id"),
        output: clipBytes(blockTexts(block.content)),
        error: block.is_error === true,
        ts,
      });
    }
    // text beside the results is the harness's (an interruption note), never something typed
    if (text.trim() !== "") records.push({ kind: "injected", text: clipBytes(text), ts });
    return records;
  }
  if (text.trim() === "") return [];
  return claudeUserKind(line, text) === "prompt"
    ? [{ kind: "prompt", text: clipBytes(readableCommand(text)), ts }]
    : [{ kind: "injected", text: clipBytes(text), ts }];
}
