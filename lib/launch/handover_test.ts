import assert from "node:assert/strict";
import { handoverPrompt } from "./handover.ts";

const before = {
  display: "Codex",
  name: "Fix login",
  agentSessionId: "01a2295d-92ca-73a0-ac65-5a6372a1a905",
  asmId: "6f1c2f9e-1111-5222-8333-444455556666",
  transcriptPath: "/h/.codex/sessions/2026/11/29/rollout-x.jsonl",
};

Deno.test("a continue-with prompt names the predecessor, its ids and its work log, then the request", () => {
  const prompt = handoverPrompt(before, "Finish the tests.");
  const [first, second, blank, last] = prompt.split("\n");
  assert.match(first, /Codex session "Fix login"/);
  assert.match(first, /01a2295d-92ca-73a0-ac65-5a6372a1a905/);
  assert.match(first, /6f1c2f9e-1111-5222-8333-444455556666/);
  assert.match(second, /\/h\/\.codex\/sessions\/2026\/11\/29\/rollout-x\.jsonl/);
  assert.equal(blank, "");
  assert.equal(last, "Finish the tests.");
});

Deno.test("without a transcript the prompt says so instead of inventing a path", () => {
  const prompt = handoverPrompt({ ...before, name: null, transcriptPath: null }, "Go on.");
  assert.match(prompt, /Codex session \(Codex session id/);
  assert.match(prompt, /no transcript/);
});
