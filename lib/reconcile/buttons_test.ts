import assert from "node:assert/strict";
import { launchRow, linkOf } from "../ledger/mod.ts";
import { boardWorld, card, refusedWith } from "./_test_utils.ts";
import { continueCard, doneCard, resumeCard, startCard } from "./buttons.ts";
import { sweepOnce } from "./sweep.ts";

const pass = (w: ReturnType<typeof boardWorld>) => sweepOnce(w.deps, { fresh: true, dryRun: false });

/** The trace from the first entry matching `from` on. */
function since(trace: string[], from: RegExp): string[] {
  const at = trace.findIndex((t) => from.test(t));
  assert.ok(at >= 0, `no ${from} in ${JSON.stringify(trace)}`);
  return trace.slice(at);
}

Deno.test("START: claim, tag with the agent, move to IN PROCESS, bind, launch with the card's prompt", async () => {
  await using w = boardWorld({
    plan: [card("c1", "Fix login #webapp", ["Log in with a & b", 'then "quotes" and `ticks`'])],
  });
  const { launch } = await startCard(w.deps, "c1", { agent: "typist" });
  w.settle();
  assert.deepEqual(w.trace, [
    "read fresh",
    "claims: c1",
    "read fresh",
    'rename c1 "Fix login #webapp #typist"',
    "move c1 process",
    "links: c1->(launch) start",
    "launch",
    "wake",
  ]);
  assert.equal(Deno.readTextFileSync(launch.prompt_path!), 'Log in with a & b\nthen "quotes" and `ticks`');
  assert.deepEqual([launch.name, launch.folder, launch.model, launch.sprint_node], [
    "Fix login",
    w.folder,
    null,
    "c1",
  ]);
  assert.equal(launchRow(w.ledger, launch.token)?.sprint_node, "c1", "the launch names its card");
  assert.deepEqual([...w.deps.claims.view().claimed], ["c1"], "held until the session registers");
});

Deno.test("a pass between START's move and the session registering does not drop the card; then it binds", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #typist")] });
  const { launch } = await startCard(w.deps, "c1", {});
  const before = await pass(w);
  assert.deepEqual(before.actions, [], "the claimed card is skipped");
  assert.deepEqual(w.outliner.lists.process.map((c) => c.id), ["c1"]);
  const asmId = w.registered(launch.token, "typist", "Fix login");
  const after = await pass(w);
  assert.deepEqual([after.bound, after.released], [["c1"], ["c1"]]);
  assert.deepEqual(
    after.actions,
    [{ kind: "synced", cardId: "c1", title: "Fix login" }],
    "no drop, no new card",
  );
  assert.equal(linkOf(w.ledger, "c1")?.asmId, asmId);
  assert.deepEqual(w.outliner.lists.process.map((c) => c.id), ["c1"], "still in IN PROCESS, bound");
  assert.deepEqual([...w.deps.claims.view().claimed], []);
});

Deno.test("a START whose launch fails releases its claim and unbinds; the next pass drops the card", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #typist")] }, { hostFails: true });
  await refusedWith(startCard(w.deps, "c1", {}), /no window/);
  w.settle();
  assert.deepEqual(since(w.trace, /^move/), [
    "move c1 process",
    "links: c1->(launch) start",
    "launch",
    "claims: (none)",
    "links: (none)",
  ]);
  assert.equal(linkOf(w.ledger, "c1"), null);
  const next = await pass(w);
  assert.deepEqual(next.actions, [{ kind: "drop", cardId: "c1" }]);
  assert.equal(w.outliner.lists.plan[0].name, "Fix login #webapp #typist #dropped");
});

Deno.test("START of a card dropped without a session tags it with one write: the agent's tag on, #dropped off", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #dropped")] });
  await startCard(w.deps, "c1", { agent: "scribe" });
  assert.deepEqual(w.trace.filter((t) => /^(rename|move)/.test(t)), [
    'rename c1 "Fix login #webapp #scribe"',
    "move c1 process",
  ]);
});

