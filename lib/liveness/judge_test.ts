import assert from "node:assert/strict";
import { claudeAdapter } from "../agents/claude/mod.ts";
import type { ActivityReading, LiveCarrier, LiveReport } from "../agents/mod.ts";
import type { HookActivity } from "../ledger/mod.ts";
import {
  type ActivityFacts,
  attentionReason,
  EMPTY_MEMORY,
  judge,
  judgeActivity,
  judgeRun,
  type OpenRun,
  type PollFacts,
  type ProcTable,
  runKey,
  UNSURE_NO_PROCESS,
} from "./judge.ts";

const BOOT = "boot-now";
const T0 = "2026-11-29T22:00:00.000Z";
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

function run(overrides: Partial<OpenRun> = {}): OpenRun {
  return {
    asmId: "asm-1",
    agent: "claude",
    agentSessionId: "sid-1",
    pid: 100,
    procStart: 5000,
    bootId: BOOT,
    ...overrides,
  };
}

function table(entries: Record<number, number>): ProcTable {
  return new Map(Object.entries(entries).map(([pid, ticks]) => [Number(pid), { startTicks: ticks }]));
}

function carrier(procStart: number, ...sessionIds: string[]): LiveCarrier {
  return { procStart, sessionIds: new Set(sessionIds) };
}

Deno.test("a run is judged alive or gone from pid, start ticks, boot and the agent's own records", () => {
  const rows: [string, OpenRun, ProcTable, { bootId: string | null; carrier?: LiveCarrier }, string][] = [
    ["the recorded process, on this boot, is alive", run(), table({ 100: 5000 }), { bootId: BOOT }, "alive"],
    ["a pid with no process is gone", run(), table({}), { bootId: BOOT }, "process: no process 100"],
    [
      "a recycled pid (same pid, other start ticks) is gone, never resurrected",
      run(),
      table({ 100: 7777 }),
      { bootId: BOOT },
      "process: pid 100 is another process now (start ticks 7777, recorded 5000)",
    ],
    [
      "a run recorded on another boot is gone even if the pid and ticks match again",
      run({ bootId: "boot-before" }),
      table({ 100: 5000 }),
      { bootId: BOOT },
      "process: recorded on another boot (boot-before)",
    ],
    ["a run with no recorded boot is judged by pid and ticks", run({ bootId: null }), table({ 100: 5000 }), {
      bootId: BOOT,
    }, "alive"],
    [
      "a Codex daemon holding the thread's flock carries it",
      run({ agent: "codex" }),
      table({ 100: 5000 }),
      { bootId: BOOT, carrier: carrier(5000, "sid-1", "sid-2") },
      "alive",
    ],
    [
      "a Codex daemon not holding the thread's flock does not carry it",
      run({ agent: "codex" }),
      table({ 100: 5000 }),
      { bootId: BOOT, carrier: carrier(5000, "sid-2") },
      "records: the agent's own records say process 100 no longer carries this session",
    ],
    [
      "Claude's record naming another session after /clear disowns the old one",
      run(),
      table({ 100: 5000 }),
      { bootId: BOOT, carrier: carrier(5000, "sid-after-clear") },
      "records: the agent's own records say process 100 no longer carries this session",
    ],
    [
      "records about another process with the same pid say nothing about this run",
      run(),
      table({ 100: 5000 }),
      { bootId: BOOT, carrier: carrier(4999, "sid-other") },
      "alive",
    ],
  ];
  for (const [name, r, procs, evidence, want] of rows) {
    const verdict = judgeRun(r, procs, evidence);
    const got = verdict.alive ? "alive" : `${verdict.proof}: ${verdict.why}`;
    assert.equal(got, want, name);
  }
});

function own(state: ActivityReading["state"], raw: string, atS: number, reason: string | null = null) {
  return { state, raw, reason, at: at(atS) };
}

function hooks(
  turn: [string, number] | null,
  attention: [string, number, string | null] | null = null,
): HookActivity {
  return {
    turn: turn ? { event: turn[0], ts: at(turn[1]) } : null,
    attention: attention ? { event: attention[0], ts: at(attention[1]), kind: attention[2] } : null,
  };
}

function facts(overrides: Partial<ActivityFacts>): ActivityFacts {
  return {
    status: "live",
    own: null,
    hooks: null,
    transcriptAt: null,
    now: at(10),
    stalledAfterMs: 300_000,
    sawWorking: false,
    ...overrides,
  };
}

