/**
 * Gate 3 with the board in Workflowy (live): one real agent (Claude Code, in a real tmux window against its
 * loopback fake) works a card a person typed in Workflowy, with formatting, through the loopback fake Workflowy
 * (config.toml `[board] backend = "workflowy"`, the key in a private file): START, the window killed (the card
 * drops to SPRINT PLAN with #dropped), RESUME (the same session; the card restored), END (the card in COMPLETE).
 * Every press goes through the server's POST routes and every pass is the server's own. The person's bold and
 * `&` survive every tag asm writes, and the prompt reaches the agent as typed.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { plainOf } from "../lib/board/mod.ts";
import { startFakeWorkflowy } from "./fakes/workflowy.ts";
import type { Check } from "./gate.ts";
import { cardWhere, killWindow, launchOf, logTail, press, windowsNow } from "./gate3.ts";
import { liveWorld, testedAgents } from "./live_world.ts";

const PROJECT = "gate";

/** The check. */
export function gate3WorkflowyChecks(): Check[] {
  const agent = testedAgents().find((a) => a.name === "claude");
  if (!agent) throw new Error("gate3-workflowy needs Claude Code among the tested agents");
  return [{
    name:
      "on a Workflowy board, a real agent's card goes START, dropped by a killed window, RESUME, END to " +
      "COMPLETE, its formatting and prompt kept",
    async run() {
      await using fake = await startFakeWorkflowy();
      const lists = {
        plan: fake.addList("SPRINT PLAN"),
        process: fake.addList("IN PROCESS"),
        complete: fake.addList("COMPLETE"),
      };
      const realList = fake.addList("the person's real SPRINT PLAN");
      const typed = "<b>Gate</b> card for Claude &amp; co #gate";
      const id = fake.typeByHand(lists.plan, typed, { children: ["asm gate3 workflowy &lt;first&gt; turn"] });
      const keys = Deno.makeTempDirSync({ prefix: "asm-gate-key-" });
      const keyFile = join(keys, "workflowy.key");
      Deno.writeTextFileSync(keyFile, fake.key, { mode: 0o600 });
      const w = await liveWorld([agent], {
        folders: [PROJECT],
        config: (folders) => ({
          board: {
            backend: "workflowy",
            key_file: keyFile,
            url: fake.url,
            lists,
            folders: { [PROJECT]: folders.get(PROJECT) },
          },
        }),
        drainEveryMs: 2000,
        // the person's real list, which a testing run must never touch: the guard names it
        asmFiles: {
          "real-lists.json": JSON.stringify({ v: 1, lists: [{ backend: "workflowy", location: realList }] }),
        },
      });
      try {
        await w.until(() => w.server.context.state.board.cadence().dry_run_done, "the server's dry run");
        const started = launchOf(
          await press(w, `/api/sprint/${id}/start`, { agent: agent.name, bypass_hook_trust: true }),
        );
        const live = await w.waitLive(started.token);
        await cardWhere(
          w,
          id,
          (at) => at.list === "process" && at.card.asm_id === live.asmId && at.card.status === "live",
          "the card IN PROCESS, bound to the live session",
        );
        assert.equal(fake.nameOf(id), `${typed} #${agent.tag}`, "tagged, the bold and the & kept");
        await w.until(
          () =>
            w.fakes.get(agent.name)!.userTexts().some((t) => t.includes("asm gate3 workflowy <first> turn")),
          "the card's prompt, unescaped once, at the agent's model",
        );

        await killWindow(w, started.windowId);
        await cardWhere(
          w,
          id,
          (at) => at.list === "plan" && at.card.dropped,
          "dropped after the window was killed",
        );
        assert.equal(fake.nameOf(id), `${typed} #${agent.tag} #dropped`);
        assert.equal(fake.childrenOf(lists.plan)[0], id, "at the top of SPRINT PLAN in Workflowy");

        const resumed = launchOf(await press(w, `/api/sprint/${id}/resume`, { bypass_hook_trust: true }));
        const back = await w.waitLive(resumed.token);
        assert.deepEqual(
          [back.asmId, back.agentSessionId],
          [live.asmId, live.agentSessionId],
          "the same session",
        );
        await cardWhere(w, id, (at) => at.list === "process" && !at.card.dropped, "restored to IN PROCESS");
        assert.equal(fake.nameOf(id), `${typed} #${agent.tag}`, "#dropped taken away, nothing else");

        const ended = await press(w, `/api/sprint/${id}/end`);
        assert.deepEqual(ended.card, { id, filed: true, problem: null });
        assert.equal(fake.node(id)?.parent_id, lists.complete, "in COMPLETE in Workflowy");
        assert.equal(plainOf(fake.nameOf(id)!), `Gate card for Claude & co #gate #${agent.tag}`);
        assert.ok(
          !Deno.readTextFileSync(join(w.asmHome, "server.log")).includes(fake.key),
          "the key in no log",
        );
      } catch (err) {
        console.log(logTail(w));
        console.log(await windowsNow(w));
        throw err;
      } finally {
        await w.close();
        Deno.removeSync(keys, { recursive: true });
      }
    },
  }];
}