Deno.test("START refuses with sentences and moves nothing", async () => {
  await using w = boardWorld({
    plan: [
      card("noproj", "No project #typist"),
      card("elsewhere", "Unknown project #mobile #typist"),
      card("noagent", "No agent #webapp"),
      card("dropped", "Dropped #webapp #typist #dropped"),
    ],
    process: [card("going", "Going #webapp #typist")],
  });
  const s = w.session("typist", "Dropped");
  w.ended(s);
  const { bindCard } = await import("../ledger/mod.ts");
  bindCard(w.ledger, { cardId: "dropped", asmId: s, origin: "start", at: "2026-11-29T22:00:00.000Z" });
  await refusedWith(startCard(w.deps, "going", {}), /^this card is already in IN PROCESS$/, "conflict");
  await refusedWith(startCard(w.deps, "dropped", {}), /already has a session: RESUME it/, "conflict");
  await refusedWith(startCard(w.deps, "noproj", {}), /names no project/, "conflict");
  await refusedWith(startCard(w.deps, "elsewhere", {}), /asm knows no folder for #mobile/, "conflict");
  await refusedWith(startCard(w.deps, "noagent", {}), /wears no agent's tag; choose an agent/, "invalid");
  await refusedWith(startCard(w.deps, "noagent", { agent: "nobody" }), /"nobody" is not an agent/, "invalid");
  await refusedWith(startCard(w.deps, "nope", {}), /there is no card nope/, "unknown");
  assert.ok(w.trace.every((t) => /^(read|links)/.test(t)), JSON.stringify(w.trace));
  assert.ok(!w.trace.some((t) => t.startsWith("claims")), "no claim was ever taken");
  assert.deepEqual([...w.deps.claims.view().claimed], []);
});

/** A card in the plan, #dropped, bound to a session that ended. */
async function droppedCard(w: ReturnType<typeof boardWorld>, agent = "typist"): Promise<string> {
  const { bindCard, markDropped } = await import("../ledger/mod.ts");
  const s = w.session(agent, "Fix login");
  w.ended(s);
  bindCard(w.ledger, { cardId: "c1", asmId: s, origin: "start", at: "2026-11-29T22:00:00.000Z" });
  markDropped(w.ledger, "c1", "2026-11-29T22:00:01.000Z");
  w.settle();
  w.trace.length = 0;
  return s;
}

Deno.test("RESUME: claim, untag, move, rebind, resume the SAME session id; no model key withholds the flag", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #typist #dropped", ["go"])] });
  const s = await droppedCard(w);
  const { launch } = await resumeCard(w.deps, "c1", {});
  w.settle();
  assert.deepEqual(w.trace, [
    "read fresh",
    "claims: c1",
    "read fresh",
    'rename c1 "Fix login #webapp #typist"',
    "move c1 process",
    `links: c1->${s} resume`,
    "launch",
    "wake",
  ]);
  assert.deepEqual([launch.kind, launch.resumes_asm_id, launch.agent, launch.model], [
    "resume",
    s,
    "typist",
    null,
  ]);
});

Deno.test("a RESUME whose launch fails releases its claim, keeps the binding, and the next pass drops the card again", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #typist #dropped", ["go"])] }, {
    hostFails: true,
  });
  const s = await droppedCard(w);
  await refusedWith(resumeCard(w.deps, "c1", {}), /no window/);
  w.settle();
  assert.deepEqual(since(w.trace, /^move/), [
    "move c1 process",
    `links: c1->${s} resume`,
    "launch",
    "claims: (none)",
  ]);
  assert.deepEqual([...w.deps.claims.view().claimed], [], "nothing claimed");
  assert.equal(linkOf(w.ledger, "c1")?.asmId, s, "the binding stays: RESUME can be pressed again");
  assert.deepEqual((await pass(w)).actions, [{ kind: "drop", cardId: "c1" }]);
  assert.equal(w.outliner.lists.plan[0].name, "Fix login #webapp #typist #dropped");
});

