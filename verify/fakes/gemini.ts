/**
 * Fake Gemini API (Generative Language v1beta), enough for Gemini CLI 0.61:
 * `models/<m>:streamGenerateContent?alt=sse` (the main turn), `models/<m>:generateContent` (the model router
 * in JSON mode, the session summary), `:countTokens` and `:embedContent`.
 *
 * @module
 */

import { type Decision, type ReplyBook, SKILL_PLACEHOLDER, streamHoldMs, type Turn } from "./replies.ts";
import { encodeSse, sseResponse } from "./sse.ts";
import { type FakeCall, jsonResponse, pause } from "./server.ts";

/** A part of a Gemini content. */
export interface Part {
  text?: string;
  functionCall?: { name?: string; args?: unknown };
  functionResponse?: { name?: string; response?: unknown };
  [key: string]: unknown;
}

/** The parts of a generateContent request the fake reads. */
export interface GenerateBody {
  contents?: { role?: string; parts?: Part[] }[];
  tools?: { functionDeclarations?: { name?: string }[] }[];
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown };
}

/** What the CLI's model router reads from a JSON-mode reply (extra keys serve other JSON side requests). */
export const ROUTER_REPLY = {
  reasoning: "mock",
  model_choice: "flash",
  next_speaker: "user",
  complexity_reasoning: "mock",
  complexity_score: 10,
};

/** Answers one request to the fake Gemini API. */
export async function answerGemini(call: FakeCall, book: ReplyBook): Promise<Response> {
  const path = call.url.pathname;
  const route = /\/models\/([^/:]+):(\w+)$/.exec(path);
  if (!route) {
    if (call.method === "GET" && /\/models\/?$/.test(path)) return jsonResponse(200, { models: [] });
    return geminiError(404, `mock: no route for ${call.method} ${path}`);
  }
  const [, model, method] = route;
  const body = (call.body ?? {}) as GenerateBody;
  if (method === "countTokens") {
    return jsonResponse(200, { totalTokens: Math.max(1, Math.ceil(call.raw.length / 4)) });
  }
  if (method === "embedContent" || method === "batchEmbedContents") {
    return jsonResponse(200, { embedding: { values: [0, 0, 0] }, embeddings: [{ values: [0, 0, 0] }] });
  }
  if (method !== "generateContent" && method !== "streamGenerateContent") {
    return geminiError(404, `mock: unknown method ${method}`);
  }

  const turn = geminiTurn(body);
  const responseId = `mock-${crypto.randomUUID().slice(0, 8)}`;
  const usage = usageOf(body);
  const config = body.generationConfig ?? {};
  if (config.responseMimeType === "application/json" || config.responseJsonSchema || config.responseSchema) {
    // JSON mode is a side request (router, next-speaker check), not a turn: no triggers, no counter
    book.see(turn);
    const content = { role: "model", parts: [{ text: JSON.stringify(ROUTER_REPLY) }] };
    const candidate = { content, finishReason: "STOP", index: 0 };
    return jsonResponse(200, {
      candidates: [candidate],
      usageMetadata: usage,
      modelVersion: model,
      responseId,
    });
  }

  const decision = book.decide(turn);
  await pause(decision.delayMs, call.signal);
  if (decision.kind === "fail") return geminiError(decision.status, decision.message);
  const parts = partsOf(decision);
  if (method === "generateContent") {
    const candidate = { content: { role: "model", parts }, finishReason: "STOP", index: 0 };
    return jsonResponse(200, {
      candidates: [candidate],
      usageMetadata: usage,
      modelVersion: model,
      responseId,
    });
  }
  return sseResponse(streamOf(parts, usage, model, responseId), {}, {
    holdMs: streamHoldMs(turn),
    signal: call.signal,
  });
}

/**
 * Reduces a generateContent request to a turn. The CLI's first user content (or part) is `<session_context>`,
 * which was not typed; a user content holding `functionResponse` parts is a tool's output.
 */
export function geminiTurn(body: GenerateBody): Turn {
  const userContents = (body.contents ?? []).filter((c) => c.role === "user");
  const userTexts: string[] = [];
  for (const c of userContents) {
    const texts = (c.parts ?? []).map((p) => p.text).filter((t): t is string =>
      typeof t === "string" && !/^\s*<session_context>/.test(t)
    );
    if (texts.length > 0) userTexts.push(texts.join("\n"));
  }
  const newest = userContents.at(-1)?.parts ?? [];
  const responses = newest.filter((p) => p.functionResponse);
  const tools = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name)
    .filter((n): n is string => typeof n === "string");
  return {
    userTexts,
    toolOutput: responses.length > 0
      ? responses.map((p) => outputOf(p.functionResponse?.response)).join("\n")
      : null,
    tools,
    shellTool: tools.includes("run_shell_command") ? "run_shell_command" : null,
    // the CLI's own skill tool (offered headless only with --yolo: a user skill needs a confirmation)
    skillCall: tools.includes("activate_skill")
      ? { name: "activate_skill", input: { name: SKILL_PLACEHOLDER } }
      : null,
  };
}

/** The CLI wraps shell output: `{output: "<untrusted_context>\nOutput: ...</untrusted_context>"}`. */
function outputOf(response: unknown): string {
  const output = (response as { output?: unknown } | undefined)?.output;
  if (typeof output !== "string") return JSON.stringify(response ?? null);
  return output.replace(/<\/?untrusted_context>/g, "").trim();
}

function partsOf(decision: Exclude<Decision, { kind: "fail" }>): Part[] {
  if (decision.kind === "text") return [{ text: decision.text }];
  const args = decision.input ?? { command: decision.command, description: "Run a command for the mock" };
  return [{ functionCall: { name: decision.name, args } }];
}

function usageOf(body: GenerateBody) {
  const prompt = Math.max(1, Math.round(JSON.stringify(body.contents ?? []).length / 4));
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: 7,
    totalTokenCount: prompt + 7,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
  };
}

/** A text reply comes in two chunks (so the CLI sees a real stream); a function call in one. */
function streamOf(
  parts: Part[],
  usage: ReturnType<typeof usageOf>,
  model: string,
  responseId: string,
): string[] {
  const chunk = (p: Part[], done: boolean) =>
    encodeSse({
      candidates: [{
        content: { role: "model", parts: p },
        index: 0,
        ...(done ? { finishReason: "STOP" } : {}),
      }],
      usageMetadata: done
        ? usage
        : { ...usage, candidatesTokenCount: 0, totalTokenCount: usage.promptTokenCount },
      modelVersion: model,
      responseId,
    }, { crlf: true });
  const text = parts[0].text;
  if (typeof text !== "string" || text.length < 2) return [chunk(parts, true)];
  const cut = Math.floor(text.length / 2);
  return [chunk([{ text: text.slice(0, cut) }], false), chunk([{ text: text.slice(cut) }], true)];
}

function geminiError(status: number, message: string): Response {
  const statusName = status === 400
    ? "INVALID_ARGUMENT"
    : status === 404
    ? "NOT_FOUND"
    : status === 429
    ? "RESOURCE_EXHAUSTED"
    : status === 503
    ? "UNAVAILABLE"
    : "INTERNAL";
  return jsonResponse(status, { error: { code: status, message, status: statusName } });
}
