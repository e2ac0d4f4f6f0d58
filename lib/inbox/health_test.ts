import assert from "node:assert/strict";
import { type DrainMemory, judgePass, newDrainMemory, type PassFacts, STALL_PASSES } from "./health.ts";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");

function pass(overrides: Partial<PassFacts> = {}, i = 0): PassFacts {
  return {
    at: T0 + i * 2000,
    ran: true,
    backlog: 0,
    rejected: 0,
    failing: 0,
    remembered: 0,
    error: null,
    ...overrides,
  };
}

function run(passes: Partial<PassFacts>[]): DrainMemory {
  return passes.reduce<DrainMemory>((memory, p, i) => judgePass(memory, pass(p, i)), newDrainMemory());
}

const rows: {
  situation: string;
  passes: Partial<PassFacts>[];
  ok: boolean;
  check?: (m: DrainMemory) => void;
}[] = [
  {
    situation: "before any pass the drain is ok and has run never",
    passes: [],
    ok: true,
    check: (m) => assert.equal(m.health.last_pass_at, null),
  },
  {
    situation: "a clean pass is good",
    passes: [{}],
    ok: true,
    check: (m) => assert.equal(m.health.last_good_pass_at, "2026-12-01T10:00:00.000Z"),
  },
  {
    situation: "a pass that could not list the inbox is not ok, and keeps the last good time and backlog",
    passes: [{ backlog: 4 }, { ran: false, error: "the drain cannot list inbox: permission denied" }],
    ok: false,
    check: (m) => {
      assert.equal(m.health.last_good_pass_at, "2026-12-01T10:00:00.000Z");
      assert.equal(m.health.last_pass_at, "2026-12-01T10:00:02.000Z");
      assert.equal(m.health.backlog, 4);
      assert.match(m.health.last_error!, /permission denied/);
    },
  },
  {
    situation: "a backlog that does not shrink while files fail turns not ok after the stall limit",
    passes: Array.from({ length: STALL_PASSES }, () => ({ backlog: 20, failing: 20, error: "disk full" })),
    ok: false,
  },
  {
    situation: "one pass short of the stall limit is still ok",
    passes: Array.from(
      { length: STALL_PASSES - 1 },
      () => ({ backlog: 20, failing: 20, error: "disk full" }),
    ),
    ok: true,
  },
  {
    situation: "a backlog that shrinks is progress, however many files fail",
    passes: Array.from({ length: STALL_PASSES + 2 }, (_, i) => ({ backlog: 20 - i, failing: 1 })),
    ok: true,
  },
  {
    situation: "a large backlog with no failing file is only a busy inbox",
    passes: Array.from({ length: STALL_PASSES + 2 }, () => ({ backlog: 5000 })),
    ok: true,
  },
  {
    situation: "a stall ends with the first pass whose files went in",
    passes: [
      ...Array.from({ length: STALL_PASSES }, () => ({ backlog: 20, failing: 20, error: "disk full" })),
      { backlog: 0 },
    ],
    ok: true,
    check: (m) => (assert.equal(m.stalledPasses, 0), assert.equal(m.health.last_error, null)),
  },
  {
    situation: "a name skipped for good is not ok until it is gone",
    passes: [{ remembered: 1, error: "1 name(s) in the inbox are skipped" }],
    ok: false,
    check: (m) => assert.equal(m.health.remembered, 1),
  },
  {
    situation: "a skipped name that went through on a later pass makes the drain ok again by itself",
    passes: [{ remembered: 2, error: "2 name(s) in the inbox are skipped" }, { remembered: 0, rejected: 2 }],
    ok: true,
    check: (m) => (assert.equal(m.health.remembered, 0), assert.equal(m.health.last_error, null)),
  },
  {
    situation: "rejected files add up across passes and do not make the drain unwell",
    passes: [{ rejected: 2 }, { rejected: 3 }],
    ok: true,
    check: (m) => assert.equal(m.health.rejected_total, 5),
  },
];

for (const row of rows) {
  Deno.test(`drain health: ${row.situation}`, () => {
    const memory = run(row.passes);
    assert.equal(memory.health.ok, row.ok);
    row.check?.(memory);
  });
}
