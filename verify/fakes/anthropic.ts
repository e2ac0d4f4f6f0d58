/**
 * Fake Anthropic Messages API, enough for Claude Code 2.1.x: `POST /v1/messages` (SSE when `stream` is true,
 * which Claude Code always asks for; one JSON message otherwise) and `POST /v1/messages/count_tokens`.
 * Anything else is a 404 in Anthropic's error shape. `DRIP:<ms>` in the last user text streams a text reply slowly:
 * sixty more words after it, one text delta every `<ms>` (an agent's interrupt can then stop a turn mid-stream).
 *
 * @module
 */

import { type Decision, type ReplyBook, SKILL_PLACEHOLDER, streamHoldMs, type Turn } from "./replies.ts";
import { encodeSse, sseResponse } from "./sse.ts";
import { type FakeCall, jsonResponse, pause } from "./server.ts";

/** A content block of a message. */
export interface ContentBlock {
  type?: string;
  text?: string;
  content?: unknown;
  [key: string]: unknown;
}

/** The parts of a Messages request the fake reads. */
export interface MessagesBody {
  model?: string;
  stream?: boolean;
  messages?: { role?: string; content?: string | ContentBlock[] }[];
  tools?: { name?: string }[];
}

/** Token counts every reply reports, so usage columns have non-zero numbers of each kind. */
export const ANTHROPIC_CACHE_CREATION_TOKENS = 1000;
/** See {@link ANTHROPIC_CACHE_CREATION_TOKENS}. */
export const ANTHROPIC_CACHE_READ_TOKENS = 2000;
/** See {@link ANTHROPIC_CACHE_CREATION_TOKENS}. */
export const ANTHROPIC_OUTPUT_TOKENS = 42;

/** Answers one request to the fake Anthropic API. */
export async function answerAnthropic(call: FakeCall, book: ReplyBook): Promise<Response> {
  const path = call.url.pathname;
  if (call.method === "POST" && path === "/v1/messages/count_tokens") {
    return jsonResponse(200, { input_tokens: Math.max(1, Math.ceil(call.raw.length / 4)) });
  }
  if (call.method !== "POST" || path !== "/v1/messages") {
    return anthropicError(404, `mock: no route for ${call.method} ${path}`);
  }
  const body = (call.body ?? {}) as MessagesBody;
  const turn = anthropicTurn(body);
  const decision = book.decide(turn);
  await pause(decision.delayMs, call.signal);
  if (decision.kind === "fail") return anthropicError(decision.status, decision.message, decision.retryable);

  const content = contentOf(decision);
  const message = {
    id: `msg_mock_${crypto.randomUUID().slice(0, 8)}`,
    type: "message",
    role: "assistant",
    model: body.model ?? "claude-mock",
    content,
    stop_reason: decision.kind === "tool" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: Math.max(1, Math.round(JSON.stringify(body.messages ?? []).length / 4)),
      cache_creation_input_tokens: ANTHROPIC_CACHE_CREATION_TOKENS,
      cache_read_input_tokens: ANTHROPIC_CACHE_READ_TOKENS,
      output_tokens: ANTHROPIC_OUTPUT_TOKENS,
    },
  };
  if (!body.stream) return jsonResponse(200, message);
  const drip = Number(/DRIP:(\d+)/.exec(turn.userTexts.at(-1) ?? "")?.[1] ?? 0);
  if (drip > 0 && decision.kind === "text") return dripResponse(message, drip, call.signal);
  return sseResponse(streamOf(message), { "request-id": `req_mock_${Date.now()}` }, {
    holdMs: streamHoldMs(turn),
    signal: call.signal,
  });
}

/**
 * Reduces a Messages request to a turn. Claude Code appends mid-conversation `role:"system"` messages,
 * so only user messages are read; `<system-reminder>` text blocks are context, not typed text.
 */
