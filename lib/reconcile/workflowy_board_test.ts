/**
 * Gate 3's offline table with the board in Workflowy: the same planner, claims, buttons and write orders as the
 * Markdown board's tests, carried out against the loopback fake Workflowy (rich-text names, children unordered,
 * hand edits through the person's own door). Each card here was typed by a person, with formatting.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type FakeWorkflowy, startFakeWorkflowy } from "../../verify/fakes/workflowy.ts";
import {
  BoardUnusable,
  plainOf,
  WorkflowyApi,
  type WorkflowyOutliner,
  workflowyOutliner,
} from "../board/mod.ts";
import { linkOf } from "../ledger/mod.ts";
import { type BoardWorld, boardWorld } from "./_test_utils.ts";
import { resumeCard, startCard } from "./buttons.ts";
import { endThroughCard } from "./end.ts";
import { plan } from "./plan.ts";
import { sweepOnce } from "./sweep.ts";
import type { PlanInput } from "./types.ts";

interface Wf extends AsyncDisposable {
  w: BoardWorld;
  fake: FakeWorkflowy;
  board: WorkflowyOutliner;
  lists: { plan: string; process: string; complete: string };
  /** Where a card is now in Workflowy, and its name as the person sees it. */
  where(cardId: string): { list: string; plain: string; rich: string };
}

