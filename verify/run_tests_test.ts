import assert from "node:assert/strict";
import { parseSummary } from "./run_tests.ts";

Deno.test("deno test's closing summary is read for passed, failed and ignored (skipped), colours or not", () => {
  assert.deepEqual(parseSummary("x\nok | 12 passed (3 steps) | 0 failed (1s)\n"), {
    passed: 12,
    failed: 0,
    skipped: 0,
  });
  assert.deepEqual(
    parseSummary("\x1b[0m\x1b[32mok\x1b[0m | 5 passed | 0 failed | 2 ignored (2s)"),
    { passed: 5, failed: 0, skipped: 2 },
  );
  assert.deepEqual(parseSummary("FAILED | 86 passed | 1 failed | 1 ignored (16s)"), {
    passed: 86,
    failed: 1,
    skipped: 1,
  });
  assert.equal(parseSummary("no summary here"), null);
});
