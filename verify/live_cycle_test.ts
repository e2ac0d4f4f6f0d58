/**
 * The liveness cycle, end to end, for each agent: its REAL binary started interactively in a tmux window of one
 * world shared by this file's tests, against its loopback fake, with asm's hooks installed by asm's installer. Each
 * test drives the drain and the poll itself (the world's server runs no poll of its own), so it can say exactly
 * which poll saw what.
 * @module
 */
import assert from "node:assert/strict";
import { isAgentProcess, loadAgents } from "../lib/agents/mod.ts";
import { readProc } from "../lib/procs/mod.ts";
import { activityWord } from "../lib/liveness/mod.ts";
import { type InteractiveAgent, sharedLiveWorld } from "./live_world.ts";

const world = sharedLiveWorld(loadAgents().filter((a) => ["claude", "codex", "gemini"].includes(a.name)), {
  services: [],
});

/**
 * The liveness cycle every agent must pass: live within seconds with the right pid (by asm's ledger AND the
 * agent's own `live()`), Working during the slow reply, Needs attention once the reply outlasts the threshold,
 * Idle (or Waiting on you) after it, and lost on the first poll after its tmux window is killed.
 */
async function assertLiveCycle(
  run: InteractiveAgent,
  options: { startupMs: number; ownActivity: boolean },
): Promise<void> {
  const working = await run.until(
    "Working",
    () => run.row()?.activity === "working" && run.row(),
    options.startupMs,
  );
  const runs = run.openRuns();
  assert.equal(runs.length, 1, `one open run, got ${JSON.stringify(runs)}`);
  const proc = readProc(runs[0].pid);
  assert.ok(
    proc && proc.startTicks === runs[0].proc_start,
    "the run is a running process with its start ticks",
  );
  assert.ok(isAgentProcess(run.agent, proc.exe, proc.argv), `the run's process is the agent: ${proc.exe}`);
  const own = run.live().sessions.get(working.agent_session_id);
  assert.equal(own?.pid, runs[0].pid, "live() sees it, with the same pid");
  // an agent that keeps its own record says Working itself; one that does not leaves it to the hooks
  assert.equal(own.activity?.state ?? null, options.ownActivity ? "working" : null, "live()'s own activity");

  await run.until(
    "Needs attention while the reply is held back",
    () => run.row()?.activity === "stalled",
    15_000,
  );
  const after = await run.until(
    "Idle or Waiting on you after the reply",
    () => ["idle", "waiting"].includes(run.row()?.activity ?? "") && run.row(),
    20_000,
  );
  assert.equal(after.status, "live");

  await run.killWindow();
  for (let i = 0; i < 100 && readProc(runs[0].pid)?.startTicks === runs[0].proc_start; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  // no drain in between: the poll alone, from the process table, must see it gone
  const report = run.poll();
  assert.deepEqual(report.lost, [working.asm_id], "lost on the first poll after the window closed");
  assert.equal(run.ledger.session(working.asm_id)!.status, "lost");
}

Deno.test({
  name:
    "Claude Code in a tmux window is live with its pid, Working then Needs attention during a slow reply, " +
    "Idle after, and lost on the first poll after its window is killed",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // interactive with a first prompt; onboarding and folder trust are pre-seeded by the offline setup
    await using run = await (await world()).startInteractive("claude", {
      argv: (prompt) => [prompt],
      prompt: "hello SLOW:7000",
      stalledAfterMs: 2000,
    });
    await assertLiveCycle(run, { startupMs: 20_000, ownActivity: true });
  },
});

Deno.test({
  name:
    "Codex (--no-daemon) in a tmux window is live with its pid, Working then Needs attention during a slow " +
    "reply, Idle after, and lost on the first poll after its window is killed",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // --no-daemon: the TUI is the agent (a shared daemon would outlive the window); the hooks of a scratch home
    // are untrusted, so the documented bypass flag runs them (tests only)
    await using run = await (await world()).startInteractive("codex", {
      argv: (prompt) => ["--no-daemon", "--dangerously-bypass-hook-trust", prompt],
      prompt: "hello SLOW:7000",
      stalledAfterMs: 2000,
    });
    await assertLiveCycle(run, { startupMs: 20_000, ownActivity: true });
  },
});

Deno.test({
  name:
    "Gemini CLI in a tmux window is live with its node child's pid, Working then Needs attention during a " +
    "slow reply, Idle after, and lost on the first poll after its window is killed",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // interactive with a first prompt; the folder is pre-trusted; Gemini takes 6-8 s to start
    await using run = await (await world()).startInteractive("gemini", {
      argv: (prompt) => ["--prompt-interactive", prompt],
      prompt: "hello SLOW:7000",
      stalledAfterMs: 2000,
    });
    await assertLiveCycle(run, { startupMs: 30_000, ownActivity: false });
  },
});

Deno.test({
  name:
    "Claude Code retrying after API errors reads Retrying, never Working, and a turn it gave up on reads " +
    "Turn failed with its error message (a fake answering 529, then succeeding or not)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const w = await world();
    const seen = async (prompt: string, until: (activity: string | null | undefined) => boolean) => {
      await using run = await w.startInteractive("claude", {
        argv: (p) => [p],
        prompt,
        stalledAfterMs: 60_000,
      });
      const activities: string[] = [];
      const row = await run.until(`the turn of "${prompt}" to end`, () => {
        const r = run.row();
        const shown = r?.activity ? `${r.activity}${r.activity_reason ? `: ${r.activity_reason}` : ""}` : "";
        if (shown && activities.at(-1) !== shown) activities.push(shown);
        // the turn's end: the wanted word after the turn began (the first poll sees the start's idle)
        return until(r?.activity) && activities.some((x) => !x.startsWith("idle")) ? r : null;
      }, 30_000);
      return { row, activities };
    };
    // 529 twice (each answer held 1.5 s), then the reply: Claude retries on its own, and says so in its transcript
    const recovered = await seen("hello RETRY:529x2 SLOW:1500", (a) => a === "idle");
    assert.ok(
      recovered.activities.some((a) => /^retrying: the API answered with an error; retry \d$/.test(a)),
      `a poll saw Retrying: ${recovered.activities.join(" -> ")}`,
    );
    // 529 every time: Claude gives up and ends the turn on its error message
    const failed = await seen("hello RETRY:529x20", (a) => a === "failed");
    // the error message Claude wrote into its transcript, as it wrote it
    assert.match(failed.row.activity_reason ?? "", /^API Error: .*529/);
    assert.equal(activityWord(failed.row.activity), "Turn failed");
  },
});
