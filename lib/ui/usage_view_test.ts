import assert from "node:assert/strict";
import type { UsageReading } from "../usage/mod.ts";
import { readingNote, resetText, windowViews } from "./usage_view.ts";

const NOW = Date.parse("2026-11-29T22:00:00.000Z");

Deno.test("a countdown is computed at paint time from the absolute reset", () => {
  assert.equal(resetText("2026-11-30T00:05:00.000Z", NOW), "resets in 2 h 05 min");
  assert.equal(resetText("2026-12-02T23:00:00.000Z", NOW), "resets in 3 d 1 h");
  assert.equal(resetText("2026-11-29T22:00:30.000Z", NOW), "resets in 1 min");
  assert.equal(resetText("2026-11-29T21:00:00.000Z", NOW), "resetting now");
  assert.equal(resetText(null, NOW), "reset unknown");
});

Deno.test("windows draw their percent, and a stale or labelled reading says so with its age", () => {
  const reading: UsageReading = {
    agent: "codex",
    display: "Codex",
    state: "stale",
    message: "the last call failed",
    label: "from the last turn at 21:12",
    age: 600,
    windows: [{
      name: "5-hour",
      percent_used: 12.5,
      resets_at: null,
      resets_in_seconds: null,
      source: "last-turn",
      fetched_at: "2026-11-29T21:12:00.000Z",
    }],
  };
  assert.deepEqual(windowViews(reading, NOW), [{
    name: "5-hour",
    percent: 12.5,
    text: "13%",
    reset: "reset unknown",
  }]);
  assert.equal(readingNote(reading), "from the last turn at 21:12; stale, 10 min old; the last call failed");
});