export function anthropicTurn(body: MessagesBody): Turn {
  const userMessages = (body.messages ?? []).filter((m) => m.role === "user");
  const userTexts: string[] = [];
  for (const m of userMessages) {
    for (const block of blocksOf(m.content)) {
      if (
        block.type === "text" && typeof block.text === "string" && !/^\s*<system-reminder>/.test(block.text)
      ) {
        userTexts.push(block.text);
      }
    }
  }
  // a tool result always arrives in the newest user message, right after the tool_use it answers
  const newest = blocksOf(userMessages.at(-1)?.content);
  const result = newest.findLast((b) => b.type === "tool_result");
  const tools = (body.tools ?? []).map((t) => t.name).filter((n): n is string => typeof n === "string");
  return {
    userTexts,
    toolOutput: result ? textOf(result.content) : null,
    tools,
    shellTool: tools.includes("Bash") ? "Bash" : null,
    skillCall: tools.includes("Skill") ? { name: "Skill", input: { skill: SKILL_PLACEHOLDER } } : null,
  };
}

function blocksOf(content: string | ContentBlock[] | undefined): ContentBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content : [];
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: ContentBlock) => (typeof b.text === "string" ? b.text : "")).join("\n");
}

function contentOf(decision: Exclude<Decision, { kind: "fail" }>): ContentBlock[] {
  if (decision.kind === "text") return [{ type: "text", text: decision.text }];
  return [
    { type: "text", text: `Calling ${decision.name}.` },
    {
      type: "tool_use",
      id: `toolu_mock_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`,
      name: decision.name,
      input: decision.input ?? { command: decision.command, description: "Run a command for the mock" },
    },
  ];
}

/** The text reply streamed slowly: its text, then sixty words, one delta every `ms`; stops when the call does. */
function dripResponse(
  message: { content: ContentBlock[]; stop_reason: string; usage: Record<string, number> },
  ms: number,
  signal: AbortSignal,
): Response {
  const ev = (type: string, data: Record<string, unknown>) => encodeSse({ type, ...data }, { event: type });
  const words = [
    String(message.content[0]?.text ?? ""),
    ...Array.from({ length: 60 }, (_, i) => ` drip${i}`),
  ];
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (chunk: string) => controller.enqueue(encoder.encode(chunk));
      try {
        send(ev("message_start", {
          message: {
            ...message,
            content: [],
            stop_reason: null,
            usage: { ...message.usage, output_tokens: 1 },
          },
        }));
        send(ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
        for (const word of words) {
          if (signal.aborted) throw new Error("the call was stopped");
          send(ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: word } }));
          await pause(ms, signal);
        }
        send(ev("content_block_stop", { index: 0 }));
        send(ev("message_delta", {
          delta: { stop_reason: message.stop_reason, stop_sequence: null },
          usage: { output_tokens: message.usage.output_tokens },
        }));
        send(ev("message_stop", {}));
        controller.close();
      } catch {
        // the agent stopped the call (its interrupt): the stream just ends
        try {
          controller.close();
        } catch { /* already gone */ }
      }
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "request-id": `req_mock_drip`,
    },
  });
}

/** The event sequence of a streamed message, as the real API sends it. */
function streamOf(message: { content: ContentBlock[]; stop_reason: string; usage: Record<string, number> }) {
  const ev = (type: string, data: Record<string, unknown>) => encodeSse({ type, ...data }, { event: type });
  const chunks = [
    ev("message_start", {
      message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
    }),
  ];
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      chunks.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
      chunks.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: block.text } }));
    } else {
      chunks.push(ev("content_block_start", { index, content_block: { ...block, input: {} } }));
      chunks.push(ev("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      }));
    }
    chunks.push(ev("content_block_stop", { index }));
  });
  chunks.push(ev("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  }));
  chunks.push(ev("message_stop", {}));
  return chunks;
}

function anthropicError(status: number, message: string, retryable = false): Response {
  const type = status === 400
    ? "invalid_request_error"
    : status === 404
    ? "not_found_error"
    : status === 429
    ? "rate_limit_error"
    : status === 529
    ? "overloaded_error"
    : "api_error";
  // the SDK honours x-should-retry: without it a 429/5xx is retried with backoff for minutes
  // a retryable failure (RETRY:) asks for the agent's own retry: it then shows its retry state
  return jsonResponse(status, { type: "error", error: { type, message } }, {
    "x-should-retry": retryable ? "true" : "false",
  });
}
