import assert from "node:assert/strict";
import { asmIdOf, sessionViews } from "../ledger/mod.ts";
import { claudePromptLine, importWorld } from "./_test_utils.ts";
import { newUnknownTypes } from "./read_file.ts";

const SID = "dddddddd-0000-4000-8000-00000000000d";
const REL = `.claude/projects/-p/${SID}.jsonl`;

function prompt(text: string): string {
  return claudePromptLine({ sessionId: SID, text, ts: "2026-11-29T10:00:00.000Z" }) + "\n";
}

Deno.test("a file rewritten in place and grown is read whole, not on from its old offset", async () => {
  await using w = importWorld();
  w.write(REL, prompt("one") + prompt("two"));
  await w.run();
  // same path, bigger, but what was already read changed: resuming would count the old lines' successors wrongly
  w.write(REL, prompt("uno") + prompt("dos") + prompt("tres"));
  const report = await w.run();
  assert.equal(report.files_resumed, 0);
  assert.equal(report.files_read, 1);
  const row = sessionViews(w.ledger, { all: true }).find((s) => s.asm_id === asmIdOf("claude", SID))!;
  assert.equal(row.turns, 3);
  assert.equal(row.title, "uno");
});

Deno.test("a file that only grew is read on from its offset: only the new bytes are read", async () => {
  await using w = importWorld();
  const first = prompt("one") + prompt("two");
  const path = w.write(REL, first);
  await w.run();
  Deno.writeTextFileSync(path, prompt("three"), { append: true });
  const report = await w.run();
  assert.equal(report.files_resumed, 1);
  assert.equal(report.bytes_read, prompt("three").length);
  assert.equal(sessionViews(w.ledger, { all: true })[0].turns, 3);
});

Deno.test("lines of types the reader does not know are counted per type, only what this read added", () => {
  assert.deepEqual(newUnknownTypes({}, {}), []);
  assert.deepEqual(newUnknownTypes({ a: 2 }, { a: 2 }), []);
  assert.deepEqual(newUnknownTypes({ a: 3, b: 1 }, { a: 1 }), [["a", 2], ["b", 1]]);
});
