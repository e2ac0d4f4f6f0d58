import assert from "node:assert/strict";
import { join } from "node:path";
import { type FakeWorkflowy, startFakeWorkflowy, storedName } from "../../verify/fakes/workflowy.ts";
import { BoardChanged, BoardUnusable, LIST_ROLES, type ListIds } from "./protocol.ts";
import { withoutTag, withTag, withTagOf } from "./grammar.ts";
import { escapeText, plainOf } from "./rich_text.ts";
import { type WorkflowyOutliner, workflowyOutliner } from "./workflowy.ts";
import { WorkflowyApi, type WorkflowyApiOptions } from "./workflowy_api.ts";

/** A fake Workflowy with the board's three lists, a private key file, an outliner over it, one clock. */
interface World extends AsyncDisposable {
  fake: FakeWorkflowy;
  ids: ListIds;
  board: WorkflowyOutliner;
  keyFile: string;
  dir: string;
  clock: { now: number };
  /** Another outliner on the same account (options of its API given). */
  outliner(api?: Partial<WorkflowyApiOptions>): WorkflowyOutliner;
}

async function world(api: Partial<WorkflowyApiOptions> = {}): Promise<World> {
  const clock = { now: Date.parse("2026-12-01T08:00:00Z") };
  const fake = await startFakeWorkflowy({ now: () => clock.now });
  const dir = Deno.makeTempDirSync({ prefix: "asm-workflowy-" });
  const keyFile = join(dir, "workflowy.key");
  Deno.writeTextFileSync(keyFile, fake.key + "\n", { mode: 0o600 });
  const ids = {
    plan: fake.addList("SPRINT PLAN"),
    process: fake.addList("IN PROCESS"),
    complete: fake.addList("COMPLETE"),
  };
  const outliner = (more: Partial<WorkflowyApiOptions> = {}) =>
    workflowyOutliner({
      lists: ids,
      clock: () => clock.now,
      api: new WorkflowyApi({
        url: fake.url,
        keyFile,
        clock: () => clock.now,
        spacingMs: 0,
        ...api,
        ...more,
      }),
    });
  return {
    fake,
    ids,
    board: outliner(),
    keyFile,
    dir,
    clock,
    outliner,
    async [Symbol.asyncDispose]() {
      await fake.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

Deno.test("a read: the three lists by node id, cards in priority order, names unescaped once, prompts as children", async () => {
  await using w = await world();
  const a = w.fake.typeByHand(w.ids.process, "Fix the <b>login</b> &amp; signup #webapp #claude", {
    children: ["Read the &lt;form&gt; first", "then the tests"],
  });
  const b = w.fake.typeByHand(w.ids.process, "Second card", { position: "bottom" });
  const c = w.fake.typeByHand(w.ids.process, "Top card", { position: "top" });
  w.fake.typeByHand(w.ids.complete, "Done #webapp");
  const read = await w.board.read();
  assert.deepEqual(
    read.lists.process.map((x) => x.id),
    [c, a, b],
    "sorted by priority, not as the service sent them",
  );
  assert.deepEqual(read.lists.process[1], {
    id: a,
    name: "Fix the login & signup #webapp #claude",
    children: ["Read the <form> first", "then the tests"],
  });
  assert.deepEqual(read.lists.plan, []);
  assert.equal(read.lists.complete[0].name, "Done #webapp");
  // three list reads and one prompt read per card
  assert.equal(w.fake.count(), 3 + 4);
});

Deno.test("reads are memoised 60 s and shared; a fresh read asks for the three lists and only the prompts that changed", async () => {
  await using w = await world();
  const a = w.fake.typeByHand(w.ids.plan, "One", { children: ["p1"] });
  w.fake.typeByHand(w.ids.plan, "Two", { children: ["p2"] });
  const first = await w.board.read();
  w.fake.reset();
  w.clock.now += 59_000;
  assert.equal((await w.board.read()).stamp, first.stamp);
  assert.equal(w.fake.count(), 0, "within 60 s: the memo");
  const [x, y] = await Promise.all([w.board.read({ fresh: true }), w.board.read({ fresh: true })]);
  assert.equal(x.stamp, y.stamp);
  assert.equal(w.fake.count(), 3, "two callers at once share one read of the three lists; no prompt changed");
  w.fake.renameByHand(a, "One, renamed");
  w.fake.reset();
  w.clock.now += 61_000;
  const after = await w.board.read();
  assert.equal(after.lists.plan[0].name, "One, renamed");
  assert.equal(w.fake.count(), 4, "the changed card's prompt is read again");
  assert.notEqual(after.stamp, first.stamp);
});

/** What a person typed, as the service stores typed text (no markup: `&`, `<`, `>` as references). */
function typed(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

const TRICKY = [
  "A & B",
  "a < b > c",
  "A &amp; B",
  "&lt;b&gt; stays",
  "**bold**",
  "[x](y)",
  "emoji 🚀 ünï",
  "- dash",
  "# hash",
];

Deno.test("escape once: titles a person typed read back identical after ten passes and a tag rewrite", async () => {
  await using w = await world();
  const ids = TRICKY.map((title) => w.fake.typeByHand(w.ids.process, typed(title) + " #webapp"));
  const formatted = w.fake.typeByHand(
    w.ids.process,
    '<b>Fix</b> the <a href="https://e.x/?a=1&amp;b=2">login</a> <mark class="colored c-red">now</mark> #webapp',
  );
  const storedBefore = w.fake.nameOf(formatted)!;
  for (let pass = 0; pass < 10; pass++) {
    const read = await w.board.read({ fresh: true });
    for (const [i, title] of TRICKY.entries()) {
      assert.equal(read.lists.process.find((c) => c.id === ids[i])!.name, `${title} #webapp`, `pass ${pass}`);
    }
  }
  const tags = ["claude", "codex"];
  let read = await w.board.read({ fresh: true });
  let stamp = read.stamp;
  for (const id of [...ids, formatted]) {
    const name = read.lists.process.find((c) => c.id === id)!.name;
    stamp = (await w.board.rename(id, withTagOf(name, tags, "claude"), stamp)).stamp;
  }
  read = await w.board.read({ fresh: true });
  for (const [i, title] of TRICKY.entries()) {
    assert.equal(read.lists.process.find((c) => c.id === ids[i])!.name, `${title} #webapp #claude`);
    assert.equal(
      plainOf(w.fake.nameOf(ids[i])!),
      `${title} #webapp #claude`,
      "as the person sees it in Workflowy",
    );
  }
  assert.equal(
    w.fake.nameOf(formatted),
    storedBefore + " #claude",
    "the person's bold, link and colour are kept; only the tag was added",
  );
  // and back: the tag swapped, then a drop's tag added and taken away
  stamp = read.stamp;
  const name = read.lists.process.find((c) => c.id === formatted)!.name;
  stamp = (await w.board.rename(formatted, withTagOf(name, tags, "codex"), stamp)).stamp;
  stamp = (await w.board.rename(formatted, withTag(withTagOf(name, tags, "codex"), "dropped"), stamp)).stamp;
  await w.board.rename(
    formatted,
    withoutTag(withTag(withTagOf(name, tags, "codex"), "dropped"), "dropped"),
    stamp,
  );
  assert.equal(w.fake.nameOf(formatted), storedBefore + " #codex");
});

Deno.test("escape once: a card asm creates, with a prompt of several lines, reads back as written", async () => {
  await using w = await world();
  let stamp = (await w.board.read()).stamp;
  const made: string[] = [];
  for (const title of TRICKY) {
    const created = await w.board.create("process", { name: `${title} #webapp`, children: [] }, "top", stamp);
    stamp = created.stamp;
    made.push(created.id);
  }
  const prompt = "Fix **this** & <that>\n[then](the) tests 🚀\n\n# and a last line";
  const withPrompt = await w.board.create(
    "plan",
    { name: "A card with a prompt", children: prompt.split("\n") },
    "bottom",
    stamp,
  );
  const read = await w.board.read({ fresh: true });
  for (const [i, title] of TRICKY.entries()) {
    assert.equal(read.lists.process.find((c) => c.id === made[i])!.name, `${title} #webapp`);
    assert.equal(plainOf(w.fake.nameOf(made[i])!), `${title} #webapp`);
    // the service parsed nothing asm sent: no bold, no link, no heading
    assert.doesNotMatch(w.fake.nameOf(made[i])!, /<(b|a|i|s|code)\b/);
    assert.equal(w.fake.node(made[i])!.data.layoutMode, "bullets");
  }
  assert.equal(read.lists.plan.find((c) => c.id === withPrompt.id)!.children.join("\n"), prompt);
  assert.equal((await w.board.prompt(withPrompt.id)).join("\n"), prompt);
  // and asm's own rich text goes through the service's parse unchanged in meaning
  for (const title of TRICKY) assert.equal(plainOf(storedName(escapeText(title)).name), title);
});

Deno.test("a hand edit in Workflowy since the read is never overwritten: the write is refused, nothing written", async () => {
  await using w = await world();
  const id = w.fake.typeByHand(w.ids.process, "Typed title #webapp");
  const read = await w.board.read();
  w.fake.renameByHand(id, "Retyped by hand #webapp");
  await assert.rejects(() => w.board.rename(id, "Typed title #webapp #claude", read.stamp), BoardChanged);
  assert.equal(w.fake.nameOf(id), "Retyped by hand #webapp");
  const again = await w.board.read({ fresh: true });
  w.fake.moveByHand(id, w.ids.complete, "top");
  await assert.rejects(() => w.board.move(id, "plan", "top", again.stamp), BoardChanged);
  assert.deepEqual(w.fake.childrenOf(w.ids.complete), [id], "left where the person put it");
  const latest = await w.board.read({ fresh: true });
  w.fake.deleteByHand(id);
  await assert.rejects(() => w.board.move(id, "plan", "top", latest.stamp), /deleted in Workflowy/);
  await assert.rejects(() => w.board.rename(id, "x", "a stamp from another read"), BoardChanged);
});

Deno.test("writes land where the protocol says; one that changes nothing is not sent", async () => {
  await using w = await world();
  const a = w.fake.typeByHand(w.ids.process, "A");
  const b = w.fake.typeByHand(w.ids.process, "B");
  let stamp = (await w.board.read()).stamp;
  w.fake.reset();
  assert.equal((await w.board.move(a, "process", "top", stamp)).stamp, stamp, "already at the top");
  assert.equal((await w.board.rename(a, "A", stamp)).stamp, stamp, "the same name");
  assert.equal(w.fake.count(), 0);
  stamp = (await w.board.move(b, "plan", "top", stamp)).stamp;
  stamp = (await w.board.move(a, "complete", "bottom", stamp)).stamp;
  assert.deepEqual(w.fake.childrenOf(w.ids.plan), [b]);
  assert.deepEqual(w.fake.childrenOf(w.ids.complete), [a]);
  assert.equal((await w.board.identify(stamp)).given.length, 0, "every node has its id already");
  const read = await w.board.read({ fresh: true });
  assert.equal(read.stamp, stamp, "the stamp a write returns is the board it left");
});

Deno.test("401, 429, 500, a timeout and malformed JSON: a sentence, nothing rewritten, the key in no sentence", async () => {
  await using w = await world({ timeoutMs: 500 });
  const id = w.fake.typeByHand(w.ids.process, "Keep me #webapp");
  const read = await w.board.read();
  const unchanged = () => assert.equal(w.fake.nameOf(id), "Keep me #webapp");
  const sentence = async (run: () => Promise<unknown>, pattern: RegExp) => {
    const err = await run().then(() => null, (e) => e);
    assert.ok(err instanceof BoardUnusable, String(err));
    assert.match(err.message, pattern);
    assert.ok(!err.message.includes(w.fake.key), "the key is in no sentence");
    unchanged();
    return err.message;
  };
  w.fake.failNext({ status: 401 });
  await sentence(
    () => w.board.rename(id, "Keep me #webapp #claude", read.stamp),
    /refused the API key in .*workflowy\.key \(401\)/,
  );
  w.fake.malformedNext(1);
  await sentence(() => w.board.read({ fresh: true }), /answered GET \/nodes with something that is not JSON/);
  w.fake.failNext({ status: 429, retryAfter: 120 });
  await sentence(
    () => w.board.read({ fresh: true }),
    /429 Too Many Requests; asm leaves Workflowy alone until/,
  );
  // while backing off, nothing is sent at all
  w.fake.reset();
  await sentence(() => w.board.rename(id, "Keep me #webapp #claude", read.stamp), /leaves Workflowy alone/);
  assert.equal(w.fake.count(), 0);
  w.clock.now += 121_000;
  assert.equal(
    (await w.board.read({ fresh: true })).lists.process[0].name,
    "Keep me #webapp",
    "after the back-off",
  );
  w.fake.failNext({ status: 500 });
  await sentence(() => w.board.read({ fresh: true }), /answered GET \/nodes with 500/);
  assert.ok(w.board.api.backoff(), "a 5xx backs off too");
  w.clock.now += 31_000;
  w.fake.hang(true);
  await sentence(() => w.board.read({ fresh: true }), /did not answer GET \/nodes within 1 s/);
  w.fake.hang(false);
  w.clock.now += 61_000; // the second failure in a row: 60 s
  const back = await w.board.read({ fresh: true });
  assert.equal(back.lists.process[0].name, "Keep me #webapp");
});

Deno.test("the key file: private, this user's, one key; every problem a sentence naming the file, not the key", async () => {
  await using w = await world();
  Deno.chmodSync(w.keyFile, 0o644);
  await assert.rejects(() => w.board.read(), /can be read by others \(mode 0644\).*chmod 600/);
  Deno.chmodSync(w.keyFile, 0o600);
  Deno.writeTextFileSync(w.keyFile, "\n");
  await assert.rejects(() => w.board.read(), /holds no key/);
  Deno.removeSync(w.keyFile);
  await assert.rejects(() => w.board.read(), /key file .*workflowy\.key does not exist/);
  assert.equal(w.fake.count(), 0, "no request without a key");
  // a new key works without a restart: it is read for every request
  Deno.writeTextFileSync(w.keyFile, w.fake.key, { mode: 0o600 });
  assert.deepEqual((await w.board.read()).lists.plan, []);
  // a list id the account does not have
  const wrong = workflowyOutliner({ lists: { ...w.ids, plan: "no-such-node" }, api: w.board.api });
  await assert.rejects(() => wrong.read(), /Workflowy has no node no-such-node, the board's plan list/);
});

Deno.test("an idle board reads the service about three times a minute: timer passes every 20 s use the 60 s memo", async () => {
  await using w = await world();
  for (const role of LIST_ROLES) {
    w.fake.typeByHand(w.ids[role], `a card in ${role}`, { children: ["a prompt"] });
  }
  await w.board.read();
  w.fake.reset();
  const minutes = 10;
  for (let t = 0; t < minutes * 3; t++) {
    w.clock.now += 20_000;
    await w.board.read();
  }
  const perMinute = w.fake.count() / minutes;
  assert.ok(perMinute <= 3, `${perMinute} requests a minute`);
  assert.ok(perMinute >= 1, "and it does read: a hand edit reaches the page within a minute");
});
