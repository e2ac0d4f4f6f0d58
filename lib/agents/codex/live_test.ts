import assert from "node:assert/strict";
import { join } from "node:path";
import { identityOf, LINUX_PROC, type ProcInfo, readProc } from "../../procs/mod.ts";
import type { AgentConfig } from "../protocol.ts";
import { builtinAgent, tempHomes, writeFile } from "../_test_utils.ts";
import {
  codexLive,
  codexLiveFrom,
  findRollout,
  parseFlocks,
  readRolloutActivity,
  rolloutActivity,
  rolloutTurn,
  threadLocksDir,
} from "./live.ts";

// rollout lines as Codex 0.169 wrote them (fixtures/codex/rollouts/tui-chat-plus-tool-call.rollout.jsonl)
const TASK_COMPLETE =
  '{"timestamp":"2026-11-29T22:13:57.082Z","ordinal":13,"type":"event_msg","payload":{"type":"task_complete",' +
  '"turn_id":"01a2295f-3969-7230-9853-fae411b1999c","last_agent_message":"Mock reply #6 to: hello from tmux",' +
  '"started_at":1795990436,"completed_at":1795990437,"duration_ms":875}}';
const TASK_STARTED =
  '{"timestamp":"2026-11-29T22:14:08.224Z","ordinal":15,"type":"event_msg","payload":{"type":"task_started",' +
  '"turn_attribution":{"turn_id":"01a2295f-6848-7362-8a13-db7d9f7cac2b","turn_trigger":"user"},' +
  '"started_at":1795990448,"model_context_window":258400}}';
const USER_MESSAGE =
  '{"timestamp":"2026-11-29T22:14:08.296Z","ordinal":18,"type":"event_msg","payload":{"type":"item_completed",' +
  '"item":{"type":"UserMessage","content":[{"type":"text","text":"now RUN_LS please"}]}}}';
const APPROVAL =
  '{"timestamp":"2026-11-29T22:14:09.000Z","ordinal":19,"type":"event_msg","payload":{"type":"exec_approval_request"}}';
const MTIME = "2026-11-29T22:14:09.500Z";

Deno.test("a rollout's last turn marker says whether the thread is working", () => {
  const rows: [string, string[], string | null, string | null][] = [
    ["a finished turn is idle", [TASK_STARTED, USER_MESSAGE, TASK_COMPLETE], "idle", null],
    [
      "task_started without task_complete is working (a later finished turn does not hide a newer start)",
      [TASK_COMPLETE, TASK_STARTED, USER_MESSAGE],
      "working",
      null,
    ],
    [
      "an approval request that is the last line is waiting",
      [TASK_STARTED, APPROVAL],
      "waiting",
      "permission",
    ],
    [
      "an approval request the turn went past is working",
      [TASK_STARTED, APPROVAL, USER_MESSAGE],
      "working",
      null,
    ],
    ["a tail with no marker says nothing", [USER_MESSAGE], null, null],
  ];
  for (const [name, lines, state, reason] of rows) {
    // a tail starts mid-line: the cut first line must be skipped, not fail
    const tail = `ayload":{"type":"task_complete"}}\n${lines.join("\n")}\n`;
    const got = rolloutActivity(tail, MTIME);
    assert.equal(got?.state ?? null, state, name);
    assert.equal(got?.reason ?? null, reason, name);
    if (got) assert.equal(got.at, MTIME, "freshness is the rollout's mtime");
  }
});

/** A rollout Codex 0.169 wrote against a fake (its turn's event lines and the prompt kept). */
function capturedRollout(name: string): string {
  return Deno.readTextFileSync(
    join(import.meta.dirname!, "../../../verify/fixtures/turn_trouble/codex", name),
  );
}

