import assert from "node:assert/strict";
import { join } from "node:path";
import { adapterOf, loadAgents } from "../agents/mod.ts";
import { messagesOf } from "./transcript_view.ts";

const FIXTURES = Deno.env.get("ASM_FIXTURES") ??
  new URL("../../../shared/fixtures", import.meta.url).pathname;

function classifier(agent: string) {
  const config = loadAgents().find((a) => a.name === agent)!;
  const transcripts = adapterOf(config).transcripts!;
  return (line: string) => transcripts.classifyLine(line);
}

function linesOf(path: string): string[] {
  return Deno.readTextFileSync(path).split("\n");
}

function firstFile(dir: string, suffix: string): string {
  for (const e of Deno.readDirSync(dir)) if (e.isFile && e.name.endsWith(suffix)) return join(dir, e.name);
  throw new Error(`no *${suffix} in ${dir}`);
}

Deno.test("a real Claude transcript shows the typed prompt and the answer, and no metadata", () => {
  const file = firstFile(join(FIXTURES, "claude", "p-mode", "transcripts"), ".jsonl");
  const { messages } = messagesOf(linesOf(file), classifier("claude"));
  assert.ok(messages.some((m) => m.kind === "prompt"), "a prompt");
  assert.ok(messages.some((m) => m.kind === "assistant"), "an answer");
  assert.equal(messages.every((m) => !/"parentUuid"|"sessionId"/.test(m.text)), true, "no JSON keys as text");
});

Deno.test("a Gemini record re-appended under its id shows once, as its last copy", () => {
  const lines = [
    JSON.stringify({ sessionId: "s", projectHash: "h", startTime: "2026-11-29T22:00:00.000Z", kind: "main" }),
    JSON.stringify({
      id: "u1",
      timestamp: "2026-11-29T22:00:01.000Z",
      type: "user",
      content: [{ text: "hello" }],
    }),
    JSON.stringify({
      id: "g1",
      timestamp: "2026-11-29T22:00:02.000Z",
      type: "gemini",
      content: "first draft",
    }),
    JSON.stringify({
      id: "g1",
      timestamp: "2026-11-29T22:00:03.000Z",
      type: "gemini",
      content: "final answer",
    }),
  ];
  const { messages } = messagesOf(lines, classifier("gemini"));
  const answers = messages.filter((m) => m.kind === "assistant").map((m) => m.text);
  assert.deepEqual(answers, ["final answer"]);
});

Deno.test("only the newest messages are kept past the limit, and the count of the rest is said", () => {
  const classify = (line: string) => ({ kind: "prompt" as const, text: line, ts: null, id: null });
  const { messages, truncated } = messagesOf(["a", "b", "c", "d"], classify, 2);
  assert.deepEqual(messages.map((m) => m.text), ["c", "d"]);
  assert.equal(truncated, 2);
});
