import assert from "node:assert/strict";
import type { HookEvent } from "./event.ts";
import { hookEvent } from "./_test_utils.ts";
import {
  type LedgerInput,
  type LedgerState,
  type Status,
  transition,
  UNSEEN_END_REASON,
} from "./transition.ts";

const EMPTY: LedgerState = { session: null, runs: [] };

function t(ts: string): string {
  return `2026-11-29T22:${ts}.000Z`;
}

function hook(event: string, ts: string, extra: Partial<HookEvent> = {}): LedgerInput {
  return { kind: "hook", event: hookEvent({ event, ts: t(ts), source: null, ...extra }) };
}

function run(inputs: LedgerInput[], from: LedgerState = EMPTY): LedgerState {
  return inputs.reduce(transition, from);
}

const SKIPPED = "standing rules skipped: /work/p/.asm/rules.md is a link outside the session's folder";

function withStatus(status: Status, endedAt: string | null = null): LedgerState {
  const s = run([hook("SessionStart", "00:00", { source: "startup" })]);
  return {
    session: { ...s.session!, status, ended_at: endedAt, end_reason: endedAt ? "earlier" : null },
    runs: s.runs.map((r) => ({ ...r, ended_at: endedAt })),
  };
}

// One row per line of the spec's transition table (docs/runbook.md section 5).
const table: {
  name: string;
  from: LedgerState;
  inputs: LedgerInput[];
  status: Status;
  runs: number;
  open: number;
  /** the row's rules note afterwards, when the row is about it */
  rulesNote?: string | null;
}[] = [
  {
    name: "(none) + SessionStart -> live, row created, plus a run for (pid, proc_start)",
    from: EMPTY,
    inputs: [hook("SessionStart", "00:00", { source: "startup" })],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "(none) + a prompt with no row yet -> row created from what it carries, live",
    from: EMPTY,
    inputs: [hook("UserPromptSubmit", "00:05")],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "(none) + SessionEnd with no row yet -> row created, then the end applies: ended",
    from: EMPTY,
    inputs: [hook("SessionEnd", "00:09", { source: "other" })],
    status: "ended",
    runs: 1,
    open: 0,
  },
  {
    name: "starting + a start carrying its launch token -> live",
    from: withStatus("starting"),
    inputs: [hook("SessionStart", "00:01", { launch_token: "asmlt_abc" })],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "live + prompt / stop -> live",
    from: EMPTY,
    inputs: [hook("SessionStart", "00:00"), hook("UserPromptSubmit", "00:01"), hook("Stop", "00:02")],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "live + SessionEnd -> ended, run closed",
    from: EMPTY,
    inputs: [hook("SessionStart", "00:00"), hook("SessionEnd", "00:03", { source: "other" })],
    status: "ended",
    runs: 1,
    open: 0,
  },
  {
    name: "live + the poll finds no live process for any open run -> lost",
    from: EMPTY,
    inputs: [hook("SessionStart", "00:00"), {
      kind: "runs_gone",
      runs: [{ pid: 4242, proc_start: 51082 }],
      at: t("01:00"),
    }],
    status: "lost",
    runs: 1,
    open: 0,
  },
  {
    name: "live + END pressed -> killed (claimed before the kill)",
    from: EMPTY,
    inputs: [hook("SessionStart", "00:00"), { kind: "kill_claimed", at: t("01:00") }],
    status: "killed",
    runs: 1,
    open: 1,
  },
  {
    name: "killed + END failing after its claim -> the status it had before (the claim is released)",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      { kind: "kill_claimed", at: t("01:00") },
      { kind: "kill_released", previous: { status: "live", ended_at: null, end_reason: null } },
    ],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "live (revived by a newer start meanwhile) + a late release -> unchanged",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      {
        kind: "kill_released",
        previous: { status: "lost", ended_at: t("00:30"), end_reason: "process gone" },
      },
    ],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "live with no run + the agent's own records naming its process -> live, with that run",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00", { agent_pid: null, agent_proc_start: null }),
      { kind: "run_evidenced", run: { pid: 777, proc_start: 9, boot_id: "b" }, at: t("00:05") },
    ],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "ended + the agent's own records naming a process -> unchanged (only a live session gets a run)",
    from: withStatus("ended", t("00:30")),
    inputs: [{ kind: "run_evidenced", run: { pid: 777, proc_start: 9, boot_id: "b" }, at: t("00:40") }],
    status: "ended",
    runs: 1,
    open: 0,
  },
  {
    name: "lost + a RESUME launch's process holding its thread by the agent's records -> live again, new run",
    from: withStatus("lost", t("00:30")),
    inputs: [{
      kind: "resume_evidenced",
      run: { pid: 777, proc_start: 9, boot_id: "b" },
      launch_token: "asmlt_r",
      at: t("00:40"),
    }],
    status: "live",
    runs: 2,
    open: 1,
  },
  {
    name: "killed + resume evidence older than the kill -> unchanged (not a resume of this end)",
    from: withStatus("killed", t("00:30")),
    inputs: [{
      kind: "resume_evidenced",
      run: { pid: 777, proc_start: 9, boot_id: "b" },
      launch_token: "asmlt_r",
      at: t("00:20"),
    }],
    status: "killed",
    runs: 1,
    open: 0,
  },
  {
    name: "live + resume evidence -> unchanged (someone else drives it)",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      {
        kind: "resume_evidenced",
        run: { pid: 777, proc_start: 9, boot_id: "b" },
        launch_token: "asmlt_r",
        at: t("00:05"),
      },
    ],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "killed + a later poll finding the process gone -> still killed",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      { kind: "kill_claimed", at: t("01:00") },
      { kind: "runs_gone", runs: [{ pid: 4242, proc_start: 51082 }], at: t("01:05") },
    ],
    status: "killed",
    runs: 1,
    open: 0,
  },
  {
    name: "killed + the agent's own SessionEnd -> still killed, run closed",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      { kind: "kill_claimed", at: t("01:00") },
      hook("SessionEnd", "01:01", { source: "other" }),
    ],
    status: "killed",
    runs: 1,
    open: 0,
  },
  {
    name: "ended + a start whose source is a resume -> live again, new run",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      hook("SessionEnd", "00:10", { source: "other" }),
      hook("SessionStart", "05:00", { source: "resume", agent_pid: 5000, agent_proc_start: 90000 }),
    ],
    status: "live",
    runs: 2,
    open: 1,
  },
  {
    name: "lost + a resume -> live again, new run",
    from: withStatus("lost", t("01:00")),
    inputs: [hook("SessionStart", "05:00", { source: "resume", agent_pid: 5000, agent_proc_start: 90000 })],
    status: "live",
    runs: 2,
    open: 1,
  },
  {
    name: "killed + a resume -> live again, new run",
    from: withStatus("killed", t("01:00")),
    inputs: [hook("SessionStart", "05:00", { source: "resume", agent_pid: 5000, agent_proc_start: 90000 })],
    status: "live",
    runs: 2,
    open: 1,
  },
  {
    name: "lost + a stop that arrives after all (the poll was wrong) -> live, its run reopened",
    from: withStatus("lost", t("01:00")),
    inputs: [hook("Stop", "01:30")],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "lost + a stop written before the session was declared lost -> still lost",
    from: withStatus("lost", t("01:00")),
    inputs: [hook("Stop", "00:30")],
    status: "lost",
    runs: 1,
    open: 0,
  },
  {
    name: "killed + a stop arriving later -> still killed",
    from: withStatus("killed", t("01:00")),
    inputs: [hook("Stop", "01:30")],
    status: "killed",
    runs: 1,
    open: 0,
  },
  {
    name: "a stop that arrives before its start still makes one row with one run",
    from: EMPTY,
    inputs: [hook("Stop", "00:05"), hook("SessionStart", "00:00", { source: "startup" })],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "an end that arrives before its start leaves the session ended",
    from: EMPTY,
    inputs: [
      hook("SessionEnd", "00:09", { source: "other" }),
      hook("SessionStart", "00:00", { source: "startup" }),
    ],
    status: "ended",
    runs: 1,
    open: 0,
  },
  {
    name: "a SessionEnd repeated three times (Gemini) is one end",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      hook("SessionEnd", "00:10", { source: "exit" }),
      hook("SessionEnd", "00:11", { source: "exit" }),
      hook("SessionEnd", "00:12", { source: "exit" }),
    ],
    status: "ended",
    runs: 1,
    open: 0,
  },
  {
    name: "an end of one of two concurrent runs keeps the session live",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      hook("SessionStart", "00:01", { source: "resume", agent_pid: 5000, agent_proc_start: 90000 }),
      hook("SessionEnd", "00:10", { source: "other" }),
    ],
    status: "live",
    runs: 2,
    open: 1,
  },
  {
    name: "a poll finding one of two runs gone keeps the session live",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      hook("SessionStart", "00:01", { source: "resume", agent_pid: 5000, agent_proc_start: 90000 }),
      { kind: "runs_gone", runs: [{ pid: 4242, proc_start: 51082 }], at: t("01:00") },
    ],
    status: "live",
    runs: 2,
    open: 1,
  },
  {
    name: "a recycled pid (same pid, other start ticks) is another run, not the old one",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00"),
      { kind: "runs_gone", runs: [{ pid: 4242, proc_start: 999 }], at: t("01:00") },
    ],
    status: "live",
    runs: 1,
    open: 1,
  },
  {
    name: "lost + the agent's SessionEnd after all -> ended",
    from: withStatus("lost", t("01:00")),
    inputs: [hook("SessionEnd", "01:10", { source: "other" })],
    status: "ended",
    runs: 1,
    open: 0,
  },
  {
    name: "(none) + a SessionStart that skipped a rules file -> live, the row notes why",
    from: EMPTY,
    inputs: [hook("SessionStart", "00:00", { source: "startup", rules_skipped: SKIPPED })],
    status: "live",
    runs: 1,
    open: 1,
    rulesNote: SKIPPED,
  },
  {
    name: "live with a rules note + prompt / stop / end -> the note stays (it is about the start)",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00", { rules_skipped: SKIPPED }),
      hook("UserPromptSubmit", "00:01"),
      hook("SessionEnd", "00:02", { source: "other" }),
    ],
    status: "ended",
    runs: 1,
    open: 0,
    rulesNote: SKIPPED,
  },
  {
    name: "ended with a rules note + a resume whose rules all applied -> live, the note cleared",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00", { rules_skipped: SKIPPED }),
      hook("SessionEnd", "00:10", { source: "other" }),
      hook("SessionStart", "05:00", { source: "resume", agent_pid: 5000, agent_proc_start: 90000 }),
    ],
    status: "live",
    runs: 2,
    open: 1,
    rulesNote: null,
  },
  {
    name: "live + a compact start that skipped a rules file -> live, the note set",
    from: EMPTY,
    inputs: [
      hook("SessionStart", "00:00", { source: "startup" }),
      hook("SessionStart", "00:30", { source: "compact", rules_skipped: SKIPPED }),
    ],
    status: "live",
    runs: 1,
    open: 1,
    rulesNote: SKIPPED,
  },
];

