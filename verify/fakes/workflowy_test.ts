import assert from "node:assert/strict";
import {
  type ExportedNode,
  type FakeWorkflowy,
  startFakeWorkflowy,
  type StoredName,
  storedName,
  type WorkflowyNode,
} from "./workflowy.ts";

const KEY = "wf-key-fake-test-0123456789";

/** A clock a test moves by hand; starts at 2025-01-15T10:00:00Z. */
function testClock() {
  let t = Date.UTC(2025, 0, 15, 10, 0, 0);
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** One API call with the fake's key (or `key`); answers status and parsed body. */
async function api(
  fake: FakeWorkflowy,
  method: string,
  path: string,
  options: { body?: unknown; key?: string | null; signal?: AbortSignal } = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const key = options.key === undefined ? fake.key : options.key;
  const res = await fetch(fake.url + path, {
    method,
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function create(fake: FakeWorkflowy, body: Record<string, unknown>): Promise<string> {
  const res = await api(fake, "POST", "/nodes", { body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.item_id as string;
}

async function children(fake: FakeWorkflowy, parentId: string): Promise<WorkflowyNode[]> {
  const res = await api(fake, "GET", `/nodes?parent_id=${parentId}`);
  assert.equal(res.status, 200);
  return res.body.nodes as WorkflowyNode[];
}

/** Ids in the order a client gets by sorting on priority, as it must. */
function byPriority(nodes: WorkflowyNode[]): string[] {
  return [...nodes].sort((a, b) => a.priority - b.priority).map((n) => n.id);
}

/** Every tag kept as markup, once. */
const KEPT_TAGS = "<i>i</i><s>s</s><u>u</u><code>c</code>" +
  '<a href="https://e.x">e</a><span class="colored c-red">r</span>';

Deno.test("storedName stores a posted name the way the service does", () => {
  const plain = (name: string): StoredName => ({ name, layoutMode: null, children: [] });
  const rows: { input: string; stored: StoredName }[] = [
    // text is decoded once and re-escaped: a bare & and an escaped one end up the same
    { input: "A & B", stored: plain("A &amp; B") },
    { input: "A &amp; B", stored: plain("A &amp; B") },
    { input: "&amp;amp;", stored: plain("&amp;amp;") },
    { input: "<script>", stored: plain("&lt;script&gt;") },
    { input: "5 &lt; 6 &gt; 4", stored: plain("5 &lt; 6 &gt; 4") },
    { input: "&quot;q&quot; &#39;a&#39; &apos;b&apos;", stored: plain(`"q" 'a' 'b'`) },
    { input: "a&nbsp;b &#x41;&#66; &bogus; &#0;", stored: plain("a\u00a0b AB &amp;bogus; &amp;#0;") },
    // markdown is applied to the raw text, so an entity is never markup
    { input: "**x**", stored: plain("<b>x</b>") },
    { input: "&#42;&#42;x&#42;&#42;", stored: plain("**x**") },
    { input: "*i* ~~s~~ `c < d`", stored: plain("<i>i</i> <s>s</s> <code>c &lt; d</code>") },
    { input: "`**not bold**`", stored: plain("<code>**not bold**</code>") },
    { input: "2 * 3 * 4", stored: plain("2 * 3 * 4") },
    { input: "**a *b* c**", stored: plain("<b>a <i>b</i> c</b>") },
    { input: "[t](https://e.x/a)", stored: plain('<a href="https://e.x/a">t</a>') },
    {
      input: "[**t**](https://e.x/?a=1&b=2)",
      stored: plain('<a href="https://e.x/?a=1&amp;b=2"><b>t</b></a>'),
    },
    {
      input: "due [2025-01-15]",
      stored: plain('due <time startYear="2025" startMonth="1" startDay="15">Wed, Jan 15, 2025</time>'),
    },
    { input: "[2025-02-30]", stored: plain("[2025-02-30]") },
    // the kept tags stay markup, anything else that starts with < is text
    { input: "<b>x</b> y", stored: plain("<b>x</b> y") },
    { input: KEPT_TAGS, stored: plain(KEPT_TAGS) },
    { input: "<a href='https://e.x'>e</a>", stored: plain("&lt;a href='https://e.x'&gt;e</a>") },
    { input: "<b>**x**</b>", stored: plain("<b><b>x</b></b>") },
    { input: "**a<b>b</b>c**", stored: plain("**a<b>b</b>c**") },
    { input: "ship it 🚀 ✓", stored: plain("ship it 🚀 ✓") },
    // paragraphs: the first is the node, each later one a child; a single newline is a space
    { input: "one\ntwo", stored: plain("one two") },
    {
      input: "first\nline\n\nchild one\n\n\n- [x] child\ntwo\n",
      stored: { name: "first line", layoutMode: null, children: ["child one", "- [x] child\ntwo"] },
    },
    // layout prefixes are removed and set the layout
    { input: "# Big", stored: { name: "Big", layoutMode: "h1", children: [] } },
    { input: "## Mid", stored: { name: "Mid", layoutMode: "h2", children: [] } },
    { input: "### Small", stored: { name: "Small", layoutMode: "h3", children: [] } },
    { input: "- item", stored: { name: "item", layoutMode: "bullets", children: [] } },
    { input: "- [ ] task", stored: { name: "task", layoutMode: "todo", completed: false, children: [] } },
    { input: "- [x] done", stored: { name: "done", layoutMode: "todo", completed: true, children: [] } },
    { input: "> said", stored: { name: "said", layoutMode: "quote-block", children: [] } },
    { input: "# **Bold** & co", stored: { name: "<b>Bold</b> &amp; co", layoutMode: "h1", children: [] } },
    { input: "&#35; not a heading", stored: plain("# not a heading") },
    { input: "#tag -dash", stored: plain("#tag -dash") },
  ];
  for (const row of rows) assert.deepEqual(storedName(row.input), row.stored, row.input);
});

Deno.test("children come back out of priority order, and their priority fields order them", async () => {
  await using fake = await startFakeWorkflowy({ key: KEY });
  const list = fake.addList("Backlog");
  for (const count of [2, 3, 5]) {
    const parent = await create(fake, { parent_id: list, name: `parent of ${count}` });
    const made: string[] = [];
    for (let i = 0; i < count; i++) {
      made.push(await create(fake, { parent_id: parent, name: `c${i}`, position: "bottom" }));
    }
    const got = await children(fake, parent);
    const answered = got.map((n) => n.id);
    assert.notDeepEqual(answered, made, `${count} children are not answered in sibling order`);
    if (count > 2) assert.notDeepEqual(answered, [...made].reverse(), "nor simply reversed");
    assert.deepEqual(byPriority(got), made, "sorting by priority gives the sibling order");
    assert.deepEqual(fake.childrenOf(parent), made);
    assert.deepEqual(
      (await children(fake, parent)).map((n) => n.id),
      answered,
      "the scramble is deterministic",
    );
  }
  const root = await api(fake, "GET", "/nodes?parent_id=None");
  assert.deepEqual((root.body.nodes as WorkflowyNode[]).map((n) => n.id), [list]);
  const absent = await api(fake, "GET", "/nodes");
  assert.deepEqual((absent.body.nodes as WorkflowyNode[]).map((n) => n.parent_id), [null]);
});

Deno.test("create and move at the top or the bottom give the sibling order a client sorts to", async () => {
  const clock = testClock();
  await using fake = await startFakeWorkflowy({ key: KEY, now: clock.now });
  const todo = fake.addList("Todo");
  const done = fake.addList("Done");
  const a = await create(fake, { parent_id: todo, name: "a" }); // the default is the top
  const b = await create(fake, { parent_id: todo, name: "b", position: "top" });
  const c = await create(fake, { parent_id: todo, name: "c", position: "bottom" });
  assert.deepEqual(byPriority(await children(fake, todo)), [b, a, c]);

  clock.advance(5_000);
  const moved = await api(fake, "POST", `/nodes/${c}/move`, { body: { parent_id: todo, position: "top" } });
  assert.deepEqual(moved.body, { status: "ok" });
  assert.deepEqual(byPriority(await children(fake, todo)), [c, b, a]);
  await api(fake, "POST", `/nodes/${b}/move`, { body: { parent_id: todo, position: "bottom" } });
  assert.deepEqual(byPriority(await children(fake, todo)), [c, a, b]);
  await api(fake, "POST", `/nodes/${a}/move`, { body: { parent_id: done } }); // the default is the top
  assert.deepEqual(fake.childrenOf(todo), [c, b]);
  assert.deepEqual(fake.childrenOf(done), [a]);

  const node = (await api(fake, "GET", `/nodes/${c}`)).body.node as WorkflowyNode;
  assert.equal(node.modifiedAt, node.createdAt + 5, "a move bumps the moved node");
  assert.equal(fake.node(todo)?.modifiedAt, node.createdAt, "and not its parent (assumed)");
  assert.equal(node.parent_id, todo);

  const underItself = await api(fake, "POST", `/nodes/${todo}/move`, { body: { parent_id: c } });
  assert.equal(underItself.status, 400, "a node cannot move under its own descendant");
  assert.equal((await api(fake, "POST", `/nodes/${c}/move`, { body: { parent_id: c } })).status, 400);
  assert.equal((await api(fake, "POST", `/nodes/${c}/move`, { body: { parent_id: "nope" } })).status, 404);
  assert.deepEqual(fake.childrenOf(null), [todo, done], "a refused move changes nothing");
});

Deno.test("a posted name is stored parsed, with its layout, completion and child paragraphs", async () => {
  const clock = testClock();
  await using fake = await startFakeWorkflowy({ key: KEY, now: clock.now });
  const list = fake.addList("Backlog");
  const id = await create(fake, {
    parent_id: list,
    name: "- [x] **Ship** & tell\n\nstep one\n\n- [ ] step two",
  });
  const node = fake.node(id)!;
  assert.equal(node.name, "<b>Ship</b> &amp; tell");
  assert.equal(node.data.layoutMode, "todo");
  assert.equal(node.completedAt, Math.floor(clock.now() / 1000));
  const [one, two] = fake.childrenOf(id);
  assert.equal(fake.nameOf(one), "step one");
  assert.equal(fake.node(one)?.data.layoutMode, "bullets", "no prefix: bullets (assumed)");
  assert.equal(fake.nameOf(two), "step two");
  assert.equal(fake.node(two)?.completedAt, null);

  const explicit = await create(fake, {
    parent_id: list,
    name: "# Title",
    layoutMode: "board",
    note: "**n**",
  });
  assert.equal(fake.node(explicit)?.data.layoutMode, "board", "an explicit layoutMode wins over a prefix");
  assert.equal(fake.node(explicit)?.note, "**n**", "a note is stored as sent (assumed)");

  clock.advance(7_000);
  const updated = await api(fake, "POST", `/nodes/${explicit}`, { body: { name: "*new*\n\nlater" } });
  assert.deepEqual(updated.body, { status: "ok" });
  const after = fake.node(explicit)!;
  assert.equal(after.name, "<i>new</i>");
  assert.equal(after.modifiedAt, after.createdAt + 7, "a write bumps modifiedAt");
  assert.equal(fake.node(list)?.modifiedAt, after.createdAt, "the parent is not bumped (assumed)");
  assert.deepEqual(fake.childrenOf(explicit).map((c) => fake.nameOf(c)), ["later"]);

  assert.equal((await api(fake, "POST", "/nodes", { body: { parent_id: list } })).status, 400, "no name");
  const orphan = await api(fake, "POST", "/nodes", { body: { parent_id: "nope", name: "x" } });
  assert.equal(orphan.status, 404);
  assert.equal(typeof orphan.body.error, "string");
  assert.equal(typeof orphan.body.message, "string");
  assert.equal((await api(fake, "GET", "/nodes?parent_id=nope")).status, 404);
  assert.equal((await api(fake, "GET", "/nodes/nope")).status, 404);
  assert.equal((await api(fake, "POST", `/nodes/${explicit}`, { body: { title: "x" } })).status, 400);

  clock.advance(1_000);
  await api(fake, "POST", `/nodes/${two}/complete`);
  assert.equal(fake.node(two)?.completedAt, Math.floor(clock.now() / 1000));
  await api(fake, "POST", `/nodes/${id}/uncomplete`);
  assert.equal(fake.node(id)?.completedAt, null);
  assert.deepEqual((await api(fake, "DELETE", `/nodes/${id}`)).body, { status: "ok" });
  assert.equal(fake.node(id), null);
  assert.equal(fake.node(one), null, "a delete takes the subtree");
});

Deno.test("a request without the key or with a wrong one is 401, and the key is never logged", async () => {
  await using fake = await startFakeWorkflowy({ key: KEY });
  const missing = await api(fake, "GET", "/nodes", { key: null });
  assert.equal(missing.status, 401);
  assert.equal(missing.body.error, "unauthorized");
  assert.equal(typeof missing.body.message, "string");
  const wrong = await api(fake, "GET", "/nodes", { key: "wf-key-someone-else" });
  assert.equal(wrong.status, 401);
  const ok = await api(fake, "POST", "/nodes", { body: { name: `pasted ${KEY} by mistake` } });
  assert.equal(ok.status, 200);

  assert.deepEqual(fake.requests().map((r) => r.status), [401, 401, 200]);
  assert.equal(fake.count({ status: 401 }), 2);
  assert.ok(
    !JSON.stringify(fake.requests()).includes(KEY),
    "the key is never recorded, not even from a body",
  );
  fake.reset();
  assert.equal(fake.count(), 0);
});

Deno.test("failNext answers 429 with Retry-After, then the next request succeeds", async () => {
  await using fake = await startFakeWorkflowy({ key: KEY });
  const list = fake.addList("Backlog");
  fake.failNext({ status: 429, retryAfter: 7 });
  const limited = await api(fake, "POST", "/nodes", { body: { parent_id: list, name: "x" } });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("retry-after"), "7");
  assert.deepEqual(fake.childrenOf(list), [], "a faulted request is not carried out");
  const retried = await api(fake, "POST", "/nodes", { body: { parent_id: list, name: "x" } });
  assert.equal(retried.status, 200);
  assert.equal(fake.childrenOf(list).length, 1);

  fake.failNext({ status: 503, times: 2 });
  assert.equal((await api(fake, "GET", "/nodes")).status, 503);
  const second = await api(fake, "GET", "/nodes");
  assert.equal(second.status, 503);
  assert.equal(second.headers.get("retry-after"), null, "no Retry-After unless given");
  assert.equal((await api(fake, "GET", "/nodes")).status, 200);
  assert.deepEqual(fake.requests().map((r) => r.status), [429, 200, 503, 503, 200]);
  assert.equal(fake.count({ method: "POST", path: "/api/v1/nodes" }), 2);
});

Deno.test("malformedNext answers 200 with a body that is not JSON, then JSON again", async () => {
  await using fake = await startFakeWorkflowy({ key: KEY });
  fake.malformedNext(1);
  const res = await fetch(`${fake.url}/nodes`, { headers: { authorization: `Bearer ${KEY}` } });
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.throws(() => JSON.parse(text), SyntaxError);
  assert.deepEqual((await api(fake, "GET", "/nodes")).body, { nodes: [] });
});

Deno.test("slow delays the answer but carries the request out on arrival", async () => {
  await using fake = await startFakeWorkflowy({ key: KEY });
  const list = fake.addList("Backlog");
  fake.slow(150);
  const started = Date.now();
  assert.equal((await api(fake, "GET", "/nodes")).status, 200);
  assert.ok(Date.now() - started >= 140, "the answer waited");
  const cut = await api(fake, "POST", "/nodes", {
    body: { parent_id: list, name: "x" },
    signal: AbortSignal.timeout(50),
  }).then(() => "answered", (err) => err.name);
  assert.equal(cut, "TimeoutError");
  assert.equal(fake.childrenOf(list).length, 1, "the client gave up, the write still happened");
  fake.slow(0);
});

Deno.test("a hung request is ended by close, and nothing leaks", async () => {
  const fake = await startFakeWorkflowy({ key: KEY });
  fake.hang(true);
  const gaveUp = await api(fake, "GET", "/nodes", { signal: AbortSignal.timeout(100) })
    .then(() => "answered", (err) => err.name);
  assert.equal(gaveUp, "TimeoutError", "no answer until the client gives up");
  const waiting = fetch(`${fake.url}/nodes`, { headers: { authorization: `Bearer ${KEY}` } })
    .then(async (res) => {
      await res.body?.cancel();
      return "ended";
    }, () => "ended");
  await new Promise((r) => setTimeout(r, 50));
  await fake.close();
  assert.equal(await waiting, "ended", "close ends a request still hanging");
  assert.deepEqual(fake.requests().map((r) => r.status), [0, 0], "a hung request is logged unanswered");
});

Deno.test("nodes-export answers once a minute by the fake's clock", async () => {
  const clock = testClock();
  await using fake = await startFakeWorkflowy({ key: KEY, now: clock.now });
  const list = fake.addList("Done");
  fake.typeByHand(list, "finished", { completed: true });
  fake.typeByHand(list, "open");
  const first = await api(fake, "GET", "/nodes-export");
  assert.equal(first.status, 200);
  const nodes = first.body.nodes as ExportedNode[];
  assert.deepEqual(nodes.map((n) => [n.name, n.completed]), [["Done", false], ["finished", true], [
    "open",
    false,
  ]]);

  clock.advance(30_000);
  const again = await api(fake, "GET", "/nodes-export");
  assert.equal(again.status, 429);
  assert.equal(again.headers.get("retry-after"), "30");
  clock.advance(29_500);
  assert.equal((await api(fake, "GET", "/nodes-export")).headers.get("retry-after"), "1", "rounded up");
  clock.advance(500);
  assert.equal((await api(fake, "GET", "/nodes-export")).status, 200, "a minute later it answers again");
});

Deno.test("what a person does by hand changes the outline and is not counted as an API request", async () => {
  const clock = testClock();
  await using fake = await startFakeWorkflowy({ key: KEY, now: clock.now });
  const todo = fake.addList("Todo");
  const done = fake.addList("Done");
  const card = fake.typeByHand(todo, "**typed** &amp; kept", { children: ["<b>sub</b>"] });
  const first = fake.typeByHand(todo, "first", { position: "top" });
  assert.equal(fake.nameOf(card), "**typed** &amp; kept", "a rich name typed by hand is stored as given");
  assert.deepEqual(fake.childrenOf(todo), [first, card]);
  assert.equal(fake.nameOf(fake.childrenOf(card)[0]), "<b>sub</b>");

  clock.advance(3_000);
  fake.renameByHand(card, "<i>renamed</i>");
  fake.moveByHand(card, done, "top");
  fake.moveByHand(first, todo, 5); // an index past the end is the bottom
  fake.completeByHand(card);
  const gone = fake.typeByHand(done, "gone");
  fake.deleteByHand(gone);
  assert.equal(fake.count(), 0, "nothing done by hand is an API request");

  const seen = (await api(fake, "GET", `/nodes/${card}`)).body.node as WorkflowyNode;
  assert.equal(seen.name, "<i>renamed</i>");
  assert.equal(seen.parent_id, done);
  assert.equal(seen.modifiedAt, seen.createdAt + 3);
  assert.notEqual(seen.completedAt, null);
  assert.deepEqual(fake.childrenOf(done), [card]);
  assert.equal(fake.nameOf(gone), null);
  assert.throws(() => fake.moveByHand(done, card, "top"), /under itself or its own descendant/);
  assert.throws(() => fake.renameByHand("nope", "x"), /no node nope/);
  assert.equal(fake.count(), 1);
});
