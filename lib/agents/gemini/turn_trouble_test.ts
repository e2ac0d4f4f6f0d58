import assert from "node:assert/strict";
import { join } from "node:path";
import { chatTurnFailure } from "./turn_trouble.ts";

/** A chat file Gemini CLI 0.61 wrote against a fake (the `$set` rewrites of the whole history left out). */
function captured(name: string): string {
  return Deno.readTextFileSync(
    join(import.meta.dirname!, "../../../verify/fixtures/turn_trouble/gemini", name),
  );
}

Deno.test("a Gemini chat whose turn ended on an API error reads failed with the message Gemini recorded", () => {
  assert.deepEqual(chatTurnFailure(captured("failed-400.chat.jsonl")), {
    message: '[API Error: {"error":{"code":400,"message":"mock failure 400","status":"INVALID_ARGUMENT"}}]',
    at: "2026-12-04T18:57:11.998Z",
  });
  // retried and answered: the reply is the newest record
  assert.equal(chatTurnFailure(captured("recovered-503x3.chat.jsonl")), null);
});

Deno.test("a new prompt after a failed turn ends it; a cut first line and notes are skipped", () => {
  const failed = captured("failed-400.chat.jsonl");
  const prompt = JSON.stringify({
    id: "p2",
    timestamp: "2026-12-04T18:58:00.000Z",
    type: "user",
    content: [{ text: "try again" }],
  });
  assert.equal(chatTurnFailure(`${failed}${prompt}\n`), null);
  const cut = `e":"error","content":"[API Error: old]"}\n{"id":"x","type":"info","content":"note"}\n`;
  assert.equal(chatTurnFailure(cut), null);
  assert.equal(chatTurnFailure(""), null);
});
