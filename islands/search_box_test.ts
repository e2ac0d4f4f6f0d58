import assert from "node:assert/strict";
import { hitHref } from "./search_box.tsx";

Deno.test("a transcript hit opens its session's page at the hit; a title match opens the page as it is", () => {
  assert.equal(hitHref("s1", { deep: false, query: "deploy" }), "/sessions/s1");
  assert.equal(hitHref("s1", { deep: true, query: "a&b #c" }), "/sessions/s1?find=a%26b+%23c#hit");
  assert.equal(
    hitHref("s1", { deep: true, query: "deploy" }, "2026-11-29T22:15:26.889Z"),
    "/sessions/s1?find=deploy&at=2026-11-29T22%3A15%3A26.889Z#hit",
  );
});