Deno.test("a turn Codex gave up on reads failed with the error message it wrote; a turn it recovered reads idle", () => {
  const rows: [string, string, string, string | null][] = [
    [
      "a 400 answer (not retried)",
      "failed-400.rollout.jsonl",
      "failed",
      '{"error":{"message":"mock failure 400","type":"api_error"}}',
    ],
    [
      "429 past the retry limit",
      "failed-429-retry-limit.rollout.jsonl",
      "failed",
      "exceeded retry limit, last status: 429 Too Many Requests, request id: req_mock_1796410800667",
    ],
    ["503 three times, then answered", "recovered-503x3.rollout.jsonl", "idle", null],
  ];
  for (const [name, file, state, reason] of rows) {
    const got = rolloutActivity(capturedRollout(file), MTIME);
    assert.equal(got?.state, state, name);
    assert.equal(got?.reason, reason, name);
  }
  // a turn in progress names its turn: the log's retry rows are matched by it
  const started = capturedRollout("recovered-503x3.rollout.jsonl").split("\n").filter((l) =>
    !l.includes('"task_complete"') && !l.includes('"AgentMessage"') && !l.includes('"token_count"')
  ).join("\n");
  assert.deepEqual(rolloutTurn(started, MTIME), {
    reading: { state: "working", raw: "task_started", reason: null, at: MTIME },
    turnId: "01a2426d-0ebf-7872-b89a-784cb52f9e02",
  });
});

Deno.test("/proc/locks FLOCK holders are read by inode; POSIX locks and waiters are not holders", () => {
  const text = [
    "1: POSIX  ADVISORY  WRITE 14690 fe:00:2245185 1073741824 1073742335",
    "3: FLOCK  ADVISORY  WRITE 14604 fe:00:2245262 0 EOF",
    "3: -> FLOCK  ADVISORY  WRITE 15000 fe:00:2245262 0 EOF",
    "12: FLOCK  ADVISORY  WRITE 15148 103:02:77 0 EOF",
  ].join("\n");
  assert.deepEqual([...parseFlocks(text)], [[2245262, 14604], [77, 15148]]);
});

function proc(pid: number, argv: string[], exe = "/x/@openai/codex-linux-x64/vendor/x/bin/codex"): ProcInfo {
  return { pid, ppid: 1, startTicks: pid * 10, exe, argv };
}

const isCodex = (p: ProcInfo) => p.exe!.endsWith("/bin/codex");
const ref = (id: string, pid: number) => ({
  agentSessionId: id,
  transcriptPath: null,
  runs: [{ pid, procStart: pid * 10 }],
});

Deno.test("a thread is live while a Codex process holds its lock, and a daemon lists exactly the threads it holds", () => {
  const daemon = proc(500, ["codex", "app-server", "--listen", "unix://", "--managed-daemon"]);
  const tui = proc(600, ["codex", "--no-daemon"]);
  const other = proc(700, ["flock"], "/usr/bin/flock");
  const procs = new Map([[500, daemon], [600, tui], [700, other]]);
  const open = [
    ref("held-by-daemon", 500),
    ref("let-go-by-daemon", 500),
    ref("tui-thread", 600),
    ref("foreign", 700),
  ];
  const report = codexLiveFrom(
    open,
    {
      lockInodes: new Map([["held-by-daemon", 1], ["let-go-by-daemon", 2], ["tui-thread", 3], [
        "foreign",
        4,
      ]]),
      flocks: new Map([[1, 500], [3, 600], [4, 700]]),
      activity: new Map([["held-by-daemon", {
        state: "working",
        raw: "task_started",
        reason: null,
        at: MTIME,
      }]]),
    },
    procs,
    isCodex,
  );
  assert.deepEqual([...report.sessions.keys()], ["held-by-daemon", "tui-thread"]);
  assert.equal(report.sessions.get("held-by-daemon")!.activity!.state, "working");
  assert.equal(report.sessions.get("held-by-daemon")!.procStart, 5000);
  assert.deepEqual([...report.carriers.get(500)!.sessionIds], ["held-by-daemon"]);
  assert.deepEqual([...report.carriers.get(600)!.sessionIds], ["tui-thread"]);
  assert.equal(report.carriers.has(700), false, "a lock held by something that is not Codex proves nothing");
});

