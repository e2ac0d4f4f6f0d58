import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture, importWorld } from "../history/_test_utils.ts";
import { searchIndexTodo, searchReader, writeIndexChunk } from "../ledger/mod.ts";
import { buildSearchIndex, resumeAt, type SearchIndexContext, searchIndexService } from "./index_build.ts";
import { GEMINI_INTERACTIVE, placeSearchFixtures, searchWorld } from "./_test_utils.ts";

const TODO = { path: "p", agent: "a", asm_id: null, size: 100, mtime: "m", copy: null };

Deno.test("a file is indexed on from its offset when it grew, and again from 0 when new or shorter", () => {
  assert.deepEqual(resumeAt({ ...TODO, read_offset: 0, known: false }), { from: 0, reset: true });
  assert.deepEqual(resumeAt({ ...TODO, read_offset: 60, known: true }), { from: 60, reset: false });
  assert.deepEqual(resumeAt({ ...TODO, size: 40, read_offset: 60, known: true }), { from: 0, reset: true });
});

Deno.test("the index build is incremental: nothing to read when nothing changed, only the new lines of a grown file", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  const first = await buildSearchIndex(w.ledger, { agents: w.agents });
  assert.equal(first.files, 5);
  assert.ok(first.lines > 0 && first.bytes > 0);
  const again = await buildSearchIndex(w.ledger, { agents: w.agents });
  assert.deepEqual(again, { files: 0, lines: 0, bytes: 0, problems: 0 });

  const path = join(w.home, GEMINI_INTERACTIVE);
  const added = JSON.stringify({
    id: "added-1",
    timestamp: "2026-11-29T22:30:00.000Z",
    type: "gemini",
    content: "a later reply about omega",
  });
  Deno.writeTextFileSync(path, `${added}\n`, { append: true });
  await w.run();
  const grown = await buildSearchIndex(w.ledger, { agents: w.agents });
  assert.equal(grown.files, 1);
  assert.equal(grown.lines, 1, "only the appended line was read");
  assert.equal(grown.bytes, added.length + 1);
  const answer = searchWorld(w, { query: "omega", deep: true, all: true });
  assert.equal(answer.matches, 1);
  assert.equal(answer.scanned_files, 0, "the index answered");
});

Deno.test("a build stops at its byte budget and the rest waits for the next run, scanned meanwhile", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  const whole = searchWorld(w, { query: "mock", deep: true, all: true });
  const part = await buildSearchIndex(w.ledger, { agents: w.agents, maxBytesPerRun: 1, chunkBytes: 4096 });
  assert.equal(part.files, 1);
  const mixed = searchWorld(w, { query: "mock", deep: true, all: true });
  assert.ok(mixed.scanned_files > 0);
  assert.equal(mixed.indexed_files + mixed.scanned_files, whole.scanned_files);
  assert.deepEqual(mixed.sessions, whole.sessions);
  for (let i = 0; i < 50; i++) {
    if ((await buildSearchIndex(w.ledger, { agents: w.agents, chunkBytes: 4096 })).files === 0) break;
  }
  const done = searchWorld(w, { query: "mock", deep: true, all: true });
  assert.equal(done.scanned_files, 0);
  assert.deepEqual(done.sessions, whole.sessions, "indexed in small steps, the same matches");
});

Deno.test("the server's index service catches the index up with what the import read, and logs what it did", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  const ctx: SearchIndexContext = {
    ledger: w.ledger,
    asmHome: w.asmHome,
    env: w.env,
    log: (l: Record<string, unknown>) => logged.push(l),
  };
  const logged: Record<string, unknown>[] = [];
  await searchIndexService(ctx);
  assert.deepEqual(logged.map((l) => [l.what, l.files]), [["search index", 5]]);
  assert.equal(searchWorld(w, { query: "mock", deep: true, all: true }).scanned_files, 0);
  await searchIndexService(ctx);
  assert.equal(logged.length, 1, "nothing changed: nothing to log");
});

// the index's to-do list against what a real import recorded (lib/ledger's own tests have no import to run)
const line = (rec_id: string, text: string) => ({ rec_id, ts: null, kind: "assistant", text });
const chunk = { path: "/t.jsonl", asm_id: "s1", reset: false, dropped: [], read_offset: 10, caught_up: null };

Deno.test("a file stays on the index's to-do list until it caught up with import_state's size and mtime", async () => {
  await using w = importWorld();
  w.place(
    fixture("codex/rollouts/tui-chat-plus-tool-call.rollout.jsonl"),
    ".codex/sessions/2026/11/29/rollout-2026-11-29T22-13-44-01a2295f-0ad6-7852-afe2-883c2e6eae7a.jsonl",
  );
  await w.run();
  const [todo] = searchIndexTodo(w.ledger);
  assert.equal(todo.known, false);
  assert.equal(todo.read_offset, 0);
  const reader = searchReader(w.ledger);
  assert.deepEqual([...reader.files(true).values()].flat().map((f) => f.indexed), [false]);
  writeIndexChunk(w.ledger, { ...chunk, path: todo.path, asm_id: todo.asm_id, lines: [], read_offset: 5 });
  assert.equal(searchIndexTodo(w.ledger)[0].read_offset, 5, "part way: still to do");
  writeIndexChunk(w.ledger, {
    ...chunk,
    path: todo.path,
    asm_id: todo.asm_id,
    lines: [line("x", "an indexed reply")],
    read_offset: todo.size,
    caught_up: { size: todo.size, mtime: todo.mtime },
  });
  assert.deepEqual(searchIndexTodo(w.ledger), []);
  assert.deepEqual([...reader.files(true).values()].flat().map((f) => f.indexed), [true]);
  assert.deepEqual([...reader.indexedHits("indexed", { all: true, limit: 10 })].map((h) => h.text), [
    "an indexed reply",
  ]);
  assert.deepEqual([...reader.indexedHits("an", { all: true, limit: 10 })].length, 1, "two characters: LIKE");
});
