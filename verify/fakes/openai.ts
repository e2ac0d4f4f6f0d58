/**
 * Fake OpenAI Responses API, enough for Codex 0.169: `POST /v1/responses` (SSE; one JSON response when
 * `stream` is false) and `GET /v1/models`. Every `/responses` answer carries the `x-codex-*` rate-limit
 * headers, which Codex copies into the `rate_limits` of its rollout's `token_count` events.
 *
 * @module
 */

import { type Decision, type ReplyBook, SKILL_PLACEHOLDER, streamHoldMs, type Turn } from "./replies.ts";
import { encodeSse, sseResponse } from "./sse.ts";
import { type FakeCall, jsonResponse, pause } from "./server.ts";

/** The parts of a Responses input item the fake reads. */
export interface InputItem {
  type?: string;
  role?: string;
  content?: string | { type?: string; text?: string }[];
  output?: unknown;
  name?: string;
}

/** The parts of a Responses request the fake reads. */
export interface ResponsesBody {
  model?: string;
  stream?: boolean;
  input?: InputItem[] | string;
  tools?: { type?: string; name?: string }[];
}

/** Shell tools Codex has offered across versions, preferred first. */
const SHELL_TOOLS = ["exec_command", "shell_command", "shell", "local_shell"];

/** Context Codex sends as user messages (`<skill>`: a skill's body it loaded); none of it was typed. */
const INJECTED =
  /^\s*(<environment_context|<user_instructions|<permissions|<INSTRUCTIONS|<skills|<skill>|# AGENTS\.md)/;

/**
 * How Codex's model uses a skill: its skills instructions tell it to open the skill's SKILL.md with its shell tool
 * (Codex has no skill tool), which is what this command does.
 */
export const SKILL_READ_COMMAND = `cat "\${CODEX_HOME:-$HOME/.codex}/skills/${SKILL_PLACEHOLDER}/SKILL.md"`;

/** Rate-limit headers as the real service sends them; `reset-at` is absolute epoch seconds. */
export function codexRateLimitHeaders(now: Date): Record<string, string> {
  const epoch = Math.floor(now.getTime() / 1000);
  return {
    "x-codex-primary-used-percent": "12.5",
    "x-codex-primary-window-minutes": "300",
    "x-codex-primary-reset-at": String(epoch + 3600),
    "x-codex-secondary-used-percent": "40",
    "x-codex-secondary-window-minutes": "10080",
    "x-codex-secondary-reset-at": String(epoch + 3 * 86400),
  };
}

/** Answers one request to the fake OpenAI API. */
export async function answerOpenai(call: FakeCall, book: ReplyBook): Promise<Response> {
  const path = call.url.pathname;
  if (call.method === "GET" && /\/models\/?$/.test(path)) {
    return jsonResponse(200, {
      object: "list",
      data: [{ id: "mock-model", object: "model", owned_by: "mock" }],
    });
  }
  if (call.method !== "POST" || !/\/responses\/?$/.test(path)) {
    return jsonResponse(404, {
      error: { message: `mock: no route for ${call.method} ${path}`, type: "not_found" },
    });
  }
  const body = (call.body ?? {}) as ResponsesBody;
  const turn = openaiTurn(body);
  const decision = book.decide(turn);
  await pause(decision.delayMs, call.signal);
  const headers = { ...codexRateLimitHeaders(new Date()), "x-request-id": `req_mock_${Date.now()}` };
  if (decision.kind === "fail") {
    const error = {
      message: decision.message,
      type: decision.status === 429 ? "rate_limit_exceeded" : "api_error",
    };
    return jsonResponse(decision.status, { error }, headers);
  }

  const seq = crypto.randomUUID().slice(0, 8);
  const item = outputItem(decision, seq);
  const response = {
    id: `resp_mock_${seq}`,
    object: "response",
    status: "completed",
    model: body.model ?? "mock-model",
    output: [item],
    usage: {
      input_tokens: Math.max(1, Math.ceil(call.raw.length / 4)),
      input_tokens_details: { cached_tokens: 1000 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 5 },
      total_tokens: Math.max(1, Math.ceil(call.raw.length / 4)) + 30,
    },
  };
  if (body.stream === false) return jsonResponse(200, response, headers);
  const text = decision.kind === "text" ? decision.text : null;
  return sseResponse(streamOf(item, text, response), { ...headers, "openai-model": response.model }, {
    holdMs: streamHoldMs(turn),
    signal: call.signal,
  });
}

/** Reduces a Responses request to a turn: injected context is skipped, tool outputs are `*_output` items. */
export function openaiTurn(body: ResponsesBody): Turn {
  const input: InputItem[] = typeof body.input === "string"
    ? [{ type: "message", role: "user", content: body.input }]
    : body.input ?? [];
  const userTexts: string[] = [];
  let lastUser = -1;
  input.forEach((item, i) => {
    if ((item.type ?? "message") !== "message" || item.role !== "user") return;
    const text = textOf(item);
    if (text === "" || INJECTED.test(text)) return;
    userTexts.push(text);
    lastUser = i;
  });
  const output = input.slice(lastUser + 1).findLast((item) => /_output$/.test(item.type ?? ""));
  const tools = (body.tools ?? []).map((t) => t.name ?? t.type).filter((n): n is string =>
    typeof n === "string"
  );
  const shellTool = SHELL_TOOLS.find((name) => tools.includes(name)) ?? null;
  return {
    userTexts,
    toolOutput: output
      ? (typeof output.output === "string" ? output.output : JSON.stringify(output.output))
      : null,
    tools,
    shellTool,
    skillCall: shellTool === null
      ? null
      : { name: shellTool, input: shellInput(shellTool, SKILL_READ_COMMAND) },
  };
}

function textOf(item: InputItem): string {
  if (typeof item.content === "string") return item.content;
  return (item.content ?? []).map((c) => c.text ?? "").join("");
}

/** The input each shell tool expects for `command`. */
function shellInput(tool: string, command: string): Record<string, unknown> {
  switch (tool) {
    case "exec_command":
      return { cmd: command, yield_time_ms: 2000 };
    case "shell":
      return { command: ["bash", "-lc", command] };
    default:
      return { command };
  }
}

function outputItem(decision: Exclude<Decision, { kind: "fail" }>, seq: string) {
  if (decision.kind === "tool") {
    return {
      type: "function_call",
      id: `fc_mock_${seq}`,
      call_id: `call_mock_${seq}`,
      name: decision.name,
      arguments: JSON.stringify(decision.input ?? shellInput(decision.name, decision.command)),
      status: "completed",
    };
  }
  return {
    type: "message",
    id: `msg_mock_${seq}`,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: decision.text, annotations: [] }],
  };
}

/**
 * created, item added, text deltas (12 characters each), item done, completed: the order Codex expects.
 * `text` is the message's text, or null when the item is a function call.
 */
function streamOf(
  item: ReturnType<typeof outputItem>,
  text: string | null,
  response: { id: string },
): string[] {
  const ev = (type: string, data: Record<string, unknown>) => encodeSse({ type, ...data }, { event: type });
  const chunks = [ev("response.created", { response: { id: response.id, status: "in_progress" } })];
  if (text === null) {
    chunks.push(ev("response.output_item.added", { output_index: 0, item: { ...item, arguments: "" } }));
  } else {
    chunks.push(ev("response.output_item.added", { output_index: 0, item: { ...item, content: [] } }));
    for (const delta of text.match(/.{1,12}/gs) ?? []) {
      chunks.push(
        ev("response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta }),
      );
    }
  }
  chunks.push(ev("response.output_item.done", { output_index: 0, item }));
  chunks.push(ev("response.completed", { response }));
  return chunks;
}
