/**
 * A ledger that already holds a value out of range (written by an asm before the boundary checks, or by hand)
 * stops no read and no write: its runs out of range are no runs (left out, then closed once), a number beyond
 * 2^53 anywhere else reads as null and is reported, and no door stores a new one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Ledger, LedgerError } from "./ledger.ts";
import { hookEvent, writeSql } from "./_test_utils.ts";
import { closeRunsOutOfRange, liveRows, OUT_OF_RANGE_END, pollRows } from "./activity.ts";
import { sessionViews } from "./derived.ts";

const SID = "aaaaaaaa-0000-4000-8000-000000000001";
const OTHER = "aaaaaaaa-0000-4000-8000-000000000002";

function world() {
  const dir = Deno.makeTempDirSync({ prefix: "asm-out-of-range-" });
  const ledger = Ledger.open(join(dir, "ledger.sqlite"));
  const start = hookEvent({ agent_session_id: SID, agent_pid: 4242, agent_proc_start: 100 });
  ledger.applyEvent(start);
  ledger.applyEvent(hookEvent({ agent_session_id: OTHER, agent_pid: 5151, agent_proc_start: 200 }));
  // what an older asm stored from an event carrying agent_pid 2^62, and one carrying start ticks of -5
  const run = "INSERT INTO runs (asm_id, pid, proc_start, boot_id, started_at) VALUES (?, ?, ?, 'boot-1', ?)";
  writeSql(ledger, run, start.asm_id, 2n ** 62n, 100, start.ts);
  writeSql(ledger, run, start.asm_id, 4243, -5, start.ts);
  return {
    ledger,
    asmId: start.asm_id,
    [Symbol.dispose]() {
      ledger.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

Deno.test("a run stored out of range is no run: every reader leaves it out and the session still changes", () => {
  using w = world();
  assert.deepEqual(w.ledger.runs(w.asmId).map((r) => r.pid), [4242]);
  assert.deepEqual(w.ledger.openRuns().map((r) => r.pid).sort(), [4242, 5151]);
  assert.deepEqual(pollRows(w.ledger).runs.map((r) => r.pid).sort(), [4242, 5151]);
  // the transition loads the session's runs: a prompt, then the end of its only real run, end it
  w.ledger.applyEvent(
    hookEvent({
      agent_session_id: SID,
      event: "UserPromptSubmit",
      agent_pid: 4242,
      agent_proc_start: 100,
      ts: "2026-11-29T22:01:00.000Z",
    }),
  );
  w.ledger.applyEvent(
    hookEvent({
      agent_session_id: SID,
      event: "SessionEnd",
      source: "exit",
      agent_pid: 4242,
      agent_proc_start: 100,
      ts: "2026-11-29T22:02:00.000Z",
    }),
  );
  assert.equal(w.ledger.session(w.asmId)?.status, "ended");
  assert.equal(w.ledger.session(w.asmId)?.prompts, 1);
});

Deno.test("the runs out of range are closed once, named with their stored values, their session left as it is", () => {
  using w = world();
  const closed = closeRunsOutOfRange(w.ledger, "2026-11-29T22:05:00.000Z");
  assert.deepEqual(
    closed.map(({ pid, proc_start, why }) => ({ pid, proc_start, why })),
    [
      {
        pid: "4611686018427387904",
        proc_start: "100",
        why: "4611686018427387904 is not a pid (1 to 4194304)",
      },
      { pid: "4243", proc_start: "-5", why: "-5 is not a start time in clock ticks (0 to 2^53)" },
    ],
  );
  assert.deepEqual(closed.map((c) => c.asm_id), [w.asmId, w.asmId]);
  assert.deepEqual(closeRunsOutOfRange(w.ledger, "2026-11-29T22:05:05.000Z"), [], "closed once");
  const rows = w.ledger.query(
    "SELECT ended_at, end_reason FROM runs WHERE run_id IN (?, ?)",
    ...closed.map((c) => c.run_id),
  );
  assert.deepEqual(rows.map((r) => ({ ...r })), [
    { ended_at: "2026-11-29T22:05:00.000Z", end_reason: OUT_OF_RANGE_END },
    { ended_at: "2026-11-29T22:05:00.000Z", end_reason: OUT_OF_RANGE_END },
  ]);
  // the session's status follows the runs the transition sees: its real run is still open
  assert.equal(w.ledger.session(w.asmId)?.status, "live");
});

Deno.test("a number beyond 2^53 in any other column reads as null, every other row intact, and is reported once", () => {
  using w = world();
  writeSql(
    w.ledger,
    "UPDATE sessions SET context_tokens = ?, turns = ? WHERE asm_id = ?",
    2n ** 62n,
    3,
    w.asmId,
  );
  const views = sessionViews(w.ledger, { all: true });
  const bad = views.find((v) => v.asm_id === w.asmId)!;
  assert.deepEqual([bad.context_tokens, bad.turns], [null, 3]);
  assert.equal(views.length, 2);
  assert.equal(liveRows(w.ledger).length, 2);
  assert.equal(w.ledger.session(w.asmId)?.status, "live");
  // the transition reads the whole row too
  assert.equal(
    w.ledger.applyEvent(hookEvent({ agent_session_id: SID, event: "Stop", ts: "2026-11-29T22:03:00.000Z" })),
    "applied",
  );
  const reported = w.ledger.takeWideReads();
  assert.ok(reported.length >= 2, reported.join("\n"));
  assert.equal(new Set(reported).size, reported.length, "each statement once");
  sessionViews(w.ledger, { all: true });
  assert.deepEqual(w.ledger.takeWideReads(), [], "a statement already reported is not again");
});

Deno.test("no door stores a run out of range: an event built in code, a run from the agent's records", () => {
  using w = world();
  const event = hookEvent({ agent_session_id: "built-in-code", agent_pid: 2 ** 62 });
  assert.throws(() => w.ledger.applyEvent(event), (err: Error) => {
    assert.equal(err instanceof LedgerError, true);
    assert.match(err.message, /agent_pid: 4611686018427387904 is not a pid/);
    return true;
  });
  assert.equal(w.ledger.hasEvent(event.event_id), false);
  const at = "2026-11-29T22:04:00.000Z";
  assert.throws(
    () => w.ledger.adoptRun(w.asmId, { pid: 4242, proc_start: -1, boot_id: "boot-1" }, at),
    LedgerError,
  );
});
