import assert from "node:assert/strict";
import {
  addSkill,
  addTurn,
  MAX_FOLDERS,
  MAX_UNKNOWN_TYPES,
  mentionPath,
  mergeFacts,
  newFacts,
  seenAt,
  skipUnknown,
} from "./facts.ts";

Deno.test("a turn lands on its UTC day, and the first one becomes the first message", () => {
  const f = newFacts("s");
  addTurn(f, "2026-11-29T23:59:59.000Z", "  hello  ");
  addTurn(f, "2026-11-30T00:00:01.000Z", "again");
  addTurn(f, null, "no time");
  assert.equal(f.turns, 3);
  assert.deepEqual(f.days, { "2026-11-29": 1, "2026-11-30": 1 });
  assert.equal(f.first_message, "hello");
});

Deno.test("only absolute paths are folders, trailing slashes go, and the list is bounded", () => {
  const f = newFacts();
  for (const p of ["/a/b/", "/a/b", "rel/x", 42, "", "/c\0d"]) mentionPath(f, p);
  assert.deepEqual(f.folders, { "/a/b": 2 });
  for (let i = 0; i < MAX_FOLDERS + 50; i++) mentionPath(f, `/p${i}`);
  assert.equal(Object.keys(f.folders).length, MAX_FOLDERS);
  addSkill(f, " mock-skill ");
  addSkill(f, "");
  assert.deepEqual(f.skills, { "mock-skill": 1 });
});

Deno.test("the facts of a session kept in two files add up, and the later file speaks for model and context", () => {
  const a = newFacts("s");
  seenAt(a, "2026-11-29T10:00:00.000Z");
  addTurn(a, "2026-11-29T10:00:00.000Z", "first");
  a.model = "old";
  a.context_tokens = 10;
  const b = newFacts("s");
  seenAt(b, "2026-11-30T10:00:00.000Z");
  addTurn(b, "2026-11-30T10:00:00.000Z", "later");
  b.model = "new";
  b.context_tokens = null;
  const m = mergeFacts([b, a]);
  assert.equal(m.turns, 2);
  assert.equal(m.first_message, "first");
  assert.equal(m.model, "new");
  assert.equal(m.context_tokens, 10, "null stays null: a file that says nothing does not erase a reading");
  assert.equal(m.started_at, "2026-11-29T10:00:00.000Z");
  assert.equal(m.last_seen, "2026-11-30T10:00:00.000Z");
});

Deno.test("unknown line types are counted by type, bounded, merged across files, and a state saved without them resumes", () => {
  const a = newFacts("s");
  skipUnknown(a, "progress");
  skipUnknown(a, "progress");
  skipUnknown(a, "x".repeat(100));
  assert.deepEqual(a.unknown_types, { progress: 2, [`${"x".repeat(80)}…`]: 1 });
  const b = newFacts("s");
  for (let i = 0; i < MAX_UNKNOWN_TYPES + 5; i++) skipUnknown(b, `t${i}`);
  assert.equal(Object.keys(b.unknown_types).length, MAX_UNKNOWN_TYPES);
  skipUnknown(b, "progress");
  assert.equal(b.unknown_types.progress, undefined, "past the bound a new type is skipped but not named");
  const old = newFacts("s") as Partial<ReturnType<typeof newFacts>>;
  delete old.unknown_types;
  skipUnknown(old as ReturnType<typeof newFacts>, "progress");
  assert.deepEqual(old.unknown_types, { progress: 1 });
  assert.deepEqual(mergeFacts([a, newFacts("s")]).unknown_types, a.unknown_types);
  assert.equal(mergeFacts([a, { ...a, unknown_types: { progress: 1 } }]).unknown_types.progress, 3);
});
