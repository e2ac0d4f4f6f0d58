import assert from "node:assert/strict";
import { bindCard, linkOf } from "../ledger/mod.ts";
import { hookEvent } from "../ledger/_test_utils.ts";
import { type BoardWorld, boardWorld, card, refusedWith } from "./_test_utils.ts";
import { doneCard } from "./buttons.ts";
import { endCard, endThroughCard } from "./end.ts";
import { sweepOnce } from "./sweep.ts";

const pass = (w: BoardWorld) => sweepOnce(w.deps, { fresh: true, dryRun: false });

/** A card in IN PROCESS bound to a live session of its own; the session's asm id. */
function working(w: BoardWorld): string {
  const s = w.session("typist", "Fix login");
  bindCard(w.ledger, { cardId: "c1", asmId: s, origin: "start", at: "2026-11-29T22:00:00.000Z" });
  w.settle();
  w.trace.length = 0;
  return s;
}

const board = (w: BoardWorld) => ({ ...w.deps, wake: w.deps.wake });

Deno.test("END on a card: claim the card, mark killed, close the window, file the card to COMPLETE", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  const s = working(w);
  const result = await endCard(board(w), w.deps.actions, "c1");
  w.settle();
  assert.deepEqual(w.trace, [
    "claims: c1 (END)",
    `sessions: ${s.slice(0, 8)} killed`,
    "signal SIGTERM",
    "read fresh",
    "move c1 complete",
    `links: c1->${s} start completed`,
    "wake",
  ]);
  assert.deepEqual([result.status, result.exited, result.card], ["killed", true, {
    id: "c1",
    filed: true,
    problem: null,
  }]);
  assert.deepEqual(w.outliner.lists.complete.map((c) => c.id), ["c1"]);
});

Deno.test("END through the sessions door finds the card by its binding and files it the same way", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  const s = working(w);
  const result = await endThroughCard(board(w), w.deps.actions, s);
  assert.deepEqual(result.card, { id: "c1", filed: true, problem: null });
  assert.ok(w.trace.indexOf("claims: c1 (END)") < w.trace.indexOf("signal SIGTERM"));
  assert.deepEqual(w.outliner.lists.complete.map((c) => c.id), ["c1"]);
  assert.equal(linkOf(w.ledger, "c1")?.completed, true, "the binding stays, marked completed");
});

Deno.test("a pass right after END does not restore the card, and DONE waits for the killed session to leave", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  const s = working(w);
  await endThroughCard(board(w), w.deps.actions, s);
  // the seconds right after END: its claim is held until the session has left the live set
  await refusedWith(doneCard(w.deps, "c1"), /still closing after END/, "conflict");
  // a late hook event of the killed session does not bring it (or its card) back
  const row = w.ledger.session(s)!;
  w.ledger.applyEvent(hookEvent({
    agent: "typist",
    agent_session_id: row.agent_session_id,
    event: "Stop",
    cwd: w.folder,
    ts: new Date().toISOString(),
  }));
  for (const _ of [1, 2]) {
    const report = await pass(w);
    assert.deepEqual(report.actions, [], "no restore: the session is killed");
  }
  assert.deepEqual(w.outliner.lists.complete.map((c) => c.id), ["c1"]);
  assert.deepEqual(
    [...w.deps.claims.view().claimed],
    [],
    "the claim ended once the session left the live set",
  );
  await doneCard(w.deps, "c1");
  assert.equal(linkOf(w.ledger, "c1"), null);
});

Deno.test("END of a session without a card ends it as before; a refused END leaves the card and lets go", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  const lone = w.session("typist", "No card");
  const result = await endThroughCard(board(w), w.deps.actions, lone);
  assert.deepEqual([result.status, result.card], ["killed", null]);
  // a session whose process asm cannot prove (its pid is not the agent's program): refused, nothing moves
  w.ledger.applyEvent(hookEvent({
    agent: "typist",
    agent_session_id: "unprovable",
    cwd: w.folder,
    agent_pid: Deno.pid,
    agent_proc_start: 1,
    ts: new Date().toISOString(),
  }));
  const s = w.ledger.listSessions({ all: true }).find((r) => r.agent_session_id === "unprovable")!.asm_id;
  bindCard(w.ledger, { cardId: "c1", asmId: s, origin: "start", at: "2026-11-29T22:00:00.000Z" });
  w.trace.length = 0;
  await refusedWith(endThroughCard(board(w), w.deps.actions, s), /cannot prove/, "conflict");
  assert.deepEqual(w.outliner.lists.process.map((c) => c.id), ["c1"]);
  assert.ok(!w.trace.some((t) => /^(move|rename|signal)/.test(t)), JSON.stringify(w.trace));
  assert.deepEqual([...w.deps.claims.view().claimed], []);
  await refusedWith(endCard(board(w), w.deps.actions, "nothing"), /no session to end/, "conflict");
});

Deno.test("END still ends the session when its card cannot be filed, and says why", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  const s = working(w);
  w.outliner.edit((lists) => lists.process.splice(0, 1)); // the card deleted by hand meanwhile
  const result = await endThroughCard(board(w), w.deps.actions, s);
  assert.equal(result.status, "killed");
  assert.deepEqual(result.card, { id: "c1", filed: false, problem: "the card c1 is no longer on the board" });
});
