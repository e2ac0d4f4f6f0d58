/**
 * Gate 1 (the hook), live: for each tested agent, its REAL binary runs one one-shot session in a scratch folder
 * against its loopback fake model server, with asm's hook installed by asm's own installer. The gate asserts the
 * consequences: start, prompt, stop and end events in the inbox; drained into one session row whose run is the
 * real agent process (pid and start ticks seen in /proc while it ran); the standing rules reached the model.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type AgentConfig,
  isAgentProcess,
  loadAgents,
  offlineSetup,
  orphanEventReason,
} from "../lib/agents/mod.ts";
import { drainOnce } from "../lib/inbox/mod.ts";
import { installHooks, runCanary } from "../lib/install/mod.ts";
import { Ledger } from "../lib/ledger/mod.ts";
import { snapshot } from "../lib/procs/mod.ts";
import { startFake } from "./fakes/mod.ts";
import type { Check } from "./gate.ts";
import { agentsBinDir } from "./prerequisites.ts";

/** A process seen under the agent's spawned pid while it ran. */
interface Seen {
  pid: number;
  startTicks: number;
  exe: string | null;
  argv: string[];
}

/** Samples the process tree under `root` until `stop()`; returns every process seen. */
function watchTree(root: number): { stop(): Seen[] } {
  const seen = new Map<string, Seen>();
  const sample = () => {
    const table = snapshot();
    const inTree = new Set([root]);
    // parents have lower pids mostly, but not always: iterate until no new member is found
    for (let grew = true; grew;) {
      grew = false;
      for (const p of table.values()) {
        if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
          inTree.add(p.pid);
          grew = true;
        }
      }
    }
    for (const pid of inTree) {
      const p = table.get(pid);
      if (!p) continue;
      // an exited process (a zombie) has no exe link and no argv: keep what was seen while it lived
      const key = `${p.pid}:${p.startTicks}`;
      if (p.exe === null && seen.has(key)) continue;
      seen.set(key, { pid: p.pid, startTicks: p.startTicks, exe: p.exe, argv: p.argv });
    }
  };
  sample();
  const timer = setInterval(sample, 15);
  return {
    stop() {
      clearInterval(timer);
      return [...seen.values()];
    },
  };
}

/** A scratch world for one agent: homes, asm's data folder, the fake, the environment. */
async function scratchWorld(agent: AgentConfig) {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: `asm-gate1-${agent.name}-` }));
  const home = join(root, "home");
  const asmHome = join(root, "asm");
  const tmp = join(root, "tmp");
  for (const d of [home, asmHome, tmp]) Deno.mkdirSync(d, { recursive: true });
  const setup = offlineSetup(agent);
  const fake = await startFake(setup.fakeKind);
  const extra = setup.prepare({ home, fakeUrl: fake.url });
  const bin = Deno.env.get("ASM_AGENTS_BIN") || agentsBinDir();
  const env: Record<string, string> = {
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
    ASM_HOME: asmHome,
    ...extra,
  };
  return {
    root,
    asmHome,
    env,
    fake,
    async done() {
      await fake.close();
      Deno.removeSync(root, { recursive: true });
    },
  };
}

function oneAgent(agent: AgentConfig): Check {
  return {
    name:
      `${agent.display}: a one-shot session leaves start, prompt, stop and end, drained into one row whose run is ` +
      "the real agent process, and the standing rules reached the model",
    async run() {
      const w = await scratchWorld(agent);
      try {
        const marker = `ASM-STANDING-RULE-${crypto.randomUUID()}`;
        Deno.mkdirSync(join(w.asmHome, "rules"), { recursive: true });
        Deno.writeTextFileSync(join(w.asmHome, "rules", "00-standing.md"), `Always follow rule ${marker}.\n`);

        const installed = installHooks({ env: w.env, asmHome: w.asmHome, agents: [agent.name] });
        assert.equal(installed[0].kind, "Installed", JSON.stringify(installed[0]));

        let watcher: { stop(): Seen[] } | null = null;
        const canary = await runCanary({
          agent,
          env: w.env,
          asmHome: w.asmHome,
          bypassHookTrust: true,
          timeoutMs: 90_000,
          onSpawn: (pid) => (watcher = watchTree(pid)),
        });
        const seen = (watcher as { stop(): Seen[] } | null)?.stop() ?? [];
        assert.equal(canary.outcome.kind, "passed", `${canary.outcome.detail}\n${canary.output}`);
        assert.equal(canary.exitCode, 0, canary.output);

        const hookEvents = canary.events.filter((e) => e.source !== "notify");
        const kinds = new Set(hookEvents.map((e) => e.event));
        for (const kind of ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]) {
          assert.equal(kinds.has(kind), true, `no ${kind} event; saw ${[...kinds].join(", ")}`);
        }
        const sessionIds = new Set(hookEvents.map((e) => e.agent_session_id));
        assert.equal(sessionIds.size, 1, `one agent session, saw ${[...sessionIds].join(", ")}`);

        const ledger = Ledger.open(join(w.asmHome, "ledger.sqlite"));
        try {
          const report = drainOnce({
            asmHome: w.asmHome,
            ledger,
            log: () => {},
            failures: new Map(),
            orphanReason: orphanEventReason([agent], w.env),
          });
          assert.equal(report.failed + report.rejected, 0, "every event file parsed and matched its asm id");
          const rows = ledger.listSessions({ all: true });
          assert.equal(rows.length, 1, `one session row, got ${rows.length}`);
          const row = rows[0];
          assert.equal(row.agent, agent.name);
          assert.equal(row.agent_session_id, [...sessionIds][0]);
          assert.equal(row.status, "ended");
          const runs = ledger.runs(row.asm_id);
          assert.equal(runs.length, 1, `one run, got ${JSON.stringify(runs)}`);
          const proc = seen.find((p) => p.pid === runs[0].pid && p.startTicks === runs[0].proc_start);
          assert.ok(
            proc,
            `the run (pid ${runs[0].pid}, start ${runs[0].proc_start}) is a process seen under the agent`,
          );
          assert.equal(
            isAgentProcess(agent, proc.exe, proc.argv),
            true,
            `the run's process is ${agent.display}: ${proc.exe}`,
          );
        } finally {
          ledger.close();
        }
        assert.equal(w.fake.bodyText().includes(marker), true, "the standing rule reached the model request");
      } finally {
        await w.done();
      }
    },
  };
}

/** The checks of Gate 1 (hook), one per tested agent. */
export function gate1HookChecks(): Check[] {
  return loadAgents().filter((a) => a.tested).map(oneAgent);
}
