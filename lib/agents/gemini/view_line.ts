/**
 * What one Gemini CLI session-file line shows on the session page (agents/gemini.md section 3).
 *
 * Message records are keyed by `id` and re-appended under the same id when they change (a reply gains its tool
 * calls and their results): the line's id is the record's, so the page keeps the last copy. A `user` record is a
 * prompt or injected context (the rule search uses, {@link typedGeminiText}); a `gemini` record is the reply text,
 * then each of its `toolCalls` with its input and, once the call carries it, its result; then the record's token
 * counts (scope "call", keyed by the record id). The header, `$set` and `$rewindTo` lines show nothing.
 *
 * A user record of `functionResponse` parts (what the CLI sent the model back) shows nothing: the same results
 * already stand after their calls in the reply record, and showing both would show each result twice.
 * @module
 */
import { isoOf, num, obj, parseObject, str } from "../../derive/bytes.ts";
import type { TokenUsage, ViewLine, ViewRecord } from "../../derive/mod.ts";
import { isRecord } from "../../lang/mod.ts";
import {
  clipBytes,
  commonFields,
  firstText,
  rawJson,
  TEXT_BYTES,
  textAt,
  type ToolFields,
  toolInput,
} from "../view_records.ts";
import { partsText, typedGeminiText } from "./user_text.ts";

/** What one Gemini line shows: its records in order, under the record's id (last copy wins). */
export function viewGeminiLine(raw: string): ViewLine | null {
  const line = parseObject(raw);
  if (line === undefined) return null;
  // the header, $set and $rewindTo lines are records of the file, not of the conversation
  if (typeof line.id !== "string" || typeof line.type !== "string") return { id: null, records: [] };
  const ts = isoOf(line.timestamp);
  switch (line.type) {
    case "user":
      return { id: line.id, records: userRecords(line, ts) };
    case "gemini":
      return { id: line.id, records: replyRecords(line, line.id, ts) };
    default:
      // info, warning and error records are the CLI's own notes
      return { id: line.id, records: [] };
  }
}

function userRecords(record: Record<string, unknown>, ts: string | null): ViewRecord[] {
  const { text, tool } = partsText(record.content);
  if (tool) return [];
  const typed = typedGeminiText(record);
  if (typed !== null) return [{ kind: "prompt", text: clipBytes(typed), ts }];
  return text.trim() === "" ? [] : [{ kind: "injected", text: clipBytes(text), ts }];
}

function replyRecords(record: Record<string, unknown>, id: string, ts: string | null): ViewRecord[] {
  const records: ViewRecord[] = [];
  const text = typeof record.content === "string" ? record.content : partsText(record.content).text;
  if (text.trim() !== "") records.push({ kind: "assistant", text: clipBytes(text), ts });
  for (const call of Array.isArray(record.toolCalls) ? record.toolCalls : []) {
    if (!isRecord(call)) continue;
    const tool = textAt(call, "name") ?? "";
    const call_id = textAt(call, "id");
    const args = obj(call, "args");
    records.push({
      kind: "tool_call",
      tool,
      call_id,
      input: toolInput(call.args, geminiToolFields(tool, args)),
      ts,
    });
    const result = resultOf(call);
    // the call's own timestamp is when its result came back
    if (result !== null) {
      records.push({ kind: "tool_result", call_id, ...result, ts: isoOf(call.timestamp) ?? ts });
    }
  }
  const usage = usageOf(record, id);
  if (usage !== null) records.push({ kind: "usage", usage, ts });
  return records;
}

/** The ToolInput fields of one Gemini CLI tool call (its own tools; any other by the shared keys). */
export function geminiToolFields(tool: string, args: Record<string, unknown> | undefined): ToolFields {
  if (args === undefined) return {};
  const path = firstText(args, ["file_path", "absolute_path"]);
  switch (tool) {
    case "run_shell_command": {
      const folder = firstText(args, ["dir_path", "directory"]);
      return { command: textAt(args, "command"), summary: folder === null ? null : `in ${folder}` };
    }
    case "read_file":
      return { path };
    case "write_file": {
      const content = args.content;
      // a write replaces the whole file: the page shows its text as added
      return { path, edit: typeof content === "string" ? { before: "", after: content } : null };
    }
    default:
      // replace (old_string / new_string), glob, search, web tools: the keys they share with other agents
      return commonFields(args);
  }
}

/**
 * A tool call's result, once the call carries one: the text of its `functionResponse` parts (what the model got
 * back), else what the CLI displayed; failed when the call's status says error or the response is an error.
 */
function resultOf(call: Record<string, unknown>): { output: string; error: boolean } | null {
  const parts = Array.isArray(call.result) ? call.result : [];
  const texts: string[] = [];
  let failed = false;
  for (const part of parts) {
    if (!isRecord(part)) continue;
    const response = obj(obj(part, "functionResponse"), "response");
    if (response !== undefined) {
      if (response.error !== undefined && response.error !== null) failed = true;
      texts.push(textAt(response, "output") ?? textAt(response, "error") ?? rawJson(response, TEXT_BYTES));
    } else if (typeof part.text === "string") texts.push(part.text);
  }
  const status = call.status;
  if (parts.length === 0 && call.resultDisplay === undefined && status !== "error") return null;
  const output = texts.join("\n") || displayText(call.resultDisplay);
  // a shell command that exited non-zero is a success of the tool: its output says the exit code (seen on the
  // real CLI: "Exit Code: 2")
  const exit = call.name === "run_shell_command" ? /^Exit Code: (\d+)/m.exec(output) : null;
  if (exit && exit[1] !== "0") failed = true;
  return { output: clipBytes(output), error: failed || status === "error" };
}

/** What the CLI displayed for a result: a text, or the diff of a file edit. */
function displayText(display: unknown): string {
  if (typeof display === "string") return display;
  return isRecord(display) ? textAt(display, "fileDiff") ?? "" : "";
}

/** The token counts of one reply: input counts the cached tokens; output counts the thinking ones too. */
function usageOf(record: Record<string, unknown>, id: string): TokenUsage | null {
  const tokens = obj(record, "tokens");
  if (tokens === undefined) return null;
  const output = num(tokens, "output");
  // Gemini counts thinking apart from the reply; both are tokens the model wrote (as the other agents count them)
  const thoughts = num(tokens, "thoughts") ?? 0;
  return {
    model: str(record, "model"),
    input: num(tokens, "input"),
    output: output === null ? null : output + thoughts,
    scope: "call",
    call: id,
  };
}
