import assert from "node:assert/strict";
import { join } from "node:path";
import {
  clearFinishedActivity,
  closeGoneRuns,
  hookActivity,
  listDigest,
  liveRows,
  pollRows,
  recordActivity,
  sessionCells,
} from "./activity.ts";
import { type ListedSession, writeListed } from "./derived.ts";
import { asmIdOf } from "./identity.ts";
import { DB, Ledger } from "./ledger.ts";
import { hookEvent } from "./_test_utils.ts";

function tempLedger(): Ledger & { [Symbol.dispose](): void } {
  const dir = Deno.makeTempDirSync({ prefix: "asm-activity-" });
  const ledger = Ledger.open(join(dir, "ledger.sqlite"), { harnessRoots: ["/tmp/harness"] });
  return Object.assign(ledger, {
    [Symbol.dispose]() {
      ledger.close();
      Deno.removeSync(dir, { recursive: true });
    },
  });
}

const A = "aaaaaaaa-0000-4000-8000-000000000001";
const B = "bbbbbbbb-0000-4000-8000-000000000002";

Deno.test("the poll reads live sessions with their open runs, and a killed session whose run is still open", () => {
  using ledger = tempLedger();
  const a = hookEvent({ agent_session_id: A, agent_pid: 10, agent_proc_start: 100 });
  const b = hookEvent({ agent_session_id: B, agent_pid: 20, agent_proc_start: 200 });
  ledger.applyEvent(a);
  ledger.applyEvent(b);
  ledger.claimKilled(b.asm_id, "2026-11-29T22:00:05.000Z");
  const ended = hookEvent({ agent_session_id: "cccccccc-0000-4000-8000-000000000003", agent_pid: 30 });
  ledger.applyEvent(ended);
  ledger.applyEvent({
    ...ended,
    event_id: crypto.randomUUID(),
    event: "SessionEnd",
    ts: "2026-11-29T22:00:09.000Z",
  });

  const { sessions, runs } = pollRows(ledger);
  assert.deepEqual(sessions.map((s) => [s.agent_session_id, s.status]), [
    [A, "live"],
    [B, "killed"],
  ]);
  assert.deepEqual(runs.map((r) => [r.pid, r.proc_start]), [[10, 100], [20, 200]]);
});

Deno.test("hook activity is the latest turn event and the latest call for attention, with its kind", () => {
  using ledger = tempLedger();
  const at = (s: number) => `2026-11-29T22:00:${String(s).padStart(2, "0")}.000Z`;
  const base = { agent_session_id: A };
  ledger.applyEvent(hookEvent({ ...base, ts: at(0) }));
  ledger.applyEvent(hookEvent({ ...base, event: "UserPromptSubmit", ts: at(1) }));
  ledger.applyEvent(hookEvent({
    ...base,
    event: "Notification",
    ts: at(2),
    payload: { notification_type: "permission_prompt", message: "Claude needs your permission" },
  }));
  ledger.applyEvent(hookEvent({ ...base, event: "Stop", ts: at(3) }));
  const other = hookEvent({ agent_session_id: B, ts: at(4) });
  ledger.applyEvent(other);

  const found = hookActivity(ledger, [hookEvent(base).asm_id, other.asm_id, "no-such-session"]);
  assert.deepEqual(found.get(hookEvent(base).asm_id), {
    turn: { event: "Stop", ts: at(3) },
    attention: { event: "Notification", ts: at(2), kind: "permission_prompt" },
  });
  assert.deepEqual(found.get(other.asm_id), { turn: { event: "SessionStart", ts: at(4) }, attention: null });
  assert.deepEqual(found.get("no-such-session"), { turn: null, attention: null });
});

Deno.test("an activity is stored only on a live session and only when it changed", () => {
  using ledger = tempLedger();
  const a = hookEvent({ agent_session_id: A });
  ledger.applyEvent(a);
  const working = {
    asm_id: a.asm_id,
    activity: "working",
    activity_reason: null,
    activity_at: "2026-11-29T22:00:01.000Z",
  };
  assert.equal(recordActivity(ledger, [working]), 1);
  assert.equal(recordActivity(ledger, [working]), 0, "the same facts again change nothing");
  const row = liveRows(ledger, { all: true })[0];
  assert.deepEqual([row.activity, row.activity_reason, row.activity_at], [
    "working",
    null,
    working.activity_at,
  ]);

  ledger.applyEvent(hookEvent({ agent_session_id: A, event: "SessionEnd", ts: "2026-11-29T22:00:09.000Z" }));
  assert.equal(
    recordActivity(ledger, [{ ...working, activity: "idle" }]),
    0,
    "an ended session gets no word",
  );
  assert.equal(clearFinishedActivity(ledger), 1);
  const ended = ledger.query("SELECT activity, activity_reason, activity_at FROM sessions")[0];
  assert.deepEqual({ ...ended }, { activity: null, activity_reason: null, activity_at: null });
});

