/**
 * What one Codex rollout line shows on the session page (agents/codex.md section 3).
 *
 * Response items carry the conversation: a user `message` is the typed prompt or Codex's injected context (the
 * rule search uses, {@link isTypedCodexMessage}), an assistant `message` the reply, a `function_call` /
 * `custom_tool_call` / `local_shell_call` a tool call (a shell command given as `["bash","-lc",script]` shows as
 * its script; an apply_patch input as a patch), and a `*_call_output` its result, paired by `call_id`. `reasoning`
 * shows nothing. Of the events only `token_count` shows: the thread's running totals (scope "total"). The
 * `item_completed` events repeat the response items and show nothing, so nothing is shown twice.
 *
 * One line at a time and no memory between lines: the model of a count is in an earlier `turn_context` line, so
 * a count here has no model.
 * @module
 */
import { isoOf, num, obj, parseObject, str } from "../../derive/bytes.ts";
import type { TokenUsage, ViewLine, ViewRecord } from "../../derive/mod.ts";
import { isRecord } from "../../lang/mod.ts";
import {
  blockTexts,
  clipBytes,
  commandLine,
  commonFields,
  firstText,
  isPatchText,
  patchPath,
  textAt,
  type ToolFields,
  toolInput,
} from "../view_records.ts";
import { isTypedCodexMessage, messageText, responseItemOf } from "./response_item.ts";

/** What one rollout line shows: its records in order, under the response item's id (as search keys it). */
export function viewCodexLine(raw: string): ViewLine | null {
  const line = parseObject(raw);
  if (line === undefined) return null;
  const ts = isoOf(line.timestamp);
  const item = responseItemOf(line);
  if (item !== undefined) return { id: str(item, "id"), records: itemRecords(item, ts) };
  const payload = obj(line, "payload");
  if (line.type === "event_msg" && payload?.type === "token_count") {
    const usage = totalsOf(payload);
    return { id: null, records: usage === null ? [] : [{ kind: "usage", usage, ts }] };
  }
  return { id: null, records: [] };
}

function itemRecords(item: Record<string, unknown>, ts: string | null): ViewRecord[] {
  const type = typeof item.type === "string" ? item.type : "";
  if (type === "message") {
    const text = messageText(item);
    if (text.trim() === "") return [];
    const kind = item.role === "assistant" ? "assistant" : isTypedCodexMessage(item) ? "prompt" : "injected";
    return [{ kind, text: clipBytes(text), ts }];
  }
  if (type.endsWith("_call_output")) {
    const { text, error } = outputOf(item.output);
    return [{ kind: "tool_result", call_id: textAt(item, "call_id"), output: clipBytes(text), error, ts }];
  }
  if (type.endsWith("_call")) return [toolCallOf(type, item, ts)];
  // reasoning (the model's own notes) and item types this reader does not know show nothing
  return [];
}

function toolCallOf(type: string, item: Record<string, unknown>, ts: string | null): ViewRecord {
  const call_id = textAt(item, "call_id");
  if (type === "function_call") {
    const tool = textAt(item, "name") ?? type;
    const args = typeof item.arguments === "string" ? parseObject(item.arguments) : obj(item, "arguments");
    // arguments that are not a JSON object are shown as they were written
    return {
      kind: "tool_call",
      tool,
      call_id,
      input: toolInput(args ?? item.arguments, codexToolFields(tool, args)),
      ts,
    };
  }
  if (type === "custom_tool_call") {
    const tool = textAt(item, "name") ?? type;
    const input = typeof item.input === "string" ? item.input : "";
    const fields: ToolFields = tool === "apply_patch" || isPatchText(input)
      ? { patch: input, path: patchPath(input) }
      : {};
    return { kind: "tool_call", tool, call_id, input: toolInput(item.input, fields), ts };
  }
  const action = obj(item, "action");
  if (type === "local_shell_call") {
    const fields = shellFields(action?.command, firstText(action, ["working_directory", "workdir"]));
    return {
      kind: "tool_call",
      tool: "local_shell",
      call_id: call_id ?? textAt(item, "id"),
      input: toolInput(action, fields),
      ts,
    };
  }
  // web_search_call and calls of newer kinds: the name of the kind, and what their action says
  const tool = textAt(item, "name") ?? type.replace(/_call$/, "");
  const input = action ?? item.arguments ?? item.input ?? null;
  return { kind: "tool_call", tool, call_id, input: toolInput(input, commonFields(input)), ts };
}

