/**
 * Gate 3 (live): the board follows the REAL agents, in real tmux windows against their loopback fakes, on a
 * testing board (`$ASM_HOME/board.testing.md`), every press through the server's POST routes and every pass the
 * server's own (its poll, its drain, its sweep cadence). ONE world holds the three agents (CI time), each agent
 * working its own card side by side:
 *
 * - START makes the session live and moves the card to IN PROCESS, bound to it;
 * - DONE refuses while the session is open;
 * - killing the window (a person's X) drops the card to SPRINT PLAN with #dropped within a minute, binding kept;
 * - RESUME restores it, IN PROCESS, with the same agent session id;
 * - after a second kill, CONTINUE WITH the next agent yields one card (re-tagged, rebound), not two;
 * - END pressed on the sessions list files the card to COMPLETE, and it stays there across two more passes and
 *   a server restart (whose planner has no claim left and must not restore an ended session).
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { AgentConfig } from "../lib/agents/mod.ts";
import type { CardView, SprintPayload } from "../lib/reconcile/mod.ts";
import { snapshot } from "../lib/procs/mod.ts";
import type { Check } from "./gate.ts";
import { type LiveSession, type LiveWorld, liveWorld, testedAgents, transcriptHolds } from "./live_world.ts";

/** The project tag of the gate's cards, and the folder the world maps it to (config.toml's `[board] folders`). */
const PROJECT = "gate";

/** The testing board every card of the gate is written on: a person's hand-typed file, with prose around. */
export function gateBoard(agents: readonly AgentConfig[]): string {
  const cards = agents.map((a) =>
    `- Gate card for ${a.display} #${PROJECT} ^${cardOf(a)}\n  - asm gate3 ${a.name} first turn\n`
  ).join("");
  return `# Gate three\n\nProse a person wrote; it survives every write.\n\n## SPRINT PLAN ^asm-plan\n${cards}` +
    `## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete\n`;
}

function cardOf(agent: AgentConfig): string {
  return `gate-${agent.name}`;
}

/** The board as the server reads it now (`?fresh=1`). */
export async function board(w: LiveWorld): Promise<SprintPayload> {
  const res = await w.server.api("/api/sprint?fresh=1");
  assert.equal(res.status, 200, "GET /api/sprint");
  return await res.json();
}

/** Where a card is now, with its view; undefined when it is on no list. */
export async function cardNow(
  w: LiveWorld,
  id: string,
): Promise<{ list: string; card: CardView } | undefined> {
  for (const list of (await board(w)).board.lists) {
    const card = list.cards.find((c) => c.id === id);
    if (card) return { list: list.role, card };
  }
  return undefined;
}