for (const row of table) {
  Deno.test(`transition: ${row.name}`, () => {
    const out = run(row.inputs, row.from);
    assert.equal(out.session?.status, row.status);
    assert.equal(out.runs.length, row.runs);
    assert.equal(out.runs.filter((r) => r.ended_at === null).length, row.open);
    if (row.rulesNote !== undefined) assert.equal(out.session?.rules_note, row.rulesNote);
  });
}

Deno.test("a stop before its start keeps the start's time as started_at and the stop's as last_seen", () => {
  const out = run([hook("Stop", "00:05"), hook("SessionStart", "00:00", { source: "startup" })]);
  assert.equal(out.session?.started_at, t("00:00"));
  assert.equal(out.session?.last_seen, t("00:05"));
  assert.equal(out.runs[0].start_source, "startup");
});

Deno.test("a repeated SessionEnd keeps the first end time and reason", () => {
  const out = run([
    hook("SessionStart", "00:00"),
    hook("SessionEnd", "00:10", { source: "exit" }),
    hook("SessionEnd", "00:12", { source: "other" }),
  ]);
  assert.equal(out.session?.ended_at, t("00:10"));
  assert.equal(out.session?.end_reason, "exit");
});

Deno.test("prompts are counted once per prompt event", () => {
  const out = run([
    hook("SessionStart", "00:00"),
    hook("UserPromptSubmit", "00:01"),
    hook("UserPromptSubmit", "00:02"),
  ]);
  assert.equal(out.session?.prompts, 2);
});