/** The tools that run a shell command (`exec_command` is the unified exec of 0.169; the others older builds'). */
const SHELL_TOOLS = new Set(["exec_command", "shell", "shell_command", "container.exec", "local_shell"]);

/** The ToolInput fields of one Codex function call. */
export function codexToolFields(tool: string, args: Record<string, unknown> | undefined): ToolFields {
  if (args === undefined) return {};
  if (SHELL_TOOLS.has(tool)) {
    return shellFields(args.cmd ?? args.command, firstText(args, ["workdir", "cwd"]));
  }
  if (tool === "apply_patch") {
    const patch = textAt(args, "input") ?? textAt(args, "patch");
    return { patch, path: patch === null ? null : patchPath(patch) };
  }
  return commonFields(args);
}

/**
 * A shell call's command as one line, and the folder it ran in as its summary. Older builds ran apply_patch
 * through the shell (`["apply_patch", "*** Begin Patch..."]`, or a heredoc): the patch is then shown as one.
 */
function shellFields(command: unknown, workdir: string | null): ToolFields {
  const line = commandLine(command);
  const at = line?.indexOf("*** Begin Patch") ?? -1;
  const patch = line !== null && at >= 0 ? patchOf(line.slice(at)) : null;
  return {
    command: line,
    patch,
    path: patch === null ? null : patchPath(patch),
    summary: workdir === null ? null : `in ${workdir}`,
  };
}

/** An apply-patch text up to its `*** End Patch` line (a heredoc's closing word after it is not the patch). */
function patchOf(text: string): string {
  const end = text.indexOf("*** End Patch");
  return end < 0 ? text : text.slice(0, end + "*** End Patch".length);
}

// unified exec writes "Process exited with code N" above the output; older shell tools "Exit code: N"
const EXIT_LINE = /^(?:Process exited with code|Exit code:) (-?\d+)\s*$/m;
/** How far into an output its header can be (the output itself, below "Output:", is never read for it). */
const HEADER_CHARS = 1024;

/**
 * The text of a tool's output, and whether the tool failed. The output is a string (plain, or JSON
 * `{"output": ..., "metadata": {"exit_code": N}}`), a list of content items, or `{content, success}`.
 */
export function outputOf(output: unknown): { text: string; error: boolean } {
  if (Array.isArray(output)) return { text: blockTexts(output), error: false };
  if (isRecord(output)) {
    const text = textAt(output, "content") ?? textAt(output, "output") ?? blockTexts(output.content);
    return { text, error: output.success === false };
  }
  if (typeof output !== "string") return { text: "", error: false };
  const json = output.startsWith("{") ? parseObject(output) : undefined;
  if (json !== undefined && typeof json.output === "string") {
    const exit = num(obj(json, "metadata"), "exit_code");
    return { text: json.output, error: exit !== null && exit !== 0 };
  }
  const header = output.slice(0, HEADER_CHARS).split("\nOutput:", 1)[0];
  const exit = header.match(EXIT_LINE)?.[1];
  return { text: output, error: exit !== undefined && Number(exit) !== 0 };
}

/** The running totals of a `token_count` event, or null when it carries none (a count before the first call). */
function totalsOf(payload: Record<string, unknown>): TokenUsage | null {
  const total = obj(obj(payload, "info"), "total_token_usage");
  if (total === undefined) return null;
  // input_tokens counts the cached ones too, and output_tokens the reasoning ones: OpenAI's usage shape
  return {
    model: null,
    input: num(total, "input_tokens"),
    output: num(total, "output_tokens"),
    scope: "total",
    call: null,
  };
}
