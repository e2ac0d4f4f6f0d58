import assert from "node:assert/strict";
import { threadSourceKind } from "./thread_source.ts";

Deno.test("a thread source hides only when it is a value known to mean a thread Codex made for itself", () => {
  const seen = Object.fromEntries(
    [
      null,
      "user",
      "USER",
      "cli",
      "vscode",
      "exec",
      "bogus",
      "",
      "subagent",
      "subAgentReview",
      "sub_agent_compact",
      "review",
      "memory_consolidation",
      "Guardian",
    ].map((v) => [String(v), threadSourceKind(v)]),
  );
  assert.deepEqual(seen, {
    null: null,
    user: null,
    USER: null,
    cli: null,
    vscode: null,
    exec: null,
    bogus: null,
    "": null,
    subagent: "subagent",
    subAgentReview: "subagent",
    sub_agent_compact: "subagent",
    review: "non-user",
    memory_consolidation: "non-user",
    Guardian: "non-user",
  });
});
