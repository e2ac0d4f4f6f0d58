import assert from "node:assert/strict";
import type { UsageReading } from "../usage/mod.ts";
import { fillOf, noteParts, readingNote, resetText, windowViews } from "./usage_view.ts";

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
    fill: "calm",
    text: "13%",
    reset: "reset unknown",
  }]);
  assert.equal(readingNote(reading), "from the last turn at 21:12; stale, 10 min old; the last call failed");
});

Deno.test("a bar's colour follows its fill; a note keeps paths and raw times for its details", () => {
  assert.deepEqual([fillOf(null), fillOf(12), fillOf(70), fillOf(89.9), fillOf(90), fillOf(100)], [
    "none",
    "calm",
    "warn",
    "warn",
    "near",
    "near",
  ]);
  const signedOut =
    "no Claude account sign-in on this machine (/home/me/.claude/.credentials.json is absent); an API key has no plan usage";
  assert.deepEqual(noteParts(signedOut), {
    short: "no Claude account sign-in on this machine; an API key has no plan usage",
    detail: signedOut,
  });
  assert.deepEqual(noteParts("stale, 12 min old; last read 2026-12-01T08:05:00.000Z"), {
    short: "stale, 12 min old; last read 1 Dec 08:05",
    detail: null,
  });
  assert.deepEqual(noteParts(""), { short: "", detail: null });
});