Deno.test("a live session's activity follows its newest evidence, the agent's own record first", () => {
  const rows: [string, ActivityFacts, string | null, string | null][] = [
    ["Claude's busy record is Working", facts({ own: own("working", "busy", 9) }), "working", null],
    ["Claude's idle record is Idle", facts({ own: own("idle", "idle", 9) }), "idle", null],
    ["Claude's shell record is Shell", facts({ own: own("shell", "shell", 9) }), "shell", null],
    [
      "Claude's waiting record is Waiting on you, with its reason",
      facts({ own: own("waiting", "waiting", 9, "permission") }),
      "waiting",
      "permission",
    ],
    [
      "a Codex task_started without task_complete is Working",
      facts({ own: own("working", "task_started", 9) }),
      "working",
      null,
    ],
    [
      "the agent's own record beats an older hook turn event",
      facts({ own: own("idle", "task_complete", 9), hooks: hooks(["UserPromptSubmit", 8]) }),
      "idle",
      null,
    ],
    [
      "Gemini's BeforeAgent (a prompt) without AfterAgent is Working",
      facts({ hooks: hooks(["UserPromptSubmit", 9]) }),
      "working",
      null,
    ],
    ["Gemini's AfterAgent (a stop) is Idle", facts({ hooks: hooks(["Stop", 9]) }), "idle", null],
    [
      "a session that only started is Idle at its prompt",
      facts({ hooks: hooks(["SessionStart", 9]) }),
      "idle",
      null,
    ],
    [
      "a permission request newer than everything else is Waiting on you: permission",
      facts({ hooks: hooks(["UserPromptSubmit", 5], ["Notification", 9, "ToolPermission"]) }),
      "waiting",
      "permission",
    ],
    [
      "a permission request the turn has moved past is not waiting any more",
      facts({ hooks: hooks(["Stop", 9], ["PermissionRequest", 5, null]) }),
      "idle",
      null,
    ],
    [
      "a transcript that moved after the permission request means the turn went on",
      facts({ hooks: hooks(["UserPromptSubmit", 5], ["PermissionRequest", 6, null]), transcriptAt: at(8) }),
      "working",
      null,
    ],
    [
      "Claude's idle-prompt notification after a stop reads Idle (its adapter says so), as every agent's turn end",
      facts({
        own: own("idle", "idle", 5),
        hooks: hooks(["Stop", 5], ["Notification", 9, "idle_prompt"]),
        attention: claudeAdapter.attention,
      }),
      "idle",
      null,
    ],
    [
      "an adapter's own word for a wait is read as the wait it names",
      facts({
        hooks: hooks(["Stop", 5], ["Notification", 9, "tool_confirm"]),
        attention: (_event, kind) => kind === "tool_confirm" ? "permission" : undefined,
      }),
      "waiting",
      "permission",
    ],
    [
      "a notification that asks nothing of the user changes nothing",
      facts({ hooks: hooks(["Stop", 5], ["Notification", 9, "auth_success"]) }),
      "idle",
      null,
    ],
    [
      "a failed turn reads failed with the agent's message, a turn end after it included",
      facts({ own: own("failed", "error", 6, "mock failure 400"), hooks: hooks(["Stop", 7]) }),
      "failed",
      "mock failure 400",
    ],
    [
      "a prompt newer than the failed turn is a new turn: Working",
      facts({ own: own("failed", "error", 6, "mock failure 400"), hooks: hooks(["UserPromptSubmit", 8]) }),
      "working",
      null,
    ],
    [
      "a prompt older than the failed turn was that turn's own",
      facts({ own: own("failed", "error", 6, "mock failure 400"), hooks: hooks(["UserPromptSubmit", 5]) }),
      "failed",
      "mock failure 400",
    ],
    ["a starting session with no evidence yet is Starting", facts({ status: "starting" }), "starting", null],
    ["a live session with no evidence at all has no reading", facts({}), null, null],
    [
      "an unknown status value degrades to the neutral word and names the value",
      facts({ own: own(null, "compacting", 9), hooks: hooks(["UserPromptSubmit", 9]) }),
      "unknown",
      'unknown status "compacting"',
    ],
  ];
  for (const [name, f, word, reason] of rows) {
    const got = judgeActivity(f).activity;
    assert.equal(got?.activity ?? null, word, name);
    assert.equal(got?.reason ?? null, reason, name);
  }
});

Deno.test("the freshness of an activity is its newest evidence, transcript included", () => {
  const got = judgeActivity(facts({
    own: own("working", "busy", 2),
    hooks: hooks(["UserPromptSubmit", 3]),
    transcriptAt: at(7),
  }));
  assert.deepEqual(got.activity, { activity: "working", reason: null, at: at(7) });
  assert.equal(judgeActivity(facts({ status: "starting" })).activity?.at, null);
});

