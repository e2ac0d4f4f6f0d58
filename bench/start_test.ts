import assert from "node:assert/strict";
import { benchStart } from "./start.ts";

// Timing targets are reported by the bench, never asserted here: a loaded CI machine must not fail a test.
Deno.test("the start bench times the file's first, warm and new-boot runs and the checkout's, each until /api/health answers", async () => {
  const lines: string[] = [];
  const figures = await benchStart({ runs: 1, say: (line) => lines.push(line) });
  assert.deepEqual(Object.keys(figures).sort(), [
    "cache_mb",
    "checkout_ms",
    "file_mb",
    "first_run_ms",
    "first_run_vs_checkout",
    "new_boot_ms",
    "new_boot_vs_checkout",
    "runs",
    "warm_ms",
    "warm_vs_checkout",
  ]);
  assert.equal(figures.runs, 1);
  for (const [key, value] of Object.entries(figures)) {
    assert.ok(Number.isFinite(value) && value > 0, `${key} = ${value}`);
  }
  // the first run unpacked what the file carries: more on disk than the compressed file
  assert.ok(figures.cache_mb > figures.file_mb, `cache ${figures.cache_mb} MB, file ${figures.file_mb} MB`);
  assert.match(
    lines.at(-1)!,
    /^bench start: round 1\/1: first run \d+ ms, warm \d+ ms, new boot \d+ ms, checkout \d+ ms$/,
  );
});
