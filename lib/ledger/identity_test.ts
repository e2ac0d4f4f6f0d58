import assert from "node:assert/strict";
import { asmIdOf, NAMESPACE, uuid5 } from "./identity.ts";

Deno.test("uuid5 matches the RFC 4122 test vector for python.org in the DNS namespace", () => {
  assert.equal(
    uuid5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "python.org"),
    "886313e1-3b8a-5372-9b90-0c9aee199e5d",
  );
});

Deno.test("an asm id is the uuid5 of agent:session in the fixed namespace, and stable", () => {
  const id = asmIdOf("claude", "9489399f-0000-4000-8000-000000000001");
  assert.equal(id, uuid5(NAMESPACE, "claude:9489399f-0000-4000-8000-000000000001"));
  assert.equal(id, asmIdOf("claude", "9489399f-0000-4000-8000-000000000001"));
  assert.equal(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id), true);
});

Deno.test("the same session id under two agents gives two different asm ids", () => {
  const a = asmIdOf("claude", "same-id");
  const b = asmIdOf("codex", "same-id");
  assert.equal(a === b, false);
});
