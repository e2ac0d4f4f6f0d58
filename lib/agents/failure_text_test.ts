import assert from "node:assert/strict";
import { FAILURE_TEXT_MAX, failureText } from "./failure_text.ts";

Deno.test("a failed turn's message reads as one plain, bounded line", () => {
  assert.equal(
    failureText("API Error: Repeated 529 Overloaded errors."),
    "API Error: Repeated 529 Overloaded errors.",
  );
  // an escape sequence, a bell and newlines from a hostile server are not passed on
  assert.equal(failureText("bad\u001b[31m red\u0007\n\nnext\tline\u2028x"), "bad [31m red next line x");
  const long = failureText("é".repeat(1000))!;
  assert.equal([...long].length, FAILURE_TEXT_MAX);
  assert.ok(long.endsWith("…"));
  assert.equal(failureText("  \n "), null);
  assert.equal(failureText(42), null);
});

Deno.test("a failed turn's message loses the invisible characters that reorder or hide text", () => {
  assert.equal(
    failureText("quota \u202eexceeded\u202c for\u200b you\u2066!\u2069\ufeff"),
    "quota exceeded for you!",
  );
});