Deno.test("Needs attention comes only after asm saw the session working and its evidence then stopped", () => {
  const stale = { now: at(400), stalledAfterMs: 300_000 };
  const rows: [string, ActivityFacts, string, boolean][] = [
    ["fresh work is Working and remembered", facts({ own: own("working", "busy", 9) }), "working", true],
    [
      "seen working, then silent past the threshold without a turn end: Needs attention",
      facts({ own: own("working", "busy", 9), sawWorking: true, ...stale }),
      "stalled",
      true,
    ],
    [
      "never seen working (an old dangling turn found at startup): Working, never Needs attention",
      facts({ own: own("working", "task_started", 9), ...stale }),
      "working",
      false,
    ],
    [
      "an old untouched transcript of an idle session stays Idle",
      facts({ hooks: hooks(["Stop", 9]), transcriptAt: at(9), sawWorking: true, ...stale }),
      "idle",
      false,
    ],
    [
      "a session waiting on the user for long is still Waiting, not Needs attention",
      facts({ own: own("waiting", "waiting", 9, "permission"), sawWorking: true, ...stale }),
      "waiting",
      false,
    ],
    [
      "new output clears Needs attention",
      facts({ own: own("working", "busy", 9), transcriptAt: at(395), sawWorking: true, ...stale }),
      "working",
      true,
    ],
  ];
  for (const [name, f, word, remembered] of rows) {
    const got = judgeActivity(f);
    assert.equal(got.activity?.activity, word, name);
    assert.equal(got.sawWorking, remembered, name);
  }
  assert.equal(
    judgeActivity(facts({ own: own("working", "busy", 9), sawWorking: true, ...stale })).activity?.reason,
    "no new evidence for 7 min and no turn end",
  );
});

Deno.test("attention reasons: permission and question; an idle prompt and others ask nothing", () => {
  const rows: [string, string | null, string | null][] = [
    ["PermissionRequest", null, "permission"],
    ["Notification", "permission_prompt", "permission"],
    ["Notification", "ToolPermission", "permission"],
    ["Notification", "elicitation_dialog", "question"],
    ["Notification", "agent_needs_input", "question"],
    ["Notification", "idle_prompt", null], // not a word asm's generic reading knows as a wait
    ["Notification", "auth_success", null],
    ["Notification", null, null],
    ["Stop", null, null],
  ];
  for (const [event, kind, want] of rows) {
    assert.equal(attentionReason(event, kind), want, `${event} ${kind}`);
  }
});

function report(
  sessions: [string, ActivityReading | null][],
  carriers: [number, LiveCarrier][] = [],
): LiveReport {
  return {
    sessions: new Map(
      sessions.map(([id, activity]) => [id, { agentSessionId: id, pid: 1, procStart: 1, activity }]),
    ),
    carriers: new Map(carriers),
  };
}

function poll(overrides: Partial<PollFacts>): PollFacts {
  return {
    now: at(10),
    bootId: BOOT,
    procs: table({ 100: 5000, 200: 6000 }),
    runs: [],
    sessions: [],
    evidence: new Map(),
    hooks: new Map(),
    stalledAfterMs: () => 300_000,
    memory: EMPTY_MEMORY,
    ...overrides,
  };
}

const session = (asmId: string, agentSessionId: string, agent = "claude") => ({
  asmId,
  agent,
  agentSessionId,
  status: "live" as const,
  transcriptAt: null,
});

Deno.test("a session whose every run is gone is closed and gets no activity; one run left keeps it live", () => {
  const j = judge(poll({
    runs: [
      run({ asmId: "a", pid: 100, procStart: 5000 }),
      run({ asmId: "a", pid: 300, procStart: 1 }),
      run({ asmId: "b", agentSessionId: "sid-b", pid: 400, procStart: 1 }),
    ],
    sessions: [session("a", "sid-1"), session("b", "sid-b")],
    hooks: new Map([["a", hooks(["Stop", 9])], ["b", hooks(["Stop", 9])]]),
  }));
  assert.deepEqual([...j.gone.keys()], ["a", "b"]);
  assert.deepEqual(j.gone.get("a")!.runs, [{ pid: 300, proc_start: 1 }]);
  assert.equal(j.activity.get("a")?.activity, "idle");
  assert.equal(j.activity.has("b"), false);
});

Deno.test("a stale registry entry left by SIGKILL cannot keep a dead run alive", () => {
  const j = judge(poll({
    procs: table({}),
    runs: [run()],
    sessions: [session("asm-1", "sid-1")],
    // what a careless reader of ~/.claude/sessions would believe; the judge only trusts the process table
    evidence: new Map([[
      "claude",
      report([["sid-1", own("idle", "idle", 9)]], [[100, carrier(5000, "sid-1")]]),
    ]]),
  }));
  assert.deepEqual(j.gone.get("asm-1")!.why, ["no process 100"]);
  assert.equal(j.activity.size, 0);
});

