import assert from "node:assert/strict";
import { benchBoard } from "./board.ts";

// The target (about three requests a minute while idle) is reported by the bench, never asserted here.
Deno.test("the board bench counts the outliner's requests: idle, a button, its follow-up pass, and the naive baseline", async () => {
  const figures = await benchBoard({ minutes: 3, cards: 6 });
  assert.deepEqual(Object.keys(figures).sort(), [
    "button_requests",
    "cards",
    "first_read_requests",
    "follow_up_pass_requests",
    "idle_requests_per_min",
    "naive_requests_per_min",
    "ratio_idle_vs_naive",
    "simulated_minutes",
    "target_idle_per_min",
  ]);
  assert.equal(figures.first_read_requests, 3 + 6, "the three lists and every card's prompt");
  assert.equal(figures.naive_requests_per_min, 3 * (3 + 6), "three whole reads a minute");
  assert.ok(figures.idle_requests_per_min > 0, "an idle board is still read");
  assert.ok(figures.button_requests > 0 && figures.follow_up_pass_requests > 0, JSON.stringify(figures));
});
