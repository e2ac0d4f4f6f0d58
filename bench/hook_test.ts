import assert from "node:assert/strict";
import { benchHook } from "./hook.ts";

// Timing targets are reported by the bench, never asserted here: a loaded CI machine must not fail a test.
Deno.test("the hook bench returns positive finite figures for the hook, its floor and the sh baseline", async () => {
  const figures = await benchHook({ runs: 5 });
  assert.deepEqual(Object.keys(figures).sort(), [
    "floor_p50_ms",
    "p50_ms",
    "p90_ms",
    "ratio",
    "ratio_vs_floor",
    "runs",
    "sh_p50_ms",
  ]);
  assert.equal(figures.runs, 5);
  for (const [key, value] of Object.entries(figures)) {
    assert.ok(Number.isFinite(value) && value > 0, `${key} = ${value}`);
  }
  assert.ok(figures.p90_ms >= figures.p50_ms);
});
