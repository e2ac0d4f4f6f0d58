/**
 * The audit's case end to end, on a real server with the real services: one hook event with `agent_pid` 2^62
 * (and other values out of range) used to be stored, and from then on the poll, the launches task and the
 * board's sweep failed on every tick and the session's page answered 500, across restarts and rebuilds. Now the
 * event is stored without them, with one log line; every task keeps ticking; the page answers. A row already
 * holding 2^62 (put in by SQL, as an older asm wrote it) stops nothing either.
 *
 * The poll and the launches task run every 200 ms here instead of every 5 s and 2 s: the same services, more
 * ticks in a short test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isoAt, recordLaunch } from "../ledger/mod.ts";
import { hookEvent, writeSql } from "../ledger/_test_utils.ts";
import { type RunningServer, startServer } from "./app.ts";
import { SERVICES } from "./services.ts";
import { ROUTES } from "../../routes/mod.ts";
import { waitFor } from "./_test_utils.ts";

const FAST = new Set(["poll", "launches"]);

function logLines(home: string): Record<string, unknown>[] {
  return Deno.readTextFileSync(join(home, "server.log")).trim().split("\n").map((l) => JSON.parse(l));
}

type Task = { name: string; runs: number; errors: number; last_error: string | null };

async function tasks(server: RunningServer): Promise<Map<string, Task>> {
  const health = await (await server.api("/api/health")).json();
  return new Map((health.tasks as Task[]).map((t) => [t.name, t]));
}

/** Waits for `n` more ticks of the poll and the launches task, then asserts no task has ever failed. */
async function ticksWithoutError(server: RunningServer, n: number): Promise<void> {
  const before = await tasks(server);
  await waitFor(`${n} more ticks of the poll and the launches task`, async () => {
    const now = await tasks(server);
    return [...FAST].every((name) => now.get(name)!.runs >= before.get(name)!.runs + n);
  });
  for (const task of (await tasks(server)).values()) {
    assert.deepEqual([task.name, task.errors, task.last_error], [task.name, 0, null], `task ${task.name}`);
  }
}

async function pageAnswers(server: RunningServer, asmId: string): Promise<void> {
  for (const path of [`/sessions/${asmId}`, `/api/sessions/${asmId}`]) {
    const res = await server.api(path);
    await res.body?.cancel();
    assert.equal(res.status, 200, path);
  }
}

/** One board pass after a wake (it reads every open run), and the board has no problem. */
async function boardPasses(server: RunningServer): Promise<void> {
  const board = server.context.state.board;
  await waitFor("the board's dry run", () => board.cadence().dry_run_done);
  const before = board.cadence().passes;
  board.wake();
  await waitFor("a board pass", () => board.cadence().passes > before && !board.cadence().running);
  assert.equal(board.problem, null);
}