Deno.test("a thread with no lock file at all is never disowned, and a TUI holding no asked lock proves nothing", () => {
  const daemon = proc(500, ["codex", "app-server"]);
  const tui = proc(600, ["codex", "--no-daemon"]);
  const report = codexLiveFrom(
    [ref("no-lock-file", 500), ref("tui-between-threads", 600)],
    { lockInodes: new Map([["tui-between-threads", 9]]), flocks: new Map(), activity: new Map() },
    new Map([[500, daemon], [600, tui]]),
    isCodex,
  );
  assert.deepEqual([...report.carriers.get(500)!.sessionIds], ["no-lock-file"]);
  assert.equal(report.carriers.has(600), false);
  assert.equal(report.sessions.size, 0);
});

Deno.test("the rollout is found from the hooks' path, else from the thread id's UUIDv7 day", () => {
  using homes = tempHomes();
  const id = "01a2295f-0ad6-7852-afe2-883c2e6eae7a";
  const path = join(
    homes.codexHome,
    "sessions",
    "2026",
    "11",
    "29",
    `rollout-2026-11-29T22-13-44-${id}.jsonl`,
  );
  writeFile(path, `${TASK_STARTED}\n${USER_MESSAGE}\n`);
  assert.equal(findRollout(id, homes.env, null), path);
  assert.equal(findRollout(id, homes.env, "/known/path.jsonl"), "/known/path.jsonl");
  assert.equal(findRollout("not-a-uuid-v7", homes.env, null), null);
  assert.equal(readRolloutActivity(path)!.state, "working");
  assert.equal(readRolloutActivity(join(homes.root, "missing.jsonl")), null);
});

Deno.test("a long turn's marker is found beyond the first 64 KiB of the tail", () => {
  using homes = tempHomes();
  const path = join(homes.root, "rollout.jsonl");
  const filler = `{"type":"response_item","payload":{"type":"function_call_output","output":"${
    "x".repeat(1000)
  }"}}`;
  writeFile(path, [TASK_COMPLETE, TASK_STARTED, ...Array(100).fill(filler)].join("\n") + "\n");
  assert.equal(readRolloutActivity(path)!.state, "working");
});

Deno.test("codexLive sees a real flock on a thread's lock file, and stops seeing it when the holder exits", async () => {
  using homes = tempHomes();
  const id = "01a22999-0858-7410-9399-c033069765c5";
  const lock = join(threadLocksDir(homes.env), `${id}.lock`);
  writeFile(lock, "");
  // util-linux flock(1) takes the same FLOCK Codex takes; it stands in for Codex's process here
  const holder = new Deno.Command("flock", { args: ["--exclusive", lock, "sleep", "30"] }).spawn();
  try {
    const agent: AgentConfig = { ...builtinAgent(homes, "codex"), exe: ["**/flock"] };
    const pid = holder.pid;
    let ticks = 0;
    for (let i = 0; i < 50 && !(LINUX_PROC.readText("/proc/locks") ?? "").includes(` ${pid} `); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    ticks = identityOf(pid)!.procStart;
    const query = () => ({
      agent,
      env: homes.env,
      procs: { get: (p: number) => readProc(p) ?? undefined },
      open: [{ agentSessionId: id, transcriptPath: null, runs: [{ pid, procStart: ticks }] }],
      proc: LINUX_PROC,
    });
    const seen = codexLive(query());
    assert.equal(seen.sessions.get(id)?.pid, pid);
    assert.deepEqual([...seen.carriers.get(pid)!.sessionIds], [id]);

    holder.kill("SIGKILL");
    await holder.status;
    assert.equal(codexLive(query()).sessions.size, 0, "the lock file stays, the flock is gone");
  } finally {
    try {
      holder.kill("SIGKILL");
    } catch { /* already gone */ }
    await holder.status;
  }
});
