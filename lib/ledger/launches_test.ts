import assert from "node:assert/strict";
import { join } from "node:path";
import { Ledger, LedgerError } from "./ledger.ts";
import { asmIdOf } from "./identity.ts";
import {
  adoptThread,
  expireLaunches,
  launchesOf,
  launchesSeenInEvents,
  type LaunchRequested,
  launchRow,
  matchLaunch,
  pendingLaunches,
  recordLaunch,
  recordLaunchError,
  recordWindow,
} from "./launches.ts";
import { hookEvent } from "./_test_utils.ts";

function tempLedger() {
  const dir = Deno.makeTempDirSync({ prefix: "asm-launches-test-" });
  const ledger = Ledger.open(join(dir, "ledger.sqlite"));
  return {
    ledger,
    [Symbol.dispose]() {
      ledger.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

function requested(over: Partial<LaunchRequested> = {}): LaunchRequested {
  return {
    token: "asmlt_one",
    agent: "claude",
    kind: "launch",
    cwd: "/home/user/project",
    name: null,
    model: null,
    script_path: "/a/launches/asmlt_one.sh",
    prompt_path: "/a/launches/asmlt_one.prompt",
    requested_at: "2026-11-29T22:00:00.000Z",
    continues_asm_id: null,
    resumes_asm_id: null,
    waiting_reason: null,
    host: "tmux",
    ...over,
  };
}

Deno.test("a requested launch is pending until a hook event carries its token", () => {
  using t = tempLedger();
  recordLaunch(t.ledger, requested());
  recordWindow(t.ledger, "asmlt_one", {
    window_id: "@3",
    pane_id: "%4",
    pane_pid: 900,
    pane_proc_start: 77,
    boot_id: "b",
  });
  assert.deepEqual(pendingLaunches(t.ledger).map((l) => [l.token, l.window_id, l.pane_pid]), [[
    "asmlt_one",
    "@3",
    900,
  ]]);
  assert.deepEqual(launchesSeenInEvents(t.ledger), []);
  t.ledger.applyEvent(hookEvent({ launch_token: "asmlt_one", agent_session_id: "s1" }));
  const seen = launchesSeenInEvents(t.ledger);
  assert.deepEqual(seen, [{ token: "asmlt_one", asm_id: asmIdOf("claude", "s1") }]);
  assert.equal(matchLaunch(t.ledger, "asmlt_one", seen[0].asm_id, "token", "2026-11-29T22:00:02.000Z"), true);
  assert.equal(
    matchLaunch(t.ledger, "asmlt_one", "other", "ancestry", "2026-11-29T22:00:03.000Z"),
    false,
    "first match stands",
  );
  const row = launchRow(t.ledger, "asmlt_one")!;
  assert.deepEqual([row.matched_asm_id, row.matched_by, row.matched_at], [
    seen[0].asm_id,
    "token",
    "2026-11-29T22:00:02.000Z",
  ]);
  assert.deepEqual(pendingLaunches(t.ledger), []);
  assert.deepEqual(launchesOf(t.ledger, seen[0].asm_id).map((l) => l.token), ["asmlt_one"]);
});

Deno.test("a resume's token is found on its new run even though the session keeps its first launch's token", () => {
  using t = tempLedger();
  t.ledger.applyEvent(
    hookEvent({ launch_token: "asmlt_first", agent_session_id: "s1", ts: "2026-11-29T21:00:00.000Z" }),
  );
  t.ledger.applyEvent(
    hookEvent({
      event: "SessionEnd",
      source: "other",
      agent_session_id: "s1",
      ts: "2026-11-29T21:10:00.000Z",
    }),
  );
  recordLaunch(
    t.ledger,
    requested({ token: "asmlt_again", kind: "resume", resumes_asm_id: asmIdOf("claude", "s1") }),
  );
  t.ledger.applyEvent(hookEvent({
    launch_token: "asmlt_again",
    agent_session_id: "s1",
    source: "resume",
    agent_pid: 5000,
    ts: "2026-11-29T22:00:01.000Z",
  }));
  assert.equal(t.ledger.session(asmIdOf("claude", "s1"))?.launch_token, "asmlt_first");
  assert.deepEqual(launchesSeenInEvents(t.ledger), [{
    token: "asmlt_again",
    asm_id: asmIdOf("claude", "s1"),
  }]);
});

Deno.test("a continue-with links the new session to its predecessor when it is matched", () => {
  using t = tempLedger();
  const before = asmIdOf("codex", "old");
  recordLaunch(t.ledger, requested({ token: "asmlt_c", kind: "continue", continues_asm_id: before }));
  t.ledger.applyEvent(hookEvent({ launch_token: "asmlt_c", agent_session_id: "new" }));
  matchLaunch(t.ledger, "asmlt_c", asmIdOf("claude", "new"), "token", "2026-11-29T22:00:02.000Z");
  const linked = t.ledger.query(
    "SELECT continues_asm_id FROM sessions WHERE asm_id = ?",
    asmIdOf("claude", "new"),
  );
  assert.equal(linked[0].continues_asm_id, before);
});

Deno.test("launches unmatched after the cutoff expire and stay as evidence; a late token still matches", () => {
  using t = tempLedger();
  recordLaunch(t.ledger, requested({ token: "asmlt_old", requested_at: "2026-11-29T22:00:00.000Z" }));
  recordLaunch(t.ledger, requested({ token: "asmlt_new", requested_at: "2026-11-29T22:01:30.000Z" }));
  assert.deepEqual(expireLaunches(t.ledger, "2026-11-29T22:00:10.000Z", "2026-11-29T22:02:10.000Z"), [
    "asmlt_old",
  ]);
  const old = launchRow(t.ledger, "asmlt_old")!;
  assert.deepEqual([old.expired, old.expired_at, old.matched_asm_id], [
    true,
    "2026-11-29T22:02:10.000Z",
    null,
  ]);
  assert.deepEqual(pendingLaunches(t.ledger).map((l) => l.token), ["asmlt_new"]);
  t.ledger.applyEvent(hookEvent({ launch_token: "asmlt_old", agent_session_id: "late" }));
  assert.deepEqual(launchesSeenInEvents(t.ledger).map((l) => l.token), ["asmlt_old"]);
});

Deno.test("a launch whose window failed to open is over at once and says why", () => {
  using t = tempLedger();
  recordLaunch(t.ledger, requested());
  recordLaunchError(t.ledger, "asmlt_one", "tmux is not installed", "2026-11-29T22:00:01.000Z");
  const row = launchRow(t.ledger, "asmlt_one")!;
  assert.deepEqual([row.error, row.expired], ["tmux is not installed", true]);
  assert.deepEqual(pendingLaunches(t.ledger), []);
});

Deno.test("adoption makes the live row a start would have made, once, and never over an existing row", () => {
  using t = tempLedger();
  recordLaunch(t.ledger, requested({ token: "asmlt_a", agent: "codex" }));
  const thread = {
    token: "asmlt_a",
    agent: "codex",
    agentSessionId: "t-1",
    cwd: "/home/user/project",
    pid: 4321,
    procStart: 99,
    bootId: "b",
    harness: false,
    at: "2026-11-29T22:00:05.000Z",
  };
  assert.equal(adoptThread(t.ledger, thread), true);
  const id = asmIdOf("codex", "t-1");
  const row = t.ledger.session(id)!;
  assert.deepEqual([row.status, row.launch_token, row.cwd], ["live", "asmlt_a", "/home/user/project"]);
  assert.deepEqual(t.ledger.runs(id).map((r) => [r.pid, r.proc_start, r.ended_at]), [[4321, 99, null]]);
  assert.equal(launchRow(t.ledger, "asmlt_a")?.matched_by, "adoption");
  assert.equal(adoptThread(t.ledger, { ...thread, token: "asmlt_b" }), false, "the row exists now");
  assert.equal(t.ledger.runs(id).length, 1);
});

Deno.test("the launch door refuses a process out of range: a pane pid tmux gave, an adopted thread's process", () => {
  using t = tempLedger();
  recordLaunch(t.ledger, requested());
  const window = { window_id: "@3", pane_id: "%4", pane_pid: 900, pane_proc_start: 77, boot_id: "b" };
  for (
    const bad of [{ pane_pid: 2 ** 62 }, { pane_pid: 0 }, { pane_proc_start: -1 }, { boot_id: "../etc" }]
  ) {
    assert.throws(
      () => recordWindow(t.ledger, "asmlt_one", { ...window, ...bad }),
      LedgerError,
      JSON.stringify(bad),
    );
  }
  assert.equal(launchRow(t.ledger, "asmlt_one")?.pane_pid, null, "nothing of them was written");
  const thread = {
    token: "asmlt_one",
    agent: "claude",
    agentSessionId: "s-adopt",
    cwd: "/home/user/project",
    pid: 2 ** 62,
    procStart: 10,
    bootId: "b",
    harness: false,
    at: "2026-11-29T22:00:12.000Z",
  };
  assert.throws(() => adoptThread(t.ledger, thread), LedgerError);
  assert.equal(t.ledger.session(asmIdOf("claude", "s-adopt")), null);
});
