import assert from "node:assert/strict";
import { BoardChanged } from "../board/mod.ts";
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
    ["c1"],
    "held while the killed session's run is open (the poll has not seen its process go yet)",
  );
  await refusedWith(doneCard(w.deps, "c1"), /still closing after END/, "conflict");
  // the poll sees the process gone: its run closes, and the next pass lets the claim go
  const open = w.ledger.runs(s).filter((r) => r.ended_at === null);
  assert.equal(open.length, 1);
  w.ledger.runsGone(s, open.map((r) => ({ pid: r.pid, proc_start: r.proc_start })), new Date().toISOString());
  assert.deepEqual((await pass(w)).released, ["c1"]);
  assert.deepEqual(
    [...w.deps.claims.view().claimed],
    [],
    "the claim ended once the session left the snapshot",
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

Deno.test("an END whose filing meets a busy board: a later pass files the card to COMPLETE, never drops it", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist #dropped")] });
  const s = working(w);
  const real = w.outliner;
  const busy = { ...real, move: () => Promise.reject(new BoardChanged("an editor saved meanwhile")) };
  const result = await endThroughCard({ ...board(w), outliner: busy }, w.deps.actions, s);
  assert.equal(result.status, "killed");
  assert.equal(result.card?.filed, false);
  assert.match(String(result.card?.problem), /changed 4 times in a row/);
  assert.deepEqual([linkOf(w.ledger, "c1")?.filing, linkOf(w.ledger, "c1")?.completed], [true, false]);
  // the poll sees the process gone, so END's claim ends; the next pass finishes END's write
  const open = w.ledger.runs(s).filter((r) => r.ended_at === null);
  w.ledger.runsGone(s, open.map((r) => ({ pid: r.pid, proc_start: r.proc_start })), new Date().toISOString());
  const report = await pass(w);
  assert.deepEqual(report.actions, [{ kind: "file", cardId: "c1" }]);
  assert.deepEqual(real.lists.complete.map((c) => c.name), ["Fix login #webapp #typist"], "untagged, filed");
  assert.deepEqual([real.lists.process.length, real.lists.plan.length], [0, 0], "never dropped");
  assert.deepEqual([linkOf(w.ledger, "c1")?.filing, linkOf(w.ledger, "c1")?.completed], [false, true]);
  assert.deepEqual((await pass(w)).actions, [], "and then left where it is");
});