async function wfWorld(): Promise<Wf> {
  const fake = await startFakeWorkflowy();
  const lists = {
    plan: fake.addList("SPRINT PLAN"),
    process: fake.addList("IN PROCESS"),
    complete: fake.addList("COMPLETE"),
  };
  const dir = Deno.makeTempDirSync({ prefix: "asm-wf-board-" });
  const keyFile = join(dir, "key");
  Deno.writeTextFileSync(keyFile, fake.key, { mode: 0o600 });
  const board = workflowyOutliner({ lists, api: new WorkflowyApi({ url: fake.url, keyFile, spacingMs: 0 }) });
  const w = boardWorld({}, { outliner: board });
  const names = Object.fromEntries(Object.entries(lists).map(([role, id]) => [id, role]));
  return {
    w,
    fake,
    board,
    lists,
    where(cardId) {
      const node = fake.node(cardId)!;
      return { list: names[node.parent_id!] ?? "elsewhere", plain: plainOf(node.name), rich: node.name };
    },
    async [Symbol.asyncDispose]() {
      await w[Symbol.asyncDispose]();
      await fake.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

const pass = (w: BoardWorld) => sweepOnce(w.deps, { fresh: true, dryRun: false });

Deno.test("Workflowy board: START tags and moves the typed card keeping its bold, launches its prompt; the session binds it", async () => {
  await using t = await wfWorld();
  const id = t.fake.typeByHand(t.lists.plan, "<b>Fix</b> the login &amp; signup #webapp", {
    children: ["Read the &lt;form&gt; first", "then fix **it**"],
  });
  const { launch } = await startCard(t.w.deps, id, { agent: "typist" });
  assert.deepEqual(t.where(id), {
    list: "process",
    plain: "Fix the login & signup #webapp #typist",
    rich: "<b>Fix</b> the login &amp; signup #webapp #typist",
  });
  assert.equal(Deno.readTextFileSync(launch.prompt_path!), "Read the <form> first\nthen fix **it**");
  const s = t.w.registered(launch.token, "typist", "Fix the login & signup");
  const report = await pass(t.w);
  assert.deepEqual(report.bound, [id]);
  assert.equal(linkOf(t.w.ledger, id)?.asmId, s);
  assert.deepEqual(
    report.actions.filter((a) => a.kind !== "synced"),
    [],
    "a bound card with its title: nothing to do",
  );
  assert.equal(t.where(id).list, "process");
});

Deno.test("Workflowy board: a session gone drops its card to the plan with #dropped; RESUME untags and moves it back", async () => {
  await using t = await wfWorld();
  const id = t.fake.typeByHand(t.lists.plan, '<i>Polish</i> the <a href="https://e.x/">docs</a> #webapp', {
    children: ["go"],
  });
  const { launch } = await startCard(t.w.deps, id, { agent: "typist" });
  const s = t.w.registered(launch.token, "typist", "Polish the docs");
  await pass(t.w);
  t.w.ended(s);
  const dropped = await pass(t.w);
  assert.deepEqual(dropped.actions, [{ kind: "drop", cardId: id }]);
  assert.deepEqual(t.where(id), {
    list: "plan",
    plain: "Polish the docs #webapp #typist #dropped",
    rich: '<i>Polish</i> the <a href="https://e.x/">docs</a> #webapp #typist #dropped',
  });
  assert.equal(t.fake.childrenOf(t.lists.plan)[0], id, "at the top of the plan");
  assert.equal(linkOf(t.w.ledger, id)?.dropped, true);
  const again = await pass(t.w);
  assert.deepEqual(again.actions, [], "a dropped card stays dropped");
  const resumed = await resumeCard(t.w.deps, id, {});
  assert.deepEqual([resumed.launch.kind, resumed.launch.resumes_asm_id], ["resume", s]);
  assert.deepEqual(t.where(id), {
    list: "process",
    plain: "Polish the docs #webapp #typist",
    rich: '<i>Polish</i> the <a href="https://e.x/">docs</a> #webapp #typist',
  });
});

Deno.test("Workflowy board: END through the sessions door files the card to COMPLETE, where later passes leave it", async () => {
  await using t = await wfWorld();
  const id = t.fake.typeByHand(t.lists.plan, "Ship it #webapp");
  const { launch } = await startCard(t.w.deps, id, { agent: "typist" });
  const s = t.w.registered(launch.token, "typist", "Ship it");
  await pass(t.w);
  const ended = await endThroughCard(t.w.deps, t.w.deps.actions, s);
  assert.deepEqual(ended.card, { id, filed: true, problem: null });
  assert.equal(t.where(id).list, "complete");
  for (let i = 0; i < 2; i++) {
    const report = await pass(t.w);
    assert.deepEqual(report.actions.filter((a) => a.kind === "drop" || a.kind === "restore"), []);
  }
  assert.deepEqual(t.where(id), {
    list: "complete",
    plain: "Ship it #webapp #typist",
    rich: "Ship it #webapp #typist",
  });
  assert.deepEqual([linkOf(t.w.ledger, id)?.asmId, linkOf(t.w.ledger, id)?.completed], [s, true]);
});

Deno.test("Workflowy board: a hand edit between the pass's read and its write wins; the pass plans again from a fresh read", async () => {
  await using t = await wfWorld();
  const id = t.fake.typeByHand(t.lists.plan, "Typed #webapp");
  const { launch } = await startCard(t.w.deps, id, { agent: "typist" });
  const s = t.w.registered(launch.token, "typist", "Typed");
  await pass(t.w);
  t.w.ended(s);
  let edited = false;
  const planThenEdit = (input: PlanInput) => {
    const actions = plan(input);
    if (!edited) t.fake.renameByHand(id, "Retitled <b>by hand</b> #webapp #typist");
    edited = true;
    return actions;
  };
  const report = await sweepOnce(t.w.deps, { fresh: true, dryRun: false, plan: planThenEdit });
  assert.deepEqual(report.actions, [{ kind: "drop", cardId: id }], "planned again, still a drop");
  assert.deepEqual(t.where(id), {
    list: "plan",
    plain: "Retitled by hand #webapp #typist #dropped",
    rich: "Retitled <b>by hand</b> #webapp #typist #dropped",
  });
});

Deno.test("Workflowy board: a failed write releases the claim and says why; the card is where it was", async () => {
  await using t = await wfWorld();
  const id = t.fake.typeByHand(t.lists.plan, "Later #webapp");
  t.fake.failNext({ status: 500, times: 1 });
  await assert.rejects(
    () => startCard(t.w.deps, id, { agent: "typist" }),
    /Workflowy answered GET \/nodes with 500/,
  );
  assert.deepEqual([...t.w.deps.claims.view().claimed], [], "no claim held");
  assert.deepEqual(t.where(id), { list: "plan", plain: "Later #webapp", rich: "Later #webapp" });
});

Deno.test("Workflowy board: START reads the card's prompt before it writes anything; a failed read leaves the card as it was", async () => {
  await using t = await wfWorld();
  const id = t.fake.typeByHand(t.lists.plan, "Ship it #webapp", { children: ["go"] });
  // the prompt's read fails (a 500, a back-off) after the fresh read the refusal was checked on
  t.board.prompt = () => Promise.reject(new BoardUnusable("Workflowy answered GET /nodes with 500"));
  await assert.rejects(() => startCard(t.w.deps, id, { agent: "typist" }), /answered GET \/nodes with 500/);
  assert.deepEqual(t.where(id), { list: "plan", plain: "Ship it #webapp", rich: "Ship it #webapp" });
  assert.equal(linkOf(t.w.ledger, id), null, "no binding");
  assert.deepEqual([...t.w.deps.claims.view().claimed], [], "no claim held");
  const report = await pass(t.w);
  assert.deepEqual(report.actions, [], "nothing for the next pass to drop");
});
