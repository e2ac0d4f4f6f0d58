/**
 * Gate 2 (live), with the REAL agents in real tmux windows against their loopback fakes, every action through
 * the server's POST routes:
 *
 * - per agent: a launch is live, and the time from the launch request is printed beside the agent's own start
 *   measured in the same run and homes, both after one uncounted run (the spec's 5 s is held for agents whose
 *   own start leaves asm room: `launch_to_live.ts`); END closes its window (the tmux window count goes down by
 *   one) and marks it killed; CONTINUE WITH starts the next agent in the same folder with the predecessor named
 *   in its prompt, and the rows are linked; RESUME reopens the same agent session id, with SessionStart source
 *   resume, the new turn in the same transcript, and the model asked for;
 * - send refuses a session whose pane cannot be proven (the agent runs in no window asm can see), and END on a
 *   binary configured as shared refuses with a plain sentence.
 * @module
 */
import assert from "node:assert/strict";
import type { AgentConfig } from "../lib/agents/mod.ts";
import { findOnPath } from "../lib/config/mod.ts";
import { oneShotArgv } from "../lib/launch/mod.ts";
import { launchRow } from "../lib/ledger/mod.ts";
import type { Check } from "./gate.ts";
import { type LiveWorld, liveWorld, running, testedAgents, transcriptHolds } from "./live_world.ts";
import { launchToLiveVerdict } from "./launch_to_live.ts";

async function launch(w: LiveWorld, agent: AgentConfig, body: Record<string, unknown>, path = "/api/launch") {
  const res = await w.post(path, { agent: agent.name, folder: w.folder, bypass_hook_trust: true, ...body });
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  return { token: String(res.body.token), windowId: String(res.body.window_id) };
}

/** The earliest SessionStart of `agent` in the world's inbox whose hook ran at `since` or later (epoch ms). */
function sessionStartAt(w: LiveWorld, agent: string, since: number): number | null {
  let earliest: number | null = null;
  for (const entry of Deno.readDirSync(`${w.asmHome}/inbox`)) {
    if (!entry.name.endsWith(".json")) continue;
    let event: { agent?: unknown; event?: unknown; ts?: unknown };
    try {
      event = JSON.parse(Deno.readTextFileSync(`${w.asmHome}/inbox/${entry.name}`));
    } catch (err) {
      // drained or renamed meanwhile: it is not the one-shot's (the world drains only when asked)
      if (err instanceof Deno.errors.NotFound) continue;
      throw err;
    }
    const at = typeof event.ts === "string" ? Date.parse(event.ts) : NaN;
    if (event.agent === agent && event.event === "SessionStart" && at >= since) {
      earliest = earliest === null ? at : Math.min(earliest, at);
    }
  }
  return earliest;
}

/**
 * The bare CLI's own start in the world's homes (no launch, no window, no shim): from spawning its one-shot to
 * its SessionStart hook running, in ms. The one-shot is left to finish its turn (the fake answers at once).
 */