Deno.test("RESUME takes a model as a choice (an empty one is withheld) and refuses a live or never-started card", async () => {
  await using w = boardWorld({
    plan: [card("c1", "Fix login #webapp #typist #dropped"), card("c2", "Never #webapp #typist")],
  });
  await droppedCard(w);
  assert.equal((await resumeCard(w.deps, "c1", { model: "big-1" })).launch.model, "big-1");
  await refusedWith(resumeCard(w.deps, "c2", { model: "" }), /never had a session; START it/, "conflict");
  await using live = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  const { bindCard } = await import("../ledger/mod.ts");
  const s = live.session("typist", "Fix login");
  bindCard(live.ledger, { cardId: "c1", asmId: s, origin: "start", at: "2026-11-29T22:00:00.000Z" });
  await refusedWith(resumeCard(live.deps, "c1", {}), /still running; jump to its window/, "conflict");
  await refusedWith(
    continueCard(live.deps, "c1", { agent: "scribe" }),
    /still running; END it before/,
    "conflict",
  );
  await refusedWith(doneCard(live.deps, "c1"), /^its session is still open; END it first$/, "conflict");
});

Deno.test("CONTINUE WITH: claim, re-tag, untag, move, REBIND, launch naming the predecessor; one card, not two", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #typist #dropped", ["finish it"])] });
  const before = await droppedCard(w);
  await refusedWith(continueCard(w.deps, "c1", { agent: "typist" }), /another agent/, "invalid");
  const { launch } = await continueCard(w.deps, "c1", { agent: "scribe" });
  w.settle();
  assert.deepEqual(w.trace, [
    "read fresh",
    "read fresh",
    "claims: c1",
    "read fresh",
    'rename c1 "Fix login #webapp #scribe #dropped"',
    'rename c1 "Fix login #webapp #scribe"',
    "move c1 process",
    "links: c1->(launch) continue",
    "launch",
    "wake",
  ]);
  assert.deepEqual([launch.kind, launch.agent, launch.continues_asm_id, launch.name], [
    "continue",
    "scribe",
    before,
    "Fix login",
  ]);
  const prompt = Deno.readTextFileSync(launch.prompt_path!);
  assert.match(prompt, new RegExp(`^You are continuing work started in Typist session "Fix login"`));
  assert.match(prompt, /\n\nfinish it$/);
  const next = w.registered(launch.token, "scribe", "Fix login");
  const report = await pass(w);
  assert.deepEqual(report.bound, ["c1"]);
  assert.equal(linkOf(w.ledger, "c1")?.asmId, next);
  assert.equal(report.actions.filter((a) => a.kind === "create").length, 0);
  assert.equal(w.outliner.lists.process.length + w.outliner.lists.plan.length, 1, "one card, not two");
});

Deno.test("a CONTINUE WITH that cannot launch gives the card its predecessor back and lets go", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #typist #dropped")] }, {
    hostFails: true,
  });
  const before = await droppedCard(w);
  await refusedWith(continueCard(w.deps, "c1", { agent: "scribe" }), /no window/);
  assert.deepEqual(linkOf(w.ledger, "c1"), {
    cardId: "c1",
    asmId: before,
    origin: "start",
    syncedTitle: null,
    dropped: true,
    completed: false,
    filing: false,
  });
  assert.deepEqual([...w.deps.claims.view().claimed], []);
});

Deno.test("DONE: claim, untag, move to COMPLETE, unbind, release", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #typist #dropped")] });
  await droppedCard(w);
  assert.deepEqual(await doneCard(w.deps, "c1"), { card: "c1", list: "complete" });
  w.settle();
  assert.deepEqual(w.trace, [
    "read fresh",
    "claims: c1",
    "read fresh",
    'rename c1 "Fix login #webapp #typist"',
    "move c1 complete",
    "links: (none)",
    "wake",
    "claims: (none)",
  ]);
  await refusedWith(doneCard(w.deps, "c1"), /this card is done already/);
});

Deno.test("a card request's agent, model and card must exist; a prompt comes only from the card", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp")] });
  await refusedWith(
    startCard(w.deps, "c1", { agent: "typist", model: 7 }),
    /model must be a string/,
    "invalid",
  );
  await refusedWith(continueCard(w.deps, "c1", {}), /never had a session/, "conflict");
});