Deno.test("a run from the agent's records is started when the poll saw it, from evidence, and kept once", () => {
  const evidenced: LedgerInput = {
    kind: "run_evidenced",
    run: { pid: 777, proc_start: 9, boot_id: "b" },
    at: t("00:05"),
  };
  const s = run([
    hook("SessionStart", "00:00", { agent_pid: null, agent_proc_start: null }),
    evidenced,
    evidenced,
  ]);
  assert.equal(s.runs.length, 1, "the same process is one run, however many polls name it");
  assert.deepEqual(
    [s.runs[0].pid, s.runs[0].proc_start, s.runs[0].boot_id, s.runs[0].started_at, s.runs[0].start_source],
    [777, 9, "b", t("00:05"), "evidence"],
  );
});

Deno.test("a released kill claim gives back the end the session had", () => {
  const lost = withStatus("lost", t("00:30"));
  const s = run([
    { kind: "kill_claimed", at: t("01:00") },
    { kind: "kill_released", previous: { status: "lost", ended_at: t("00:30"), end_reason: "earlier" } },
  ], lost);
  assert.deepEqual([s.session!.status, s.session!.ended_at, s.session!.end_reason], [
    "lost",
    t("00:30"),
    "earlier",
  ]);
});

Deno.test("a kill claim records when and why, and a resume clears the end", () => {
  const killed = run([hook("SessionStart", "00:00"), {
    kind: "kill_claimed",
    at: t("01:00"),
    reason: "END pressed",
  }]);
  assert.equal(killed.session?.ended_at, t("01:00"));
  assert.equal(killed.session?.end_reason, "END pressed");
  const resumed = transition(
    killed,
    hook("SessionStart", "02:00", { source: "resume", agent_pid: 7, agent_proc_start: 8 }),
  );
  assert.equal(resumed.session?.ended_at, null);
  assert.equal(resumed.session?.end_reason, null);
});

