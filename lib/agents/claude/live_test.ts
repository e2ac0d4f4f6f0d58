import assert from "node:assert/strict";
import { join } from "node:path";
import { identityOf, LINUX_PROC, type ProcInfo, readProc } from "../../procs/mod.ts";
import { builtinAgent, tempHomes, writeFile } from "../_test_utils.ts";
import {
  claudeActivity,
  claudeLive,
  claudeLiveFrom,
  claudeSessionsDir,
  parseClaudeRecord,
  pidNamespace,
  waitingReason,
} from "./live.ts";

/** `~/.claude/sessions/<pid>.json` as Claude Code 2.1.328 left it after SIGKILL (fixtures/claude/interactive). */
const STALE_RECORD = JSON.stringify({
  "pid": 30272,
  "sessionId": "f6afb6dd-6b5f-416a-88b0-7b51fe180966",
  "cwd": "/tmp/cc proj 5",
  "startedAt": 1795990636929,
  "procStart": "64073",
  "version": "2.1.328",
  "peerProtocol": 1,
  "peerFeatures": ["notify_idle", "reply_across_default_dirs", "artifact_yield"],
  "kind": "interactive",
  "entrypoint": "cli",
  "pidDomain": "linux:3d1219c7c4c5404aaa1f6d2a48adfda4:pid:[4026531836]",
  "asksForConvertedSkills": null,
  "messagingSocketPath": "/tmp/cc-socks/30272.sock",
  "name": "cc-proj-5-4b",
  "nameSource": "derived",
  "nameSince": 1795990636929,
  "status": "idle",
  "updatedAt": 1795990638189,
  "statusUpdatedAt": 1795990638189,
});

function procs(entries: Record<number, number>): Map<number, ProcInfo> {
  return new Map(
    Object.entries(entries).map(([pid, ticks]) => [
      Number(pid),
      { pid: Number(pid), ppid: 1, startTicks: ticks, exe: "/x/claude.exe", argv: [] },
    ]),
  );
}

Deno.test("a real record left behind by SIGKILL is ignored once its process is gone", () => {
  const record = parseClaudeRecord(STALE_RECORD)!;
  assert.deepEqual(
    [record.pid, record.sessionId, record.procStart, record.status],
    [30272, "f6afb6dd-6b5f-416a-88b0-7b51fe180966", 64073, "idle"],
  );
  assert.equal(record.updatedAt, "2026-11-29T22:17:18.189Z");
  assert.equal(claudeLiveFrom([record], procs({}), null).sessions.size, 0, "no such pid");
  assert.equal(
    claudeLiveFrom([record], procs({ 30272: 99 }), null).sessions.size,
    0,
    "pid reused by another",
  );
  const alive = claudeLiveFrom([record], procs({ 30272: 64073 }), "pid:[4026531836]");
  assert.deepEqual(alive.sessions.get(record.sessionId), {
    agentSessionId: record.sessionId,
    pid: 30272,
    procStart: 64073,
    activity: { state: "idle", raw: "idle", reason: null, at: "2026-11-29T22:17:18.189Z" },
  });
  assert.deepEqual([...alive.carriers.get(30272)!.sessionIds], [record.sessionId]);
});

Deno.test("a record from another pid namespace cannot be verified and is ignored", () => {
  const record = parseClaudeRecord(STALE_RECORD)!;
  assert.equal(claudeLiveFrom([record], procs({ 30272: 64073 }), "pid:[4026532999]").sessions.size, 0);
  assert.equal(pidNamespace("linux:3d12:pid:[4026531836]"), "pid:[4026531836]");
});

Deno.test("each status Claude writes becomes a state, waiting with its reason, and an unknown one none", () => {
  const rows: [string, string | null, string | null, string | null][] = [
    ["busy", null, "working", null],
    ["idle", null, "idle", null],
    ["shell", null, "shell", null],
    ["waiting", "permission prompt", "waiting", "permission"],
    ["waiting", "sandbox request", "waiting", "permission"],
    ["waiting", "input needed", "waiting", "question"],
    ["waiting", "dialog open", "waiting", "dialog open"],
    ["dreaming", null, null, null],
  ];
  for (const [status, waitingFor, state, reason] of rows) {
    const text = JSON.stringify({
      pid: 1,
      sessionId: "s",
      procStart: "2",
      status,
      waitingFor,
      statusUpdatedAt: 0,
    });
    const reading = claudeActivity(parseClaudeRecord(text)!)!;
    assert.equal(reading.state, state, status);
    assert.equal(reading.reason, reason, `${status} ${waitingFor}`);
    assert.equal(reading.raw, status);
  }
  assert.equal(waitingReason(null), null);
});

Deno.test("a half-written or foreign file is not a record", () => {
  for (
    const text of ['{"pid":12,"sessionId":"a"', "[]", '{"pid":"x","sessionId":"a","procStart":"1"}', "{}"]
  ) {
    assert.equal(parseClaudeRecord(text), null, text);
  }
});

Deno.test("two records of one resumed session keep the newer one", () => {
  const a = parseClaudeRecord(
    JSON.stringify({ pid: 1, sessionId: "s", procStart: "10", status: "idle", updatedAt: 1000 }),
  )!;
  const b = parseClaudeRecord(
    JSON.stringify({ pid: 2, sessionId: "s", procStart: "20", status: "busy", updatedAt: 2000 }),
  )!;
  const report = claudeLiveFrom([b, a], procs({ 1: 10, 2: 20 }), null);
  assert.equal(report.sessions.get("s")!.pid, 2);
  assert.equal(report.carriers.size, 2);
});

Deno.test("claudeLive reads the records in the scratch HOME and verifies them against real processes", async () => {
  using homes = tempHomes();
  const child = new Deno.Command("sleep", { args: ["30"] }).spawn();
  try {
    const id = identityOf(child.pid)!;
    const dir = claudeSessionsDir(homes.env);
    const record = (pid: number, procStart: number, sessionId: string) =>
      JSON.stringify({
        pid,
        sessionId,
        procStart: String(procStart),
        status: "busy",
        statusUpdatedAt: Date.now(),
      });
    writeFile(join(dir, `${child.pid}.json`), record(child.pid, id.procStart, "live-one"));
    // a record of a pid that is now some other process: what SIGKILL leaves behind once the pid is reused
    writeFile(
      join(dir, `${Deno.pid}.json`),
      record(Deno.pid, readProc(Deno.pid)!.startTicks + 1, "stale-one"),
    );
    writeFile(join(dir, "notes.txt"), "not a record");
    const query = () => ({
      agent: builtinAgent(homes, "claude"),
      env: homes.env,
      procs: { get: (pid: number) => readProc(pid) ?? undefined },
      open: [],
      proc: LINUX_PROC,
    });
    const seen = claudeLive(query());
    assert.deepEqual([...seen.sessions.keys()], ["live-one"]);
    assert.equal(seen.sessions.get("live-one")!.activity!.state, "working");

    child.kill("SIGKILL");
    await child.status;
    assert.equal(claudeLive(query()).sessions.size, 0, "the record stays on disk, but its process is gone");
    assert.ok(Deno.statSync(join(dir, `${child.pid}.json`)).isFile, "stale records are never deleted");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await child.status;
  }
});

Deno.test("no records folder is no live sessions", () => {
  using homes = tempHomes();
  const report = claudeLive({
    agent: builtinAgent(homes, "claude"),
    env: homes.env,
    procs: new Map(),
    open: [],
    proc: LINUX_PROC,
  });
  assert.equal(report.sessions.size, 0);
});