Deno.test("an event with agent_pid 2^62 is stored without it, named once, and every task keeps ticking; so does a row holding it", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-out-of-range-" });
  const agentHome = Deno.makeTempDirSync({ prefix: "asm-out-of-range-home-" });
  const server = startServer({
    asmHome: home,
    port: 0,
    drainEveryMs: 100,
    routes: ROUTES,
    services: SERVICES.map((s) => (FAST.has(s.name) ? { ...s, everyMs: 200 } : s)),
    env: { HOME: agentHome, ASM_HOME: home, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  });
  try {
    // a launch waiting for its session: the launches task reads every open run on each tick
    recordLaunch(server.ledger, {
      token: "asmlt_waiting",
      agent: "claude",
      kind: "launch",
      cwd: "/home/user/project",
      name: null,
      model: null,
      script_path: join(home, "launches", "asmlt_waiting.sh"),
      prompt_path: null,
      requested_at: isoAt(),
      continues_asm_id: null,
      resumes_asm_id: null,
      waiting_reason: null,
      host: "tmux",
    });

    // 1. the event, as a buggy payload made the hook write it
    const event = hookEvent({
      agent_session_id: "agent-pid-2-62",
      ts: isoAt(),
      ancestors: [{ pid: 77, exe: "/bin/sh", created: 5 }],
    });
    const text = JSON.stringify(event)
      .replace('"agent_pid":4242', '"agent_pid":4611686018427387904')
      .replace('"agent_proc_start":51082', '"agent_proc_start":-5')
      .replace('"boot_id":"boot-1"', '"boot_id":"../../../etc/passwd"')
      .replace('"cwd":"/home/user/project"', `"cwd":"/${"a".repeat(5000)}"`)
      .replace('"hook_ms":12', '"hook_ms":-1')
      .replace('"pid":77', '"pid":4611686018427387904');
    Deno.writeTextFileSync(join(home, "inbox", `${event.event_id}.json`), text);
    await waitFor("the event to be drained", () => server.ledger.hasEvent(event.event_id));

    const row = server.ledger.session(event.asm_id)!;
    assert.deepEqual([row.status, row.cwd, row.agent_session_id], ["live", null, "agent-pid-2-62"]);
    assert.deepEqual(server.ledger.runs(event.asm_id), [], "no run: no process has that pid");
    const stored = JSON.parse(
      String(server.ledger.query("SELECT payload FROM events WHERE id = ?", event.event_id)[0].payload),
    );
    assert.deepEqual(
      [
        stored.agent_pid,
        stored.agent_proc_start,
        stored.boot_id,
        stored.cwd,
        stored.hook_ms,
        stored.ancestors,
      ],
      [null, null, null, null, null, []],
    );
    const named = logLines(home).filter((l) => l.what === "event values dropped");
    assert.equal(named.length, 1, "exactly one log line");
    assert.deepEqual(
      Object.keys(named[0].dropped as object).sort(),
      ["agent_pid", "agent_proc_start", "ancestors", "boot_id", "cwd", "hook_ms"],
    );
    assert.match(
      String((named[0].dropped as Record<string, string>).agent_pid),
      /^4611686018427387904 is not a pid/,
    );

    await ticksWithoutError(server, 5);
    await boardPasses(server);
    await pageAnswers(server, event.asm_id);

    // 2. a row already holding 2^62, as an older asm stored it, and a token count beyond 2^53 beside it
    const old = hookEvent({ agent_session_id: "stored-before-the-fix", agent_pid: null, ts: isoAt() });
    server.ledger.applyEvent(old);
    writeSql(
      server.ledger,
      "INSERT INTO runs (asm_id, pid, proc_start, boot_id, started_at) VALUES (?, ?, 51082, 'boot-1', ?)",
      old.asm_id,
      2n ** 62n,
      old.ts,
    );
    writeSql(server.ledger, "UPDATE sessions SET context_tokens = ? WHERE asm_id = ?", 2n ** 62n, old.asm_id);

    await ticksWithoutError(server, 5);
    await boardPasses(server);
    await pageAnswers(server, old.asm_id);
    await pageAnswers(server, event.asm_id);
    const list = await server.api("/api/sessions");
    assert.equal(list.status, 200);
    const views = (await list.json()).sessions as { asm_id: string; context_tokens: number | null }[];
    assert.equal(views.find((v) => v.asm_id === old.asm_id)?.context_tokens, null);

    const lines = logLines(home);
    const closed = lines.filter((l) => l.what === "poll: run out of range closed");
    assert.equal(closed.length, 1, "the stored run is closed once, named once");
    assert.deepEqual([closed[0].asm_id, closed[0].pid], [old.asm_id, "4611686018427387904"]);
    await waitFor(
      "the ledger watch to name the number read as empty",
      () => logLines(home).some((l) => String(l.what).startsWith("ledger: a stored number too large")),
    );
    const failures = logLines(home).filter((l) =>
      ["task failed", "route failed", "board problem", "poll: row failed"].includes(String(l.what))
    );
    assert.deepEqual(failures, []);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(agentHome, { recursive: true });
  }
});