async function ownStartMs(w: LiveWorld, agent: AgentConfig): Promise<number> {
  const command = findOnPath(agent.command, w.env)!;
  const since = Date.now();
  const child = new Deno.Command(command, {
    args: oneShotArgv(agent, { prompt: `asm gate2 own start ${crypto.randomUUID()}`, bypassHookTrust: true }),
    cwd: w.folder,
    env: w.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const at = await w.until(
      () => sessionStartAt(w, agent.name, since) ?? undefined,
      `${agent.display}'s one-shot to run its SessionStart hook`,
      30_000,
    );
    return at - since;
  } finally {
    const timer = setTimeout(() => child.kill("SIGTERM"), 30_000);
    await child.status;
    clearTimeout(timer);
  }
}

function lifecycle(agent: AgentConfig, next: AgentConfig | undefined): Check {
  return {
    name: `${agent.display}: a launch is live; END closes its window and marks it killed; ` +
      (next ? `CONTINUE WITH starts ${next.display} with the predecessor named and links the rows; ` : "") +
      "RESUME reopens the same session id in the same transcript with source resume and the model asked for",
    async run() {
      const w = await liveWorld(next ? [agent, next] : [agent]);
      try {
        // both figures warm: a first run in fresh homes writes the agent's own files and fills the caches, and
        // is not counted
        await ownStartMs(w, agent);
        const own = await ownStartMs(w, agent);
        const first = `asm gate2 first turn ${crypto.randomUUID()}`;
        const started = await launch(w, agent, { prompt: first });
        const live = await w.waitLive(started.token);
        const timing = launchToLiveVerdict({ agent: agent.display, liveMs: live.ms, ownStartMs: own });
        console.log(`  ${timing.line}`);
        await w.assertInWindow(agent, live, launchRow(w.server.ledger, started.token)!);
        const transcript = await w.until(() => {
          w.drain();
          const path = w.server.ledger.session(live.asmId)?.transcript_path ?? null;
          return path !== null && transcriptHolds(path, first) ? path : undefined;
        }, "the first turn in the session's transcript");

        // END: the consequence is counted here, not taken from END's own report
        const before = await w.windows();
        const ended = await w.post(`/api/sessions/${live.asmId}/end`);
        assert.equal(ended.status, 200, JSON.stringify(ended.body));
        assert.equal(await w.windows(), before - 1, "one window fewer");
        assert.deepEqual(
          [ended.body.window_closed, ended.body.windows_before, ended.body.windows_after],
          [true, before, before - 1],
        );
        assert.equal(running(live.pid, live.procStart), false, "the agent process is gone");
        w.drain();
        assert.equal(w.server.ledger.session(live.asmId)?.status, "killed");

        if (next) {
          const asked = `asm gate2 carry on ${crypto.randomUUID()}`;
          const cont = await launch(
            w,
            next,
            { agent: next.name, prompt: asked },
            `/api/sessions/${live.asmId}/continue`,
          );
          const successor = await w.waitLive(cont.token);
          const fake = w.fakes.get(next.name)!;
          const prompt = await w.until(
            () => fake.userTexts().find((t) => t.includes(asked)),
            `${next.display} got the handover prompt`,
          );
          assert.match(prompt, new RegExp(`^You are continuing work started in ${agent.display} session`));
          assert.equal(prompt.includes(live.agentSessionId) && prompt.includes(live.asmId), true, prompt);
          assert.equal(prompt.includes(transcript), true, "the prompt points at the work log");
          await w.until(
            () => {
              w.drain();
              const row = w.server.ledger.query(
                "SELECT continues_asm_id FROM sessions WHERE asm_id = ?",
                successor.asmId,
              );
              return row[0]?.continues_asm_id === live.asmId;
            },
            "the new row linked to its predecessor",
            15_000,
          );
        }

        const model = "asm-gate-model";
        const fake = w.fakes.get(agent.name)!;
        // the model travels in the body (Claude, Codex) or in the path (Gemini)
        const modelSeen = () =>
          fake.requests().some((r) => r.path.includes(model) || JSON.stringify(r.body).includes(model));
        assert.equal(modelSeen(), false, "no model flag was given at launch");
        const again = `asm gate2 resumed turn ${crypto.randomUUID()}`;
        const resumed = await launch(
          w,
          agent,
          { prompt: again, model },
          `/api/sessions/${live.asmId}/resume`,
        );
        const back = await w.waitLive(resumed.token);
        assert.equal(back.asmId, live.asmId, "the same row");
        assert.equal(back.agentSessionId, live.agentSessionId, "the same agent session id");
        assert.notEqual(back.pid, live.pid, "a new process");
        assert.equal(back.startSource, "resume", "SessionStart source resume");
        await w.until(() => transcriptHolds(transcript, again), "the resumed turn in the same transcript");
        await w.until(modelSeen, "the model asked for reached the model server");
        // last, so a slow start does not hide what the rest of the lifecycle found
        if (timing.failure) throw new Error(timing.failure);
      } finally {
        await w.close();
      }
    },
  };
}

function refusals(agent: AgentConfig): Check {
  return {
    name:
      `${agent.display}: send refuses a session whose pane cannot be proven, and END on a binary configured ` +
      "as shared refuses with a plain sentence",
    async run() {
      const shared = `${agent.name}-shared`;
      const copy: Record<string, unknown> = { ...agent, shared: true, tested: false };
      delete copy.name;
      const w = await liveWorld([agent], { extraAgents: { [shared]: copy } });
      // the real agent, running where asm has no window: a one-shot whose reply the fake holds back
      const command = findOnPath(agent.command, w.env)!;
      const child = new Deno.Command(command, {
        args: oneShotArgv(agent, { prompt: "SLOW:30000 asm gate2 outside", bypassHookTrust: true }),
        cwd: w.folder,
        env: w.env,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      try {
        const session = await w.until(() => {
          w.drain();
          const row = w.server.ledger.query(
            `SELECT r.asm_id, r.pid, r.proc_start FROM runs r JOIN sessions s USING (asm_id)
             WHERE s.agent = ? AND s.status = 'live' AND r.ended_at IS NULL LIMIT 1`,
            agent.name,
          )[0];
          return row
            ? { asmId: String(row.asm_id), pid: Number(row.pid), procStart: Number(row.proc_start) }
            : undefined;
        }, "the outside session to be live");
        const sent = await w.post(`/api/sessions/${session.asmId}/send`, { text: "/help" });
        assert.equal(sent.status, 409, JSON.stringify(sent.body));
        assert.match(String(sent.body.error), /cannot prove which tmux window runs this session/);

        // the same process, seen as an agent whose binary is configured as shared
        const sharedId = w.hookEvent({
          agent: shared,
          agent_session_id: `asm-gate-shared-${crypto.randomUUID()}`,
          agent_pid: session.pid,
          agent_proc_start: session.procStart,
        });
        const ended = await w.post(`/api/sessions/${sharedId}/end`);
        assert.equal(ended.status, 409, JSON.stringify(ended.body));
        assert.match(String(ended.body.error), /shared with another application.*never ends it/);
        assert.equal(running(session.pid, session.procStart), true, "nothing was signalled");
        assert.equal(w.server.ledger.session(sharedId)?.status, "live", "nothing was claimed");
      } finally {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
        await child.status;
        await w.close();
      }
    },
  };
}

/** The checks of Gate 2: the lifecycle per tested agent (continuing into the next one), then the refusals. */
export function gate2Checks(): Check[] {
  const agents = testedAgents();
  return [
    ...agents.map((a, i) => lifecycle(a, i === 0 ? agents[1] : undefined)),
    ...(agents.length ? [refusals(agents[0])] : []),
  ];
}