Deno.test("records that disown a run close it only when they say so on two polls in a row", () => {
  const facts1 = poll({
    runs: [run({ agent: "codex" })],
    sessions: [session("asm-1", "sid-1", "codex")],
    evidence: new Map([["codex", report([], [[100, carrier(5000)]])]]),
  });
  const first = judge(facts1);
  assert.equal(first.gone.size, 0, "one poll is not enough");
  assert.equal(first.memory.doubted.get(runKey({ asmId: "asm-1", pid: 100, procStart: 5000 })), 1);
  const second = judge({ ...facts1, memory: first.memory });
  assert.deepEqual(second.gone.get("asm-1")!.runs, [{ pid: 100, proc_start: 5000 }]);

  const recovered = judge({ ...facts1, evidence: new Map(), memory: first.memory });
  assert.equal(recovered.gone.size, 0);
  assert.equal(recovered.memory.doubted.size, 0, "a doubt not repeated is forgotten");
});

Deno.test("the poll remembers which sessions it saw working, and reports unknown values with their agent", () => {
  const first = judge(poll({
    runs: [run(), run({ asmId: "g", agent: "gemini", agentSessionId: "sid-g", pid: 200, procStart: 6000 })],
    sessions: [session("asm-1", "sid-1"), session("g", "sid-g", "gemini")],
    evidence: new Map([["claude", report([["sid-1", own(null, "dreaming", 9)]])], [
      "gemini",
      report([["sid-g", null]]),
    ]]),
    hooks: new Map([["g", hooks(["UserPromptSubmit", 9])]]),
  }));
  assert.equal(first.activity.get("g")?.activity, "working", "a Gemini child process working from its hooks");
  assert.deepEqual([...first.memory.sawWorking], ["g"]);
  assert.deepEqual(first.unknown, [{ agent: "claude", value: "dreaming" }]);
  assert.equal(first.activity.get("asm-1")?.activity, "unknown");

  const later = judge(poll({
    now: at(400),
    runs: [run({ asmId: "g", agent: "gemini", agentSessionId: "sid-g", pid: 200, procStart: 6000 })],
    sessions: [session("g", "sid-g", "gemini")],
    hooks: new Map([["g", hooks(["UserPromptSubmit", 9])]]),
    memory: first.memory,
  }));
  assert.equal(later.activity.get("g")?.activity, "stalled");
});

Deno.test("a killed session whose process is still running gets no activity word", () => {
  const j = judge(poll({ runs: [run()], sessions: [{ ...session("asm-1", "sid-1"), status: "killed" }] }));
  assert.equal(j.gone.size, 0);
  assert.equal(j.activity.size, 0);
});

Deno.test("how sure asm is of each live session's process: its runs, else the agent's own records, else unsure", () => {
  const rows: [string, Partial<PollFacts>, { unsure: string | null; adopt: boolean }][] = [
    [
      "a live run proves it",
      { runs: [run({ asmId: "s" })], procs: table({ 100: 5000 }) },
      { unsure: null, adopt: false },
    ],
    [
      "no run, and the agent's own records list it (verified by pid and start ticks): its process becomes the run",
      { evidence: new Map([["claude", report([["sid-1", own("idle", "idle", 9)]])]]) },
      { unsure: null, adopt: true },
    ],
    ["no run, and nothing of the agent's lists it: unsure, with the reason", {}, {
      unsure: UNSURE_NO_PROCESS,
      adopt: false,
    }],
    [
      "no run, and the agent's records list another session only: unsure",
      { evidence: new Map([["claude", report([["sid-other", own("idle", "idle", 9)]])]]) },
      { unsure: UNSURE_NO_PROCESS, adopt: false },
    ],
    [
      "a recent transcript (recency alone) proves nothing",
      { sessions: [{ ...session("s", "sid-1"), transcriptAt: at(9) }] },
      { unsure: UNSURE_NO_PROCESS, adopt: false },
    ],
  ];
  for (const [name, overrides, want] of rows) {
    const j = judge(poll({ sessions: [session("s", "sid-1")], ...overrides }));
    assert.equal(j.unsure.get("s"), want.unsure, name);
    assert.deepEqual(j.adopt, want.adopt ? [{ asmId: "s", pid: 1, procStart: 1 }] : [], name);
  }
  // a session whose every run is gone is lost, not unsure: it is not judged for doubt at all
  const gone = judge(
    poll({ runs: [run({ asmId: "s" })], procs: table({}), sessions: [session("s", "sid-1")] }),
  );
  assert.equal(gone.unsure.has("s"), false);
});
