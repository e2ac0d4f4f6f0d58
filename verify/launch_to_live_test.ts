import assert from "node:assert/strict";
import { launchToLiveVerdict } from "./launch_to_live.ts";

Deno.test("an agent that starts within the room asm needs is held to 5 s, and passes under it", () => {
  const verdict = launchToLiveVerdict({ agent: "Claude Code", liveMs: 1323, ownStartMs: 640 });
  assert.equal(
    verdict.line,
    "Claude Code: live 1.3 s after the launch request (held to 5.0 s; its own start here: 0.6 s, spawn to its " +
      "SessionStart hook)",
  );
  assert.equal(verdict.failure, null);
});

Deno.test("an agent held to 5 s fails over it, with what was measured", () => {
  const verdict = launchToLiveVerdict({ agent: "Codex", liveMs: 5210, ownStartMs: 900 });
  assert.equal(
    verdict.failure,
    "Codex was live 5.2 s after the launch request; the spec asks for 5.0 s (its own start here: 0.9 s, spawn to " +
      "its SessionStart hook)",
  );
});

Deno.test("an agent whose own start leaves no room is reported with its own start, never failed", () => {
  const verdict = launchToLiveVerdict({ agent: "Gemini CLI", liveMs: 7400, ownStartMs: 3100 });
  assert.equal(verdict.failure, null);
  assert.equal(
    verdict.line,
    "Gemini CLI: live 7.4 s after the launch request (its own start here: 3.1 s, spawn to its SessionStart hook; " +
      "over 1.5 s, so the spec's 5.0 s is reported, not held)",
  );
});
