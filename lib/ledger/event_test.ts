import assert from "node:assert/strict";
import { parseEvent } from "./event.ts";
import { hookEvent } from "./_test_utils.ts";

Deno.test("an event file's rules_skipped is read as written", () => {
  const why = "standing rules skipped: /p/.asm/rules.md is a link outside the session's folder";
  assert.equal(parseEvent(JSON.stringify(hookEvent({ rules_skipped: why }))).rules_skipped, why);
  assert.equal(parseEvent(JSON.stringify(hookEvent({ rules_skipped: null }))).rules_skipped, null);
});

Deno.test("an event file written before the hook knew rules_skipped still parses, with it null", () => {
  const { rules_skipped: _, ...old } = hookEvent();
  assert.equal("rules_skipped" in old, false);
  const event = parseEvent(JSON.stringify(old));
  assert.equal(event.rules_skipped, null);
  assert.equal(event.event, "SessionStart");
});
