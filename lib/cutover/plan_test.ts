import assert from "node:assert/strict";
import type { JournalRecord, NewRecord } from "./journal.ts";
import { doctorCheck, fileDecision, gatesCheck, rollbackPlan, standing } from "./plan.ts";

const at = "2026-12-02T10:00:00.000Z";
const file = (path: string, sha256: string | null) => ({
  path,
  sha256,
  mode: sha256 ? 0o600 : null,
  blob: sha256,
});

function journal(...records: NewRecord[]): JournalRecord[] {
  return records.map((r) => ({ ...r, at }) as JournalRecord);
}

const cutover: NewRecord = { kind: "cutover", run: "r1", options: {}, preflight: [] };

Deno.test("the rollback plan undoes every begun step newest first, a failed one too, and skips those undone", () => {
  const records = journal(
    cutover,
    { kind: "begin", run: "r1", step: 1, name: "back up", files: [], facts: {} },
    { kind: "done", run: "r1", step: 1, files: [], facts: {}, detail: "" },
    { kind: "begin", run: "r1", step: 2, name: "install", files: [file("/a", "old")], facts: {} },
    {
      kind: "done",
      run: "r1",
      step: 2,
      files: [{ path: "/a", sha256: "new", mode: 0o600 }],
      facts: {},
      detail: "",
    },
    { kind: "begin", run: "r1", step: 3, name: "board", files: [file("/c", null)], facts: { keys: {} } },
    { kind: "failed", run: "r1", step: 3, error: "no" },
  );
  const plan = rollbackPlan(records)!;
  assert.equal(plan.run, "r1");
  assert.deepEqual(plan.steps.map((s) => s.step), [3, 2, 1]);
  assert.equal(plan.steps[0].after, null, "the failed step never finished");
  assert.equal(plan.steps[1].after!.get("/a")!.sha256, "new");
  assert.deepEqual(standing(records), {
    kind: "in-place",
    run: "r1",
    finished: false,
    lastStep: 3,
    failed: 3,
  });

  // a rollback that stopped after undoing step 3 goes on from step 2
  const resumed = [...records, ...journal({ kind: "undo", run: "r1", step: 3, lines: [] })];
  assert.deepEqual(rollbackPlan(resumed)!.steps.map((s) => s.step), [2, 1]);
  const finished = [...resumed, ...journal({ kind: "rolled-back", run: "r1", lines: [] })];
  assert.equal(rollbackPlan(finished), null);
  assert.deepEqual(standing(finished), { kind: "rolled-back", run: "r1" });
  assert.deepEqual(standing([]), { kind: "none" });
});

Deno.test("a file goes back only when it holds what the step wrote; a failed step's file goes back whatever it holds", () => {
  const before = { sha256: "old", mode: 0o600 };
  const after = { sha256: "new", mode: 0o600 };
  assert.equal(fileDecision(before, after, { sha256: "old", mode: 0o600 }), "unchanged");
  assert.equal(fileDecision(before, after, { sha256: "new", mode: 0o600 }), "restore");
  assert.equal(fileDecision(before, after, { sha256: "edited", mode: 0o600 }), "changed-since");
  assert.equal(fileDecision(before, after, { sha256: null, mode: null }), "changed-since", "removed since");
  assert.equal(fileDecision(before, null, { sha256: "partial", mode: 0o600 }), "restore");
  assert.equal(fileDecision(before, after, { sha256: "old", mode: 0o644 }), "changed-since");
  assert.equal(
    fileDecision(before, before, { sha256: "edited", mode: 0o600 }),
    "unchanged",
    "not the step's",
  );
  const absent = { sha256: null, mode: null };
  assert.equal(fileDecision(absent, after, { sha256: "new", mode: 0o600 }), "restore", "made by the step");
  assert.equal(fileDecision(absent, after, absent), "unchanged");
});

Deno.test("the gates pass only when the newest run of every gate is green and one was run at all", () => {
  const run = (gate: string, at: string, failed: number) => ({ gate, at, passed: 5, failed, commit: null });
  assert.equal(gatesCheck([]).ok, false);
  assert.match(gatesCheck([]).text, /no gate run is recorded/);
  assert.equal(
    gatesCheck([run("gate0", "2026-12-01T00:00:00Z", 1), run("gate0", "2026-12-02T00:00:00Z", 0)]).ok,
    true,
  );
  const red = gatesCheck([run("gate0", "2026-12-02T00:00:00Z", 0), run("gate2", "2026-12-01T00:00:00Z", 2)]);
  assert.equal(red.ok, false);
  assert.match(red.text, /^the last run of gate2 \(2 failed, 2026-12-01T00:00:00Z\) is not green/);
  assert.equal(
    gatesCheck([{ ...run("gate0", at, 0), passed: 0 }]).ok,
    false,
    "a run of no checks is not green",
  );
});

Deno.test("the doctor blocks on anything broken except what the cutover itself installs or starts", () => {
  const f = (check: string, fix: string | null, severity = "broken", subject = "claude") => ({
    subject,
    check,
    severity,
    text: `${check} is wrong.`,
    fix,
  });
  const fixed = doctorCheck([
    f("hooks", "asm install"),
    f("server", "asm serve", "broken", "asm"),
    f("trust", "run codex in a terminal and trust asm's hooks when it asks", "broken", "codex"),
  ]);
  assert.equal(fixed.ok, true);
  assert.match(fixed.text, /3 it fixes: claude hooks, asm server, codex trust/);
  const blocked = doctorCheck([f("hooks", "asm install"), f("Ledger", "free some space", "broken", "asm")]);
  assert.equal(blocked.ok, false);
  assert.equal(
    blocked.text,
    "asm doctor finds 1 thing(s) broken that the cutover does not fix: Ledger is wrong.",
  );
});
