import assert from "node:assert/strict";
import { sessionDocumentId, sessionDocumentLines } from "./session_document.ts";

const ID = "2215c8cf-6e9e-4a84-bea3-6dc30483e564";
const DOC = {
  session: { timestamp: "2026-12-01T19:45:48.835Z", id: ID, instructions: "" },
  items: [
    { role: "user", content: [{ type: "input_text", text: "hello" }], type: "message" },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Mock reply #1: hello" }] },
  ],
};

Deno.test("a TypeScript CLI session file is named rollout-<day>-<id>.json; a Rust rollout's name is not one", () => {
  assert.equal(sessionDocumentId(`rollout-2026-12-01-${ID}.json`), ID);
  assert.equal(sessionDocumentId(`rollout-2026-12-01T19-45-48-${ID}.jsonl`), null);
  assert.equal(sessionDocumentId(`rollout-2026-12-01T19-45-48-${ID}.json`), null);
  assert.equal(sessionDocumentId("history.json"), null);
});

Deno.test("the session document reads as a rollout before the envelope: its {id, timestamp} head, then its items", () => {
  const text = JSON.stringify(DOC, null, 2);
  const expected = [{ id: ID, timestamp: "2026-12-01T19:45:48.835Z" }, ...DOC.items];
  assert.deepEqual(sessionDocumentLines(text), expected);
  // the byte pass hands over the lines before the closing brace, which ends the file without a newline
  assert.deepEqual(sessionDocumentLines(text.slice(0, text.lastIndexOf("\n"))), expected);
});

Deno.test("text that is not a session document reads as none", () => {
  assert.equal(sessionDocumentLines(""), null);
  assert.equal(sessionDocumentLines('{\n  "session": {'), null);
  assert.equal(sessionDocumentLines(JSON.stringify({ session: { id: ID } })), null, "no items");
  assert.equal(sessionDocumentLines(JSON.stringify({ session: { id: 7 }, items: [] })), null, "no id");
  assert.deepEqual(
    sessionDocumentLines(JSON.stringify({ session: { id: ID }, items: [1, null, { type: "message" }] })),
    [{ id: ID, timestamp: undefined }, { type: "message" }],
    "only object items are lines",
  );
});
