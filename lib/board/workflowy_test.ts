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
  await sentence(
    () => w.board.read({ fresh: true }),
    /did not answer GET \/nodes within 500 ms; nothing was written from it/,
  );
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

Deno.test("an empty bullet is no card: never planned, never written", async () => {
  await using w = await world();
  const empty = w.fake.typeByHand(w.ids.process, "");
  const blank = w.fake.typeByHand(w.ids.process, "   ");
  const real = w.fake.typeByHand(w.ids.process, "A real card #webapp");
  const read = await w.board.read();
  assert.deepEqual(read.lists.process.map((c) => c.id), [real]);
  await assert.rejects(() => w.board.rename(empty, "#dropped", read.stamp), BoardChanged);
  assert.deepEqual([w.fake.nameOf(empty), w.fake.nameOf(blank)], ["", "   "]);
});

Deno.test("a read under way when a write lands is returned but not believed: the next read asks the service", async () => {
  await using w = await world();
  const id = w.fake.typeByHand(w.ids.plan, "Card #webapp");
  const first = await w.board.read();
  w.fake.slow(150);
  const reading = w.board.read({ fresh: true }); // sees the card in the plan
  await new Promise((r) => setTimeout(r, 20));
  w.fake.slow(0);
  w.fake.moveByHand(id, w.ids.complete, "top");
  await w.board.move(id, "complete", "top", first.stamp).catch(() => null); // the write this read overlaps
  await reading;
  w.fake.reset();
  const next = await w.board.read();
  assert.ok(w.fake.count() >= 3, "not served from a memo the overlapping read filled");
  assert.deepEqual(next.lists.complete.map((c) => c.id), [id]);
});

Deno.test("a fresh read reads a prompt again once it is 5 minutes old: a child edited alone shows up", async () => {
  await using w = await world();
  const id = w.fake.typeByHand(w.ids.plan, "Card #webapp", { children: ["old prompt"] });
  await w.board.read();
  const child = w.fake.childrenOf(id)[0];
  w.fake.renameByHand(child, "new prompt"); // the card's own node does not change
  w.clock.now += 61_000;
  assert.deepEqual(
    (await w.board.read({ fresh: true })).lists.plan[0].children,
    ["old prompt"],
    "within 5 min",
  );
  w.clock.now += 5 * 60_000;
  assert.deepEqual((await w.board.read({ fresh: true })).lists.plan[0].children, ["new prompt"]);
});

Deno.test("a write that fails spends the memo: the next read asks the service", async () => {
  await using w = await world({ timeoutMs: 300 });
  const id = w.fake.typeByHand(w.ids.plan, "Card #webapp");
  const read = await w.board.read();
  w.fake.slow(600); // the check's answer comes too late
  const err = await w.board.move(id, "process", "top", read.stamp).then(() => null, (e) => e as Error);
  w.fake.slow(0);
  assert.match(
    err?.message ?? "",
    /did not answer GET \/nodes\/:id within 300 ms; nothing was written from it/,
  );
  w.clock.now += 31_000; // past the back-off
  w.fake.reset();
  await w.board.read();
  assert.ok(w.fake.count() >= 3, "the memo was spent by the failed write");
});

Deno.test("a check and its write go back to back: the spacing waits before the check, never between the two", async () => {
  const waits: number[] = [];
  await using w = await world({ spacingMs: 200, sleep: (ms) => (waits.push(ms), Promise.resolve()) });
  const id = w.fake.typeByHand(w.ids.plan, "Card #webapp");
  const read = await w.board.read();
  waits.length = 0;
  await w.board.rename(id, "Card #webapp #claude", read.stamp);
  assert.equal(w.fake.count({ method: "POST" }), 1);
  assert.equal(waits.length, 1, `one wait, before the check: ${JSON.stringify(waits)}`);
});

Deno.test("a line break stored in a name: a tag rewrite keeps the formatting after it", async () => {
  await using w = await world();
  const id = w.fake.typeByHand(w.ids.plan, "A\n<b>bold</b> <i>it</i> #x");
  const read = await w.board.read();
  assert.equal(read.lists.plan[0].name, "A bold it #x");
  await w.board.rename(id, "A bold it #x #claude", read.stamp);
  assert.equal(w.fake.nameOf(id), "A <b>bold</b> <i>it</i> #x #claude");
});

Deno.test("the key file is opened as every outside path is: no link followed, no FIFO opened", async () => {
  await using w = await world();
  const target = join(w.dir, "elsewhere.key");
  Deno.writeTextFileSync(target, w.fake.key, { mode: 0o600 });
  Deno.removeSync(w.keyFile);
  Deno.symlinkSync(target, w.keyFile);
  await assert.rejects(() => w.board.read(), /Workflowy key file: .*workflowy\.key is a link/);
  Deno.removeSync(w.keyFile);
  new Deno.Command("mkfifo", { args: [w.keyFile] }).outputSync();
  Deno.chmodSync(w.keyFile, 0o600);
  await assert.rejects(() => w.board.read(), /Workflowy key file: .*not a regular file/);
  assert.equal(w.fake.count(), 0);
});

Deno.test("what comes back from the service is checked: an id that is no node id, a refusal that echoes the key", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-workflowy-hostile-" });
  const keyFile = join(dir, "key");
  Deno.writeTextFileSync(keyFile, "the-secret-key-1234", { mode: 0o600 });
  let answer: Response = new Response("{}");
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => answer.clone());
  try {
    const api = new WorkflowyApi({
      url: `http://127.0.0.1:${server.addr.port}/api/v1`,
      keyFile,
      spacingMs: 0,
    });
    answer = Response.json({ nodes: [{ id: "..", name: "x", priority: 0 }] });
    await assert.rejects(() => api.children("p"), /a node id that is not one/);
    answer = Response.json({ item_id: "../../x" });
    await assert.rejects(() => api.create("p", "x", "top"), /not a node id/);
    // a write whose answer never comes may have been carried out: the sentence says so
    const hanging = new WorkflowyApi({
      url: `http://127.0.0.1:${server.addr.port}/api/v1`,
      keyFile,
      spacingMs: 0,
      timeoutMs: 200,
    });
    answer = new Response(new ReadableStream({ start() {} })); // headers, then a body that never ends
    const lost = await hanging.move("node-1", "p", "top").then(() => null, (e) => e as Error);
    assert.match(lost?.message ?? "", /POST \/nodes\/:id\/move .*may have been carried out all the same/);
    answer = Response.json({ message: "bad header Bearer the-secret-key-1234" }, { status: 400 });
    const err = await api.children("p").then(() => null, (e) => e as Error);
    assert.match(err?.message ?? "", /refused GET \/nodes \(400: bad header Bearer <key>\)/);
    assert.ok(!err?.message.includes("the-secret-key-1234"));
  } finally {
    await server.shutdown();
    Deno.removeSync(dir, { recursive: true });
  }
});
