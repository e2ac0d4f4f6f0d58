import assert from "node:assert/strict";
import { matchesIn, needleOf, refusalOf, snippetOf } from "./text.ts";

Deno.test("a query shorter than two characters is refused; two characters run", () => {
  assert.match(refusalOf("a") ?? "", /at least 2 characters/);
  assert.match(refusalOf("   ") ?? "", /at least 2 characters/);
  assert.match(refusalOf(" 😀 ") ?? "", /at least 2 characters/, "one character, however many code units");
  assert.equal(refusalOf("ab"), null);
});

Deno.test("matches are case-insensitive occurrences that do not overlap", () => {
  assert.deepEqual(matchesIn("Zeta zeta ZETA", needleOf(" zeta ")), [0, 5, 10]);
  assert.deepEqual(matchesIn("aaaa", "aa"), [0, 2]);
  assert.deepEqual(matchesIn("nothing here", "zeta"), []);
});

Deno.test("a snippet is about 80 characters on one line, cut with an ellipsis", () => {
  const text = `${"a".repeat(200)}\n\nthe NEEDLE\there${"b".repeat(200)}`;
  const at = text.indexOf("NEEDLE");
  const s = snippetOf(text, at, 6);
  assert.ok(s.startsWith("…") && s.endsWith("…"));
  assert.ok(!/[\n\t]/.test(s), "one line");
  assert.match(s, /the NEEDLE here/);
  assert.ok(s.length >= 78 && s.length <= 84, `${s.length}`);
  const early = snippetOf(`needle ${"c".repeat(200)}`, 0, 6);
  assert.ok(
    early.startsWith("needle") && early.length >= 80,
    "a match at the start still gets 80 characters",
  );
  assert.equal(snippetOf("short needle", 6, 6), "short needle");
});
