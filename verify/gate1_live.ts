/**
 * Gate 1 (live), for each tested agent, with its REAL binary in a real tmux window against its loopback fake:
 * a session launched through `POST /api/launch` is live with the right pid (the agent's own process, in the
 * launch's window) and its prompt, full of shell metacharacters, reached the model byte-identical; a fake pid
 * reuse (a run recorded on that live pid with other start ticks) is never live and END refuses it; killing the
 * session's tmux window marks it lost within one poll. The time from launch to live is printed, not asserted.
 * @module
 */
import assert from "node:assert/strict";
import type { AgentConfig } from "../lib/agents/mod.ts";
import { launchRow } from "../lib/ledger/mod.ts";
import type { Check } from "./gate.ts";
import { liveWorld, NASTY_PROMPT, running, testedAgents } from "./live_world.ts";

function oneAgent(agent: AgentConfig): Check {
  return {
    name:
      `${agent.display}: a launched session is live with the right pid and its prompt reached the model ` +
      "byte-identical; a fake pid reuse is never live and END refuses it; killing its window marks it lost " +
      "within one poll",
    async run() {
      const w = await liveWorld([agent]);
      try {
        const launched = await w.post("/api/launch", {
          agent: agent.name,
          folder: w.folder,
          prompt: NASTY_PROMPT,
          bypass_hook_trust: true,
        });
        assert.equal(launched.status, 200, JSON.stringify(launched.body));
        const token = String(launched.body.token);
        const live = await w.waitLive(token);
        console.log(`  ${agent.display}: live ${live.ms} ms after the launch request (pid ${live.pid})`);
        await w.assertInWindow(agent, live, launchRow(w.server.ledger, token)!);
        const fake = w.fakes.get(agent.name)!;
        await w.until(
          () => fake.userTexts().includes(NASTY_PROMPT),
          "the prompt reached the model byte-identical",
        );

        // a run recorded on the same pid with other start ticks: a recycled pid, as far as asm can tell
        const reuse = w.hookEvent({
          agent: agent.name,
          agent_session_id: `asm-gate-pid-reuse-${crypto.randomUUID()}`,
          agent_pid: live.pid,
          agent_proc_start: live.procStart + 1,
        });
        const refused = await w.post(`/api/sessions/${reuse}/end`);
        assert.equal(refused.status, 409, JSON.stringify(refused.body));
        assert.match(String(refused.body.error), /belongs to another process/);
        assert.equal(running(live.pid, live.procStart), true, "END on the reused pid signalled nothing");
        w.poll();
        assert.equal(w.server.ledger.session(reuse)?.status, "lost", "the reused pid is never live");
        assert.equal(w.server.ledger.session(live.asmId)?.status, "live", "the real session stays live");

        // the window closed with its X: no hook is drained in between, so only the poll can see it
        assert.equal((await w.tmux(["kill-window", "-t", String(launched.body.window_id)])).ok, true);
        await w.until(
          () => !running(live.pid, live.procStart),
          "the agent process to exit with its window",
          15_000,
        );
        w.poll();
        assert.equal(w.server.ledger.session(live.asmId)?.status, "lost", "lost after one poll");
      } finally {
        await w.close();
      }
    },
  };
}

/** The checks of Gate 1 (live), one per tested agent. */
export function gate1LiveChecks(): Check[] {
  return testedAgents().map(oneAgent);
}