/** A button pressed through the server's POST route, with the token; its answer (a 200 is asserted). */
export async function press(w: LiveWorld, path: string, body: Record<string, unknown> = {}) {
  const res = await w.post(path, body);
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The token of a card launch's answer (`{card, launch}`). */
export function launchOf(body: Record<string, unknown>): { token: string; windowId: string } {
  const launch = body.launch as { token: string; window_id: string };
  return { token: launch.token, windowId: launch.window_id };
}

/** The board's sweep passes so far on the server now. */
export function passes(w: LiveWorld): number {
  return w.server.context.state.board.cadence().passes;
}

/**
 * Waits for `n` more of the server's own passes than now. Each is asked for with a wake, as a button or a hand
 * edit asks (coalesced: at most one pass per settle window and minimum gap), so the gate does not wait out the
 * 20 s timer for each.
 */
export async function morePasses(w: LiveWorld, n: number, why: string): Promise<void> {
  const from = passes(w);
  await w.until(
    () => {
      w.server.context.state.board.wake();
      return passes(w) >= from + n;
    },
    `${n} more board passes (${why})`,
    90_000,
  );
}

/** Waits until the card sits where `holds` says, printing where it was when it did not. */
export async function cardWhere(
  w: LiveWorld,
  id: string,
  holds: (at: { list: string; card: CardView }) => boolean,
  why: string,
  timeoutMs = 60_000,
): Promise<{ list: string; card: CardView }> {
  let last: unknown = null;
  try {
    return await w.until(
      async () => {
        const at = await cardNow(w, id);
        last = at
          ? { list: at.list, tags: at.card.tags, asm_id: at.card.asm_id, status: at.card.status }
          : null;
        return at && holds(at) ? at : undefined;
      },
      why,
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; the card was last ${JSON.stringify(last)}`);
  }
}

/** The server log's last lines (what the sweep and the launches said), printed when a card went wrong. */
export function logTail(w: LiveWorld, lines = 60): string {
  try {
    return Deno.readTextFileSync(join(w.asmHome, "server.log")).trimEnd().split("\n").slice(-lines).join(
      "\n",
    );
  } catch (err) {
    return `(no server log: ${(err as Error).message})`;
  }
}

/** Every window left in the world's tmux server, with the last lines it shows (printed when a card went wrong). */
export async function windowsNow(w: LiveWorld): Promise<string> {
  const panes =
    (await w.tmux(["list-panes", "-a", "-F", "#{window_id} #{pane_id} #{pane_pid} #{pane_dead}"])).out;
  const shown: string[] = [`windows: ${panes.trim() || "none"}`];
  const procs = snapshot();
  for (const line of panes.split("\n").filter(Boolean)) {
    const [, pane, pid] = line.split(" ");
    for (let p = procs.get(Number(pid)), depth = 0; p; depth++) {
      shown.push(`${"  ".repeat(depth)}${p.pid} ${p.argv.join(" ").slice(0, 160)}`);
      p = [...procs.values()].find((c) => c.ppid === p!.pid);
    }
    const text = (await w.tmux(["capture-pane", "-p", "-t", pane])).out.trimEnd().split("\n").slice(-12);
    shown.push(`--- ${line}`, ...text);
  }
  return shown.join("\n");
}

/** A person's X on the window: tmux kills it. */
export async function killWindow(w: LiveWorld, windowId: string): Promise<void> {
  const killed = await w.tmux(["kill-window", "-t", windowId]);
  assert.equal(killed.ok, true, `tmux kill-window ${windowId}`);
}

/** One agent's card from START to END; a failure names the step it was at. */
async function workCard(w: LiveWorld, agent: AgentConfig, next: AgentConfig): Promise<LiveSession> {
  const step = { now: "START" };
  try {
    return await workSteps(w, agent, next, step);
  } catch (err) {
    throw new Error(`at ${step.now}: ${(err as Error)?.stack ?? err}`);
  }
}

async function workSteps(
  w: LiveWorld,
  agent: AgentConfig,
  next: AgentConfig,
  step: { now: string },
): Promise<LiveSession> {
  const id = cardOf(agent);
  const started = launchOf(
    await press(w, `/api/sprint/${id}/start`, { agent: agent.name, bypass_hook_trust: true }),
  );
  const live = await w.waitLive(started.token);
  const inProcess = await cardWhere(
    w,
    id,
    (at) => at.list === "process" && at.card.asm_id === live.asmId && at.card.status === "live",
    `${agent.display}'s card IN PROCESS, bound to its live session`,
  );
  assert.equal(inProcess.card.tags.includes(agent.tag), true, `the card wears #${agent.tag}`);
  assert.equal(w.server.ledger.session(live.asmId)?.cwd, w.folders.get(PROJECT), "started in #gate's folder");

  step.now = "DONE while open";
  const done = await w.post(`/api/sprint/${id}/done`);
  assert.equal(done.status, 409, `DONE while open: ${JSON.stringify(done.body)}`);
  assert.match(String(done.body.error), /still open; END it first/);
  assert.equal((await cardNow(w, id))?.list, "process", "a refused DONE moved nothing");

  // the card's prompt reached the agent's own transcript before the window goes: a session killed before its
  // first turn has nothing on disk to resume (RESUME then refuses, rightly), and no person closes a window that fast
  step.now = "the first turn";
  await w.until(() => {
    w.drain();
    const path = w.server.ledger.session(live.asmId)?.transcript_path ?? null;
    return transcriptHolds(path, `asm gate3 ${agent.name} first turn`) || undefined;
  }, `${agent.display}'s first turn in its transcript`);

  step.now = "the first kill";
  await killWindow(w, started.windowId);
  const dropped = await cardWhere(
    w,
    id,
    (at) => at.list === "plan" && at.card.dropped && at.card.tags.includes("dropped"),
    `${agent.display}'s card dropped to SPRINT PLAN with #dropped after its window was killed`,
  );
  assert.equal(dropped.card.asm_id, live.asmId, "the binding is kept through the drop");

  step.now = "RESUME";
  const resumed = launchOf(await press(w, `/api/sprint/${id}/resume`, { bypass_hook_trust: true }));
  const back = await w.waitLive(resumed.token);
  assert.deepEqual(
    [back.asmId, back.agentSessionId],
    [live.asmId, live.agentSessionId],
    "RESUME reopened the same session",
  );
  assert.equal(back.startSource, "resume", "SessionStart source resume");
  const restored = await cardWhere(
    w,
    id,
    (at) => at.list === "process" && at.card.status === "live",
    `${agent.display}'s card restored to IN PROCESS`,
  );
  assert.deepEqual(
    [restored.card.dropped, restored.card.asm_id],
    [false, live.asmId],
    "untagged, same binding",
  );

  step.now = "the second kill";
  await killWindow(w, resumed.windowId);
  await cardWhere(
    w,
    id,
    (at) => at.list === "plan" && at.card.dropped,
    `${agent.display}'s card dropped again`,
  );
  step.now = `CONTINUE WITH ${next.display}`;
  const handed = launchOf(
    await press(w, `/api/sprint/${id}/continue`, { agent: next.name, bypass_hook_trust: true }),
  );
  const successor = await w.waitLive(handed.token);
  assert.notEqual(successor.asmId, live.asmId, "CONTINUE WITH made a new session");
  const rebound = await cardWhere(
    w,
    id,
    (at) => at.list === "process" && at.card.asm_id === successor.asmId && at.card.status === "live",
    `${agent.display}'s card rebound to the ${next.display} session`,
  );
  assert.equal(rebound.card.tags.includes(next.tag), true, `re-tagged #${next.tag}`);
  assert.equal(rebound.card.tags.includes(agent.tag), false, `#${agent.tag} gone`);
  // a pass after the successor registered: it must not mint the successor a card of its own
  await morePasses(w, 1, "after the hand-over");
  const cards = (await board(w)).board.lists.flatMap((l) => l.cards);
  assert.deepEqual(
    cards.filter((c) => c.asm_id === successor.asmId).map((c) => c.id),
    [id],
    "one card for the handed-over work, not two",
  );
  assert.equal(
    cards.some((c) => c.title.includes(`gate3 ${agent.name}`) && c.id !== id),
    false,
    "no card minted from the prompt",
  );

  // END from the sessions list (not the card): the card is filed all the same
  step.now = "END from the sessions list";
  const ended = await press(w, `/api/sessions/${successor.asmId}/end`);
  if (ended.window_closed !== true) {
    throw new Error(`END left the window open: ${JSON.stringify(ended)}\n${await windowsNow(w)}`);
  }
  const filed = await cardNow(w, id);
  assert.equal(filed?.list, "complete", `END filed the card: ${JSON.stringify(filed)}`);
  return successor;
}

/**
 * The check of Gate 3: ONE world, each agent working its own card side by side; then two more passes, one
 * server restart and its first real pass, and every card must still be in COMPLETE. A failure names each agent
 * whose card went wrong.
 */
export function gate3Checks(): Check[] {
  const agents = testedAgents();
  return [{
    name:
      "for every agent, START puts its card IN PROCESS; DONE refuses while open; a killed window drops it " +
      "with #dropped; RESUME restores the same session; CONTINUE WITH the next agent keeps one card; END from " +
      "the sessions list files it to COMPLETE, where it stays across two passes and a restart",
    async run() {
      const w = await liveWorld(agents, {
        folders: [PROJECT],
        config: (folders) => ({ board: { folders: { [PROJECT]: folders.get(PROJECT) } } }),
        asmFiles: { "board.testing.md": gateBoard(agents) },
        // the server drains as `asm serve` does: the board follows hook events without the test's help
        drainEveryMs: 2000,
      });
      try {
        await w.until(() => w.server.context.state.board.cadence().dry_run_done, "the server's dry run");
        const worked = await Promise.allSettled(
          agents.map((agent, i) => workCard(w, agent, agents[(i + 1) % agents.length])),
        );
        const failed = worked.flatMap((r, i) =>
          r.status === "rejected" ? [`${agents[i].display}: ${(r.reason as Error)?.stack ?? r.reason}`] : []
        );
        if (failed.length) {
          console.log(logTail(w));
          console.log(await windowsNow(w));
          console.log(JSON.stringify(
            w.server.ledger.query(
              "SELECT token, kind, agent, resumes_asm_id, matched_asm_id, matched_by, expired, error FROM launches",
            ),
          ));
          throw new Error(`${failed.length} of ${agents.length} cards went wrong:\n${failed.join("\n")}`);
        }

        // every card in COMPLETE and nowhere else: the card ids of each list, read fresh
        const allFiled = async (why: string) => {
          const now = await board(w);
          assert.deepEqual(
            now.board.lists.map((l) => [l.role, l.cards.map((c) => c.id).sort()]),
            [["plan", []], ["process", []], ["complete", agents.map(cardOf).sort()]],
            why,
          );
          return now;
        };
        await morePasses(w, 2, "after every END");
        await allFiled("every card in COMPLETE after two more passes");
        await w.restartServer();
        await w.until(() => w.server.context.state.board.cadence().dry_run_done, "the new server's dry run");
        await morePasses(w, 1, "the first real pass after the restart");
        const after = await allFiled("every card still in COMPLETE after a restart");
        assert.equal(after.board.lists.flatMap((l) => l.cards).some((c) => c.dropped), false, "none dropped");
        for (const r of worked) {
          const successor = (r as PromiseFulfilledResult<LiveSession>).value;
          assert.equal(
            w.server.ledger.session(successor.asmId)?.status,
            "killed",
            "an ended session stays killed",
          );
        }
        const text = Deno.readTextFileSync(join(w.asmHome, "board.testing.md"));
        assert.equal(
          text.startsWith("# Gate three\n\nProse a person wrote; it survives every write.\n\n"),
          true,
        );
      } finally {
        await w.close();
      }
    },
  }];
}
