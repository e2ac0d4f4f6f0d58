import assert from "node:assert/strict";
import { percentile, ratio, round } from "./figures.ts";

Deno.test("a nearest-rank percentile is one of the values, whatever their order", () => {
  assert.equal(percentile([5, 1, 4, 2, 3], 50), 3);
  assert.equal(percentile([1, 2, 3, 4], 50), 2);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90), 9);
  assert.equal(percentile([7], 90), 7);
  assert.ok(Number.isNaN(percentile([], 50)));
});

Deno.test("figures are rounded to the places asked and ratios to two", () => {
  assert.equal(round(12.3456), 12.35);
  assert.equal(round(12.3456, 1), 12.3);
  assert.equal(ratio(3, 2), 1.5);
  assert.equal(ratio(1, 3), 0.33);
});
