import assert from "node:assert/strict";
import {
  accountDue,
  afterOutcome,
  ageSeconds,
  BACKOFF_CAP_MS,
  backoffMs,
  CACHE_MS,
  emptyEntry,
  lastTurnDue,
  present,
  type UsageEntry,
  windowAt,
} from "./rules.ts";
import type { AccountOutcome, RawWindow } from "./reading.ts";

const T0 = Date.parse("2026-11-29T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const AGENT = { name: "a", display: "Agent A" };
const FIVE_HOUR: RawWindow = { name: "5-hour", percent_used: 61, resets_at: iso(T0 + 3_600_000) };

Deno.test("a window is presented by the clock of the read: passed resets are 0 with an unknown reset", () => {
  const rows: {
    why: string;
    window: RawWindow;
    now: number;
    percent: number | null;
    reset: string | null;
    inS: number | null;
  }[] = [
    { why: "reset ahead", window: FIVE_HOUR, now: T0, percent: 61, reset: FIVE_HOUR.resets_at, inS: 3600 },
    {
      why: "reset 1.5 s ahead rounds up",
      window: FIVE_HOUR,
      now: T0 + 3_598_500,
      percent: 61,
      reset: FIVE_HOUR.resets_at,
      inS: 2,
    },
    {
      why: "reset exactly now has passed",
      window: FIVE_HOUR,
      now: T0 + 3_600_000,
      percent: 0,
      reset: null,
      inS: null,
    },
    {
      why: "reset passed hours ago",
      window: FIVE_HOUR,
      now: T0 + 8 * 3_600_000,
      percent: 0,
      reset: null,
      inS: null,
    },
    {
      why: "no reset time: the number stands",
      window: { name: "extra usage", percent_used: 54, resets_at: null },
      now: T0 + 10 * 86_400_000,
      percent: 54,
      reset: null,
      inS: null,
    },
    {
      why: "no percent stays null while the window lasts",
      window: { name: "extra usage", percent_used: null, resets_at: iso(T0 + 1000) },
      now: T0,
      percent: null,
      reset: iso(T0 + 1000),
      inS: 1,
    },
    {
      why: "an unparseable reset is unknown, the number stands",
      window: { name: "x", percent_used: 5, resets_at: "soon" },
      now: T0,
      percent: 5,
      reset: null,
      inS: null,
    },
  ];
  for (const row of rows) {
    const w = windowAt(row.window, row.now, "account", iso(T0));
    assert.equal(w.percent_used, row.percent, row.why);
    assert.equal(w.resets_at, row.reset, row.why);
    assert.equal(w.resets_in_seconds, row.inS, row.why);
    assert.equal(w.name, row.window.name, row.why);
    assert.equal(w.fetched_at, iso(T0), row.why);
  }
});

Deno.test("the backoff doubles from 30 s and is capped at 15 minutes", () => {
  const rows: [number, number][] = [[0, 0], [1, 30_000], [2, 60_000], [3, 120_000], [5, 480_000], [
    6,
    900_000,
  ], [
    40,
    900_000,
  ]];
  for (const [failures, ms] of rows) assert.equal(backoffMs(failures), ms, `${failures} failures`);
});

function after(entry: UsageEntry, outcome: AccountOutcome, now: number, stamp = "s1"): UsageEntry {
  return afterOutcome(entry, outcome, now, stamp);
}

Deno.test("when the endpoint is asked again depends on the last outcome", () => {
  const ok = after(emptyEntry(), { kind: "ok", windows: [FIVE_HOUR] }, T0);
  const failed1 = after(emptyEntry(), { kind: "failed", message: "HTTP 500" }, T0);
  const failed3 = after(after(failed1, { kind: "failed", message: "HTTP 500" }, T0), {
    kind: "failed",
    message: "HTTP 500",
  }, T0);
  const limited = after(emptyEntry(), { kind: "failed", message: "HTTP 429", retryAfterMs: 300_000 }, T0);
  const greedy = after(
    emptyEntry(),
    { kind: "failed", message: "HTTP 429", retryAfterMs: 99 * 3_600_000 },
    T0,
  );
  const refused = after(emptyEntry(), { kind: "signed-out", message: "signed out or token expired" }, T0);
  const none = after(emptyEntry(), { kind: "unavailable", message: "API key" }, T0);
  const rows: { why: string; entry: UsageEntry; now: number; stamp: string; due: boolean }[] = [
    { why: "never asked", entry: emptyEntry(), now: T0, stamp: "s1", due: true },
    { why: "good reading within 60 s", entry: ok, now: T0 + CACHE_MS - 1, stamp: "s1", due: false },
    { why: "good reading after 60 s", entry: ok, now: T0 + CACHE_MS, stamp: "s1", due: true },
    { why: "one failure: 30 s", entry: failed1, now: T0 + 29_999, stamp: "s1", due: false },
    { why: "one failure, 30 s later", entry: failed1, now: T0 + 30_000, stamp: "s1", due: true },
    { why: "three failures: 2 min", entry: failed3, now: T0 + 119_999, stamp: "s1", due: false },
    {
      why: "Retry-After beyond the backoff holds",
      entry: limited,
      now: T0 + 299_999,
      stamp: "s1",
      due: false,
    },
    { why: "Retry-After is capped at an hour", entry: greedy, now: T0 + 3_600_000, stamp: "s1", due: true },
    {
      why: "refused token: no retry storm",
      entry: refused,
      now: T0 + BACKOFF_CAP_MS - 1,
      stamp: "s1",
      due: false,
    },
    {
      why: "refused token: 15 minutes later",
      entry: refused,
      now: T0 + BACKOFF_CAP_MS,
      stamp: "s1",
      due: true,
    },
    { why: "refused token, then a new sign-in", entry: refused, now: T0 + 1, stamp: "s2", due: true },
    { why: "a new sign-in ends any wait", entry: failed3, now: T0 + 1, stamp: "s2", due: true },
    {
      why: "no sign-in: looked at again after 60 s",
      entry: none,
      now: T0 + CACHE_MS,
      stamp: "s1",
      due: true,
    },
  ];
  for (const row of rows) assert.equal(accountDue(row.entry, row.now, row.stamp), row.due, row.why);
  assert.equal(failed3.failures, 3);
  assert.equal(
    after(failed3, { kind: "ok", windows: [] }, T0).failures,
    0,
    "a good call ends the run of failures",
  );
});

Deno.test("the last turn is read only without a good account reading, once a minute", () => {
  const ok = after(emptyEntry(), { kind: "ok", windows: [FIVE_HOUR] }, T0);
  const none = after(emptyEntry(), { kind: "unavailable", message: "API key" }, T0);
  const read = { ...none, lastTurnReadAtMs: T0 };
  assert.equal(lastTurnDue(ok, T0), false);
  assert.equal(lastTurnDue(none, T0), true);
  assert.equal(lastTurnDue(read, T0 + CACHE_MS - 1), false);
  assert.equal(lastTurnDue(read, T0 + CACHE_MS), true);
});

Deno.test("a reading says how it was come by, and a stale one carries its age", () => {
  const good = after(emptyEntry(), { kind: "ok", windows: [FIVE_HOUR] }, T0);
  const turn = {
    windows: [{ name: "weekly", percent_used: 40, resets_at: iso(T0 + 86_400_000) }],
    at: iso(T0 - 600_000),
  };
  const failedAfterGood = after(good, {
    kind: "failed",
    message: "Claude's usage endpoint answered HTTP 500",
  }, T0 + 90_000);
  const rows: {
    why: string;
    entry: UsageEntry;
    now: number;
    state: string;
    age: number | null;
    label: string | null;
    percents: (number | null)[];
    message: RegExp;
  }[] = [
    {
      why: "fresh",
      entry: good,
      now: T0 + 5_000,
      state: "ok",
      age: 5,
      label: null,
      percents: [61],
      message: /^$/,
    },
    {
      why: "failed after a good reading: stale with its age",
      entry: failedAfterGood,
      now: T0 + 120_000,
      state: "stale",
      age: 120,
      label: null,
      percents: [61],
      message: /answered HTTP 500; showing an older reading/,
    },
    {
      why: "stale past the window's reset: 0 and unknown",
      entry: failedAfterGood,
      now: T0 + 2 * 3_600_000,
      state: "stale",
      age: 7200,
      label: null,
      percents: [0],
      message: /HTTP 500/,
    },
    {
      why: "failed with nothing older",
      entry: after(emptyEntry(), { kind: "failed", message: "no answer within 10 s" }, T0),
      now: T0,
      state: "error",
      age: null,
      label: null,
      percents: [],
      message: /^no answer within 10 s$/,
    },
    {
      why: "signed out with the last turn's figures: labelled",
      entry: {
        ...after(emptyEntry(), { kind: "signed-out", message: "signed out or token expired" }, T0),
        lastTurn: turn,
      },
      now: T0,
      state: "signed-out",
      age: 600,
      label: `from the last turn at ${turn.at}`,
      percents: [40],
      message: /signed out or token expired; showing the last turn's figures/,
    },
    {
      why: "unavailable with nothing to show",
      entry: after(emptyEntry(), { kind: "unavailable", message: "not available with API-key sign-in" }, T0),
      now: T0,
      state: "unavailable",
      age: null,
      label: null,
      percents: [],
      message: /^not available with API-key sign-in$/,
    },
    {
      why: "failed: the newer of the last good reading and the last turn is shown",
      entry: { ...failedAfterGood, lastTurn: { ...turn, at: iso(T0 + 60_000) } },
      now: T0 + 120_000,
      state: "stale",
      age: 60,
      label: `from the last turn at ${iso(T0 + 60_000)}`,
      percents: [40],
      message: /showing the last turn's figures/,
    },
    {
      why: "never read",
      entry: emptyEntry(),
      now: T0,
      state: "error",
      age: null,
      label: null,
      percents: [],
      message: /no usage reading yet/,
    },
  ];
  for (const row of rows) {
    const r = present(AGENT, row.entry, row.now);
    assert.equal(r.agent, "a", row.why);
    assert.equal(r.display, "Agent A", row.why);
    assert.equal(r.state, row.state, row.why);
    assert.equal(r.age, row.age, row.why);
    assert.equal(r.label, row.label, row.why);
    assert.deepEqual(r.windows.map((w) => w.percent_used), row.percents, row.why);
    assert.match(r.message, row.message, row.why);
    for (const w of r.windows) assert.equal(w.source, row.label === null ? "account" : "last-turn", row.why);
  }
});

Deno.test("an age is whole seconds and never negative", () => {
  assert.equal(ageSeconds(iso(T0), T0 + 59_999), 59);
  assert.equal(ageSeconds(iso(T0), T0 - 5_000), 0);
});
