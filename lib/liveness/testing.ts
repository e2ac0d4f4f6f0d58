/**
 * Test helper for the end-to-end liveness tests: one REAL agent, interactive, in a window of the test's own tmux
 * server, against its loopback fake model server, in scratch homes (trust pre-seeded by the agent's offline
 * setup), with asm's hooks installed by asm's installer. The test drives the drain and the poll itself, so it can
 * say exactly which poll saw what. Agent-neutral: each agent's test hands in its own argv.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isAgentProcess } from "../agents/glob.ts";
import type { AgentConfig, LiveReport } from "../agents/protocol.ts";
import { adapterOf, loadAgents, offlineSetup, orphanEventReason } from "../agents/registry.ts";
import { repoRoot } from "../config/paths.ts";
import { drainOnce } from "../inbox/mod.ts";
import { installHooks } from "../install/mod.ts";
import { Ledger, type LiveRow, liveRows, type RunRow } from "../ledger/mod.ts";
import { LINUX_PROC, readProc } from "../procs/mod.ts";
import { startFake } from "../../verify/fakes/mod.ts";
import { newPollState, pollOnce, type PollReport, procLookup } from "./poll.ts";

/** One real agent running interactively in the test's own tmux server. */
export interface InteractiveAgent {
  agent: AgentConfig;
  ledger: Ledger;
  /** One drain of the inbox into the ledger. */
  drain(): void;
  /** One poll, with the poll state kept across calls (as the server keeps it). */
  poll(): PollReport;
  /** The agent's one session row (hidden rows included: the scratch folder is a harness folder). */
  row(): LiveRow | undefined;
  /** The open runs of that session. */
  openRuns(): RunRow[];
  /** The agent's own `live()` report right now. */
  live(): LiveReport;
  /** Drains and polls every 250 ms until `check` returns a value; fails after `ms` with `what`. */
  until<T>(what: string, check: () => T | null | undefined | false, ms: number): Promise<T>;
  /** Kills the tmux window the agent runs in (what a person closing it with its X does). */
  killWindow(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of {@link startInteractive}. */
export interface InteractiveOptions {
  /** The agent's argv after its command, given the first prompt (each agent has its own flags). */
  argv(prompt: string): string[];
  prompt: string;
  /** Overrides the agent's `stalled_minutes`, so Needs attention can be seen in seconds. */
  stalledAfterMs: number;
}

function tmux(socket: string, args: string[]): Promise<Deno.CommandOutput> {
  return new Deno.Command("tmux", { args: ["-L", socket, ...args], stdout: "piped", stderr: "piped" })
    .output();
}

/** Starts `agentName` interactively in a new tmux server of its own; dispose of it with `await using`. */
export async function startInteractive(
  agentName: string,
  options: InteractiveOptions,
): Promise<InteractiveAgent> {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: `asm-live-${agentName}-` }));
  const [home, asmHome, work, tmp] = ["home", "asm", "work", "tmp"].map((d) => join(root, d));
  for (const d of [home, asmHome, work, tmp]) Deno.mkdirSync(d, { recursive: true });
  const agent = loadAgents({ asmHome }).find((a) => a.name === agentName);
  if (!agent) throw new Error(`no agent named ${agentName} in agents.toml`);
  const setup = offlineSetup(agent);
  const fake = await startFake(setup.fakeKind);
  const bin = Deno.env.get("ASM_AGENTS_BIN") || join(repoRoot(), ".tools", "agents", "node_modules", ".bin");
  const env: Record<string, string> = {
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
    ASM_HOME: asmHome,
    ...setup.prepare({ home, fakeUrl: fake.url, trustFolders: [work] }),
  };
  const installed = installHooks({ env, asmHome, agents: [agentName] });
  assert.equal(installed[0].kind, "Installed", JSON.stringify(installed[0]));

  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"));
  const socket = `asm-live-${agentName}-${crypto.randomUUID().slice(0, 8)}`;
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  // several arguments: tmux runs them directly, no shell, so the prompt needs no quoting
  const started = await tmux(socket, [
    "new-session",
    "-d",
    "-s",
    "asm",
    "-x",
    "200",
    "-y",
    "50",
    "-c",
    work,
    "--",
    "env",
    "-i",
    ...envArgs,
    agent.command,
    ...options.argv(options.prompt),
  ]);
  assert.ok(started.success, new TextDecoder().decode(started.stderr));

  const failures = new Map<string, number>();
  const orphan = orphanEventReason([agent], env);
  const state = newPollState();
  const pids = new Set<number>();
  const self: InteractiveAgent = {
    agent,
    ledger,
    drain() {
      drainOnce({
        asmHome,
        ledger,
        log: () => {},
        failures,
        ignoreReason: (e, l) => l.hasSession(e.asm_id) ? null : orphan(e),
      });
    },
    poll() {
      return pollOnce({
        ledger,
        env,
        asmHome,
        agents: [agent],
        state,
        stalledAfterMs: options.stalledAfterMs,
      });
    },
    row() {
      const rows = liveRows(ledger, { all: true }).filter((r) => r.agent === agentName);
      return rows.length === 1 ? rows[0] : undefined;
    },
    openRuns() {
      const row = self.row() ?? ledger.listSessions({ all: true }).find((s) => s.agent === agentName);
      const runs = row ? ledger.runs(row.asm_id).filter((r) => r.ended_at === null) : [];
      for (const r of runs) pids.add(r.pid);
      return runs;
    },
    live() {
      const row = self.row();
      return adapterOf(agent).live!({
        agent,
        env,
        procs: procLookup(LINUX_PROC),
        open: row
          ? [{
            agentSessionId: row.agent_session_id,
            transcriptPath: ledger.session(row.asm_id)?.transcript_path ?? null,
            runs: self.openRuns().map((r) => ({ pid: r.pid, procStart: r.proc_start })),
          }]
          : [],
        proc: LINUX_PROC,
      });
    },
    async until(what, check, ms) {
      const deadline = Date.now() + ms;
      let last: unknown = null;
      while (Date.now() < deadline) {
        self.drain();
        self.poll();
        const got = check();
        if (got !== null && got !== undefined && got !== false) return got;
        last = self.row() ?? null;
        await new Promise((r) => setTimeout(r, 250));
      }
      const screen = new TextDecoder().decode(
        (await tmux(socket, ["capture-pane", "-p", "-t", "asm"])).stdout,
      );
      throw new Error(
        `timed out after ${ms} ms waiting for ${what}; last row ${JSON.stringify(last)}\n${screen}`,
      );
    },
    async killWindow() {
      const killed = await tmux(socket, ["kill-window", "-t", "asm:0"]);
      assert.ok(killed.success, new TextDecoder().decode(killed.stderr));
    },
    async [Symbol.asyncDispose]() {
      await tmux(socket, ["kill-server"]);
      // the agent's processes end with their window; give them (and hooks still writing) a moment
      for (let i = 0; i < 40 && [...pids].some((p) => readProc(p) !== null); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      for (const pid of pids) {
        const p = readProc(pid);
        if (p && isAgentProcess(agent, p.exe, p.argv)) Deno.kill(pid, "SIGKILL");
      }
      await fake.close();
      ledger.close();
      for (let i = 0;; i++) {
        try {
          Deno.removeSync(root, { recursive: true });
          break;
        } catch (err) {
          // a last hook (Gemini does not wait for its final SessionEnd) may still be writing into the inbox
          if (i >= 20) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    },
  };
  return self;
}

/**
 * The liveness cycle every agent must pass: live within seconds with the right pid (by asm's ledger AND the
 * agent's own `live()`), Working during the slow reply, Needs attention once the reply outlasts the threshold,
 * Idle (or Waiting on you) after it, and lost on the first poll after its tmux window is killed.
 */
export async function assertLiveCycle(
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