Deno.test("closing gone runs makes a live session lost and clears its word, and leaves a killed one killed", () => {
  using ledger = tempLedger();
  const a = hookEvent({ agent_session_id: A, agent_pid: 10, agent_proc_start: 100 });
  const b = hookEvent({ agent_session_id: B, agent_pid: 20, agent_proc_start: 200 });
  ledger.applyEvent(a);
  ledger.applyEvent(b);
  recordActivity(ledger, [{
    asm_id: a.asm_id,
    activity: "working",
    activity_reason: null,
    activity_at: null,
  }]);
  ledger.claimKilled(b.asm_id, "2026-11-29T22:00:05.000Z");
  const after = closeGoneRuns(
    ledger,
    new Map([[a.asm_id, [{ pid: 10, proc_start: 100 }]], [b.asm_id, [{ pid: 20, proc_start: 200 }]]]),
    "2026-11-29T22:00:10.000Z",
  );
  assert.deepEqual([...after.values()], ["lost", "killed"]);
  assert.equal(ledger.openRuns().length, 0);
  assert.deepEqual(
    ledger.query("SELECT activity FROM sessions WHERE asm_id = ?", a.asm_id)[0].activity,
    null,
  );
});

Deno.test("the live rows leave hidden sessions out unless all are asked for", () => {
  using ledger = tempLedger();
  ledger.applyEvent(hookEvent({ agent_session_id: A, cwd: "/home/user/project" }));
  ledger.applyEvent(hookEvent({ agent_session_id: B, cwd: "/tmp/harness/x" }));
  assert.deepEqual(liveRows(ledger).map((r) => r.agent_session_id), [A]);
  const all = liveRows(ledger, { all: true });
  assert.deepEqual(all.map((r) => [r.agent_session_id, r.hidden_reason]).sort(), [
    [A, null],
    [B, "harness folder"],
  ]);
  assert.equal(all[0].context_tokens, null, "no reading stays null");
});

Deno.test("the list digest moves when a row that is not live is added or changed, and not on a quiet read", () => {
  using ledger = tempLedger();
  const quiet = listDigest(ledger);
  assert.equal(listDigest(ledger), quiet);
  ledger.applyEvent(
    hookEvent({ agent_session_id: "ended-1", cwd: "/home/u/p", event: "SessionEnd", source: "other" }),
  );
  const added = listDigest(ledger);
  assert.notEqual(added, quiet, "a row added");
  ledger.applyEvent(hookEvent({
    agent_session_id: "ended-1",
    cwd: "/home/u/p",
    event: "SessionEnd",
    source: "other",
    session_name: "named",
  }));
  assert.notEqual(listDigest(ledger), added, "a row renamed");
});

Deno.test("a session being derived carries no turns, project or closeout to the page, and its end moves the list digest", () => {
  using ledger = tempLedger();
  ledger.applyEvent(hookEvent({ agent_session_id: A, cwd: "/home/user/project" }));
  ledger.applyEvent(
    hookEvent({ agent_session_id: B, cwd: "/home/user/project", event: "SessionEnd", source: "other" }),
  );
  // what the columns hold before the whole transcript is read (a hook's count, an earlier read) is not its truth
  ledger[DB].write((db) =>
    db.prepare("UPDATE sessions SET turns = 4, project = 'p', closeout_state = 'closed'").run()
  );
  writeListed(ledger, { sessions: [listed(A), listed(B)], files: [], now: "2026-11-29T22:05:00.000Z" });
  const [row] = liveRows(ledger);
  assert.deepEqual(
    [row.agent_session_id, row.deriving, row.turns, row.project, row.closeout],
    [A, true, null, null, null],
  );
  assert.deepEqual(sessionCells(ledger, row.asm_id)?.turns, null, "the session page's cells say the same");
  const listedDigest = listDigest(ledger);
  // derived whole with the very same turns, project and closeout: only the mark goes, and the page must hear it
  ledger[DB].write((db) => db.prepare("UPDATE sessions SET derive_state = NULL").run());
  assert.notEqual(listDigest(ledger), listedDigest);
  const [derived] = liveRows(ledger);
  assert.deepEqual([derived.deriving, derived.turns, derived.project], [false, 4, "p"]);
});

/** A session as the import's first phase lists it from its transcript's two ends. */
function listed(sid: string): ListedSession {
  return {
    asm_id: asmIdOf("claude", sid),
    agent: "claude",
    agent_session_id: sid,
    parent_asm_id: null,
    source: "interactive",
    thread_source: null,
    cwd: "/home/user/project",
    transcript_path: `/nowhere/${sid}.jsonl`,
    started_at: "2026-11-29T22:00:00.000Z",
    last_seen: "2026-11-29T22:04:00.000Z",
    first_message: "hello",
    name: null,
    title: null,
    summary: null,
    model: null,
    context_tokens: null,
    context_window: null,
    agent_version: null,
    harness: false,
  };
}