Deno.test("a cleared context records the session it replaced", () => {
  const out = transition(EMPTY, {
    kind: "hook",
    event: hookEvent({ event: "SessionStart", source: "clear", agent_session_id: "new-id" }),
    clearedFrom: "old-asm-id",
  });
  assert.equal(out.session?.cleared_from_asm_id, "old-asm-id");
});

Deno.test("nested and shared flags stick once any event carried them", () => {
  const out = run([hook("SessionStart", "00:00", { nested: true, pid_shared: true }), hook("Stop", "00:01")]);
  assert.equal(out.session?.nested, true);
  assert.equal(out.session?.pid_shared, true);
});

Deno.test("transition does not mutate the state it is given", () => {
  const before = run([hook("SessionStart", "00:00")]);
  const frozen = structuredClone(before);
  const after = transition(before, hook("SessionEnd", "00:10", { source: "other" }));
  assert.deepEqual(before, frozen);
  assert.notEqual(after.runs[0], before.runs[0]);
});

Deno.test("runs_gone and kill_claimed on an unknown session change nothing", () => {
  assert.deepEqual(transition(EMPTY, { kind: "runs_gone", runs: [], at: t("00:00") }), EMPTY);
  assert.deepEqual(transition(EMPTY, { kind: "kill_claimed", at: t("00:00") }), EMPTY);
});

