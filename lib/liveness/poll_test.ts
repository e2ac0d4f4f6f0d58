import assert from "node:assert/strict";
import { join } from "node:path";
import { loadAgents } from "../agents/mod.ts";
import { tempHomes, writeFile } from "../agents/_test_utils.ts";
import { Ledger, liveRows } from "../ledger/mod.ts";
import { hookEvent, writeSql } from "../ledger/_test_utils.ts";
import { bootId, identityOf } from "../procs/mod.ts";
import { newPollState, pollOnce, procLookup } from "./poll.ts";

const T0 = Date.parse("2026-11-29T22:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

/** A scratch world: temp homes, a ledger, and sleeping processes standing in for agents. */
function world() {
  const homes = tempHomes();
  Deno.mkdirSync(homes.asmHome, { recursive: true });
  const ledger = Ledger.open(join(homes.asmHome, "ledger.sqlite"));
  const children: Deno.ChildProcess[] = [];
  return {
    homes,
    ledger,
    agents: loadAgents({ asmHome: homes.asmHome }),
    /** A real process and its identity. */
    sleeper() {
      const child = new Deno.Command("sleep", { args: ["60"] }).spawn();
      children.push(child);
      return { child, pid: child.pid, ticks: identityOf(child.pid)!.procStart };
    },
    /** A live session whose run is (pid, ticks). */
    session(
      agent: string,
      sid: string,
      pid: number,
      ticks: number,
      extra: Partial<Parameters<typeof hookEvent>[0]> = {},
    ) {
      const e = hookEvent({
        agent,
        agent_session_id: sid,
        agent_pid: pid,
        agent_proc_start: ticks,
        boot_id: bootId(),
        ts: iso(T0),
        ...extra,
      });
      ledger.applyEvent(e);
      return e.asm_id;
    },
    async [Symbol.asyncDispose]() {
      for (const c of children) {
        try {
          c.kill("SIGKILL");
        } catch { /* already gone */ }
        await c.status;
      }
      ledger.close();
      homes[Symbol.dispose]();
    },
  };
}

Deno.test("a run whose process exits makes its session lost on the next poll; a recycled pid is lost at once", async () => {
  await using w = world();
  const agent = w.sleeper();
  const live = w.session("gemini", "sid-live", agent.pid, agent.ticks);
  // a fake pid reuse: this test's own pid, with start ticks that are not its own
  const reused = w.session("gemini", "sid-reused", Deno.pid, identityOf(Deno.pid)!.procStart + 7);
  const deps = { ledger: w.ledger, env: w.homes.env, agents: w.agents, now: () => T0 + 1000 };

  const first = pollOnce(deps);
  assert.deepEqual(first.lost, [reused]);
  assert.equal(w.ledger.session(live)!.status, "live");
  assert.equal(w.ledger.session(reused)!.status, "lost");
  assert.equal(w.ledger.runs(reused)[0].end_reason, "process gone");

  agent.child.kill("SIGKILL");
  await agent.child.status;
  const second = pollOnce(deps);
  assert.deepEqual(second.lost, [live]);
  assert.equal(w.ledger.session(live)!.status, "lost");
  assert.equal(w.ledger.openRuns().length, 0);
});

Deno.test("the activity from the hooks is stored with its freshness, and Needs attention needs a working poll first", async () => {
  await using w = world();
  const agent = w.sleeper();
  const asmId = w.session("gemini", "sid-g", agent.pid, agent.ticks);
  w.ledger.applyEvent(
    hookEvent({ agent: "gemini", agent_session_id: "sid-g", event: "UserPromptSubmit", ts: iso(T0 + 500) }),
  );
  const state = newPollState();
  const at = (ms: number) => ({ ledger: w.ledger, env: w.homes.env, agents: w.agents, state, now: () => ms });
  const row = () => liveRows(w.ledger, { all: true }).find((r) => r.asm_id === asmId)!;

  pollOnce(at(T0 + 1000));
  assert.deepEqual([row().activity, row().activity_reason, row().activity_at], [
    "working",
    null,
    iso(T0 + 500),
  ]);

  // a server that never saw it working says Working, however old the evidence
  pollOnce({ ...at(T0 + 600_000), state: newPollState() });
  assert.equal(row().activity, "working");

  pollOnce(at(T0 + 600_000));
  assert.equal(row().activity, "stalled");
  assert.equal(row().activity_reason, "no new evidence for 10 min and no turn end");

  w.ledger.applyEvent(
    hookEvent({ agent: "gemini", agent_session_id: "sid-g", event: "Stop", ts: iso(T0 + 601_000) }),
  );
  pollOnce(at(T0 + 602_000));
  assert.deepEqual([row().activity, row().activity_at], ["idle", iso(T0 + 601_000)]);
});

Deno.test("an unknown status in the agent's own record shows the neutral word and is logged once", async () => {
  await using w = world();
  const agent = w.sleeper();
  const asmId = w.session("claude", "sid-c", agent.pid, agent.ticks);
  writeFile(
    join(w.homes.home, ".claude", "sessions", `${agent.pid}.json`),
    JSON.stringify({
      pid: agent.pid,
      sessionId: "sid-c",
      procStart: String(agent.ticks),
      status: "dreaming",
    }),
  );
  const lines: Record<string, unknown>[] = [];
  const deps = {
    ledger: w.ledger,
    env: w.homes.env,
    agents: w.agents,
    state: newPollState(),
    log: (l: Record<string, unknown>) => lines.push(l),
  };
  pollOnce(deps);
  pollOnce(deps);
  const row = liveRows(w.ledger, { all: true }).find((r) => r.asm_id === asmId)!;
  assert.deepEqual([row.activity, row.activity_reason], ["unknown", 'unknown status "dreaming"']);
  assert.deepEqual(lines, [{ what: "poll: unknown activity value", agent: "claude", value: "dreaming" }]);
});

Deno.test("an agent whose evidence cannot be read is logged once, and its processes are still checked", async () => {
  await using w = world();
  const agent = w.sleeper();
  const asmId = w.session("claude", "sid-c", agent.pid, agent.ticks);
  const lines: Record<string, unknown>[] = [];
  // no HOME: Claude's records cannot be found, which must not stop the poll
  const deps = {
    ledger: w.ledger,
    env: {},
    agents: w.agents,
    state: newPollState(),
    log: (l: Record<string, unknown>) => lines.push(l),
  };
  pollOnce(deps);
  agent.child.kill("SIGKILL");
  await agent.child.status;
  const report = pollOnce(deps);
  assert.deepEqual(report.lost, [asmId]);
  const failures = lines.filter((l) => l.what === "poll: live() failed");
  assert.equal(failures.length, 1);
  assert.match(String(failures[0].error), /HOME is not set/);
});

Deno.test("a poll over an empty ledger reads no agent's folders", async () => {
  await using w = world();
  // with no HOME, any attempt to read an agent's folders would throw
  const report = pollOnce({ ledger: w.ledger, env: {}, agents: w.agents });
  assert.deepEqual({ ...report, at: "" }, { at: "", runs: 0, sessions: 0, closed: 0, lost: [], changed: 0 });
});

Deno.test("each pid is read from /proc at most once per poll", () => {
  const reads: string[] = [];
  const lookup = procLookup({
    readText: (path) => {
      reads.push(path);
      return path === "/proc/7/stat" ? "7 (x) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 555 0 0" : null;
    },
    readLink: () => null,
    listPids: () => [],
  });
  assert.equal(lookup.get(7)?.startTicks, 555);
  assert.equal(lookup.get(7)?.startTicks, 555);
  assert.equal(lookup.get(8), undefined);
  assert.equal(lookup.get(8), undefined);
  assert.deepEqual(reads, ["/proc/7/stat", "/proc/7/cmdline", "/proc/8/stat"]);
  assert.deepEqual([...lookup.table().keys()], [7]);
});

Deno.test("the stalled threshold is each agent's stalled_minutes in agents.toml, 5 unless set", () => {
  using homes = tempHomes();
  assert.deepEqual(loadAgents({ asmHome: homes.asmHome }).map((a) => a.stalled_minutes), [5, 5, 5]);
  writeFile(join(homes.asmHome, "agents.toml"), "[codex]\nstalled_minutes = 2.5\n");
  assert.equal(loadAgents({ asmHome: homes.asmHome }).find((a) => a.name === "codex")!.stalled_minutes, 2.5);
  writeFile(join(homes.asmHome, "agents.toml"), '[codex]\nstalled_minutes = "5"\n');
  assert.throws(
    () => loadAgents({ asmHome: homes.asmHome }),
    /codex\.stalled_minutes must be a number of minutes above 0, not the string "5"/,
  );
});

Deno.test("a bad row costs one log line, once, and every other session is still judged", async () => {
  await using w = world();
  const alive = w.sleeper();
  const gone = w.sleeper();
  const live = w.session("gemini", "sid-alive", alive.pid, alive.ticks);
  const ended = w.session("gemini", "sid-gone", gone.pid, gone.ticks);
  // what an older asm stored: a run of pid 2^62 as a session's only run, and a transcript path the kernel refuses
  const huge = w.session("gemini", "sid-huge-pid", alive.pid, alive.ticks, { agent_pid: null });
  writeSql(
    w.ledger,
    "INSERT INTO runs (asm_id, pid, proc_start, boot_id, started_at) VALUES (?, ?, 1, ?, ?)",
    huge,
    2n ** 62n,
    bootId(),
    iso(T0),
  );
  const longPath = w.session("gemini", "sid-long-path", alive.pid, alive.ticks, { agent_pid: null });
  writeSql(
    w.ledger,
    "UPDATE sessions SET transcript_path = ? WHERE asm_id = ?",
    `/${"a".repeat(5000)}`,
    longPath,
  );
  gone.child.kill("SIGKILL");
  await gone.child.status;

  const lines: Record<string, unknown>[] = [];
  const state = newPollState();
  const deps = {
    ledger: w.ledger,
    env: w.homes.env,
    agents: w.agents,
    state,
    log: (l: Record<string, unknown>) => lines.push(l),
  };
  for (let tick = 1; tick <= 3; tick++) pollOnce({ ...deps, now: () => T0 + tick * 5000 });

  assert.equal(w.ledger.session(live)!.status, "live");
  assert.equal(w.ledger.session(ended)!.status, "lost", "the session beside the bad rows was judged");
  const closed = lines.filter((l) => l.what === "poll: run out of range closed");
  assert.equal(closed.length, 1);
  assert.deepEqual([closed[0].asm_id, closed[0].pid], [huge, "4611686018427387904"]);
  const failed = lines.filter((l) => l.what === "poll: row failed");
  assert.equal(failed.length, 1, JSON.stringify(failed));
  assert.deepEqual([failed[0].asm_id, failed[0].step], [longPath, "transcript"]);
  assert.match(String(failed[0].error), /File name too long/);
  assert.ok(String(failed[0].error).length < 400, "the refused path is not copied whole into the log");
  // the rows themselves: the bad run closed, its session live without it (as if the event had named no pid)
  assert.deepEqual(w.ledger.runs(huge).map((r) => r.pid), []);
  assert.equal(w.ledger.session(huge)!.status, "live");
});