Deno.test("with no proven agent, the judged process carries the run, and its death makes the session lost", () => {
  const judged = { agent_pid: null, agent_proc_start: null, judged_pid: 4242, judged_proc_start: 777 };
  const started = run([hook("SessionStart", "00:00", { source: "startup", ...judged })]);
  assert.deepEqual(started.runs.map((r) => [r.pid, r.proc_start, r.ended_at]), [[4242, 777, null]]);
  const gone = run([{ kind: "runs_gone", runs: [{ pid: 4242, proc_start: 777 }], at: t("00:30") }], started);
  assert.equal(gone.session!.status, "lost");
  assert.equal(gone.session!.end_reason, "process gone");
});

Deno.test("a proven agent process wins over the judged one", () => {
  const s = run([
    hook("SessionStart", "00:00", {
      agent_pid: 100,
      agent_proc_start: 5,
      judged_pid: 200,
      judged_proc_start: 6,
    }),
  ]);
  assert.deepEqual(s.runs.map((r) => r.pid), [100]);
});

Deno.test("an end names no judged process (an orphaned hook's parent is not the agent): it closes every open run", () => {
  const judged = { agent_pid: null, agent_proc_start: null };
  const s = run([
    hook("SessionStart", "00:00", { ...judged, judged_pid: 4242, judged_proc_start: 777 }),
    hook("SessionEnd", "00:10", { ...judged, judged_pid: 1, judged_proc_start: 1, source: "exit" }),
  ]);
  assert.deepEqual(s.runs.map((r) => [r.pid, r.ended_at]), [[4242, t("00:10")]]);
  assert.equal(s.session!.status, "ended");
});

Deno.test("END of a session with no open run records it lost, and its next event revives it", () => {
  const none = { agent_pid: null, agent_proc_start: null, judged_pid: null, judged_proc_start: null };
  const started = run([hook("SessionStart", "00:00", { source: "startup", ...none })]);
  assert.equal(started.runs.length, 0);
  const ended = run([{ kind: "ended_unseen", at: t("00:20") }], started);
  assert.equal(ended.session!.status, "lost");
  assert.equal(ended.session!.end_reason, UNSEEN_END_REASON);
  assert.equal(ended.session!.ended_at, t("00:20"));
  const revived = run([hook("UserPromptSubmit", "00:30", none)], ended);
  assert.equal(revived.session!.status, "live");
  assert.equal(revived.session!.ended_at, null);
});

Deno.test("END without a process leaves a session with an open run as it is", () => {
  const started = run([hook("SessionStart", "00:00", { source: "startup" })]);
  assert.equal(started.runs.filter((r) => r.ended_at === null).length, 1);
  const after = run([{ kind: "ended_unseen", at: t("00:20") }], started);
  assert.equal(after.session!.status, "live");
});

Deno.test("a judged process never joins a session with an open run, and pid 1 is never judged", () => {
  const proven = run([hook("SessionStart", "00:00", { agent_pid: 100, agent_proc_start: 5 })]);
  const unproven = { agent_pid: null, agent_proc_start: null };
  const after = run([hook("Stop", "00:05", { ...unproven, judged_pid: 900, judged_proc_start: 9 })], proven);
  assert.deepEqual(after.runs.map((r) => r.pid), [100], "no run beside the proven one");
  const gone = run([{ kind: "runs_gone", runs: [{ pid: 100, proc_start: 5 }], at: t("00:10") }], after);
  assert.equal(gone.session!.status, "lost", "the agent's death still ends it");
  const init = run([hook("SessionStart", "00:00", { ...unproven, judged_pid: 1, judged_proc_start: 0 })]);
  assert.equal(init.runs.length, 0);
});
