import assert from "node:assert/strict";
import { type JsonChatLimits, jsonChatScanner } from "./json_chat.ts";

/** What a scanner handed on, fed `text` line by line (the last line only when it ends in a newline). */
function scan(
  text: string,
  limits?: JsonChatLimits,
): { members: [string, unknown][]; messages: unknown[]; bad: number } {
  const seen = { members: [] as [string, unknown][], messages: [] as unknown[], bad: 0 };
  const scanner = jsonChatScanner({
    member: (key, value) => seen.members.push([key, value]),
    message: (m) => seen.messages.push(m),
    bad: () => seen.bad++,
  }, limits);
  const lines = text.split("\n");
  // as the byte pass does: a last line without a newline is never handed over
  lines.pop();
  for (const line of lines) scanner.line(line);
  scanner.end();
  return seen;
}

const CHAT = {
  sessionId: "s-1",
  startTime: "2026-12-01T19:30:19.260Z",
  messages: [
    { id: "a", type: "user", content: 'braces } ] { [ and "quotes" \\ in a string' },
    { id: "b", type: "gemini", content: "", toolCalls: [{ args: { path: "/x" }, result: [{ text: "]}" }] }] },
  ],
  directories: ["/projects/a", "/projects/b"],
  summary: "last member",
};

Deno.test("a pretty-printed chat hands on each member and each message, the last member without its closing line", () => {
  // the CLI's own writing: JSON.stringify(conversation, null, 2), no newline after the closing brace
  const seen = scan(JSON.stringify(CHAT, null, 2));
  assert.deepEqual(seen.members, [
    ["sessionId", "s-1"],
    ["startTime", "2026-12-01T19:30:19.260Z"],
    ["directories", ["/projects/a", "/projects/b"]],
    ["summary", "last member"],
  ]);
  assert.deepEqual(seen.messages, CHAT.messages);
  assert.equal(seen.bad, 0);
});

Deno.test("a chat on one line, or with its closing line, reads the same", () => {
  const expected = scan(JSON.stringify(CHAT, null, 2));
  assert.deepEqual(scan(`${JSON.stringify(CHAT)}\n`), expected);
  assert.deepEqual(scan(`${JSON.stringify(CHAT, null, 2)}\n`), expected);
  assert.deepEqual(scan(`${JSON.stringify(CHAT, null, "\t")}\n`), expected);
});

Deno.test("a chat cut mid-write keeps what was complete and counts the cut piece as bad", () => {
  const lines = JSON.stringify(CHAT, null, 2).split("\n");
  // cut inside the first message: the members before it, and the message never closed is bad
  const inFirst = lines.findIndex((l) => l.includes('"type": "user"'));
  assert.deepEqual(scan(`${lines.slice(0, inFirst + 1).join("\n")}\n`), {
    members: [["sessionId", "s-1"], ["startTime", "2026-12-01T19:30:19.260Z"]],
    messages: [],
    bad: 1,
  });
  // cut inside the summary string: it does not parse
  const text = JSON.stringify(CHAT, null, 2);
  const cut = scan(`${text.slice(0, text.indexOf("last member") + 4)}\n`);
  assert.equal(cut.messages.length, 2);
  assert.deepEqual(cut.members.map(([key]) => key), ["sessionId", "startTime", "directories"]);
  assert.equal(cut.bad, 1);
  // every cut point: never a throw, never more than was written
  for (let i = 0; i < text.length; i += 7) {
    const seen = scan(`${text.slice(0, i)}\n`);
    assert.ok(seen.messages.length <= 2 && seen.members.length <= 4 && seen.bad <= 1, `cut at ${i}`);
  }
});

Deno.test("a message that is not JSON is bad; the ones around it still count", () => {
  const text = [
    "{",
    '  "sessionId": "s-2",',
    '  "messages": [',
    '    {"id": "a", "type": "user", "content": "one"},',
    '    {"id": "b", "type": oops},',
    '    {"id": "c", "type": "user", "content": "three"}',
    "  ]",
    "}",
  ].join("\n");
  const seen = scan(text);
  assert.deepEqual(seen.messages.map((m) => (m as { id: string }).id), ["a", "c"]);
  assert.deepEqual(seen.members, [["sessionId", "s-2"]]);
  assert.equal(seen.bad, 1);
});

Deno.test("a message or member past the bounds is skipped, never held whole; the scan goes on after it", () => {
  const big = "x".repeat(300);
  const chat = {
    sessionId: "s-3",
    directories: [big],
    messages: [{ id: "a", type: "user", content: "small" }, { id: "b", type: "user", content: big }, {
      id: "c",
      type: "user",
      content: "after",
    }],
    summary: "kept",
  };
  const seen = scan(JSON.stringify(chat, null, 2), { memberChars: 200, messageChars: 200 });
  assert.deepEqual(seen.messages.map((m) => (m as { id: string }).id), ["a", "c"]);
  assert.deepEqual(seen.members, [["sessionId", "s-3"], ["summary", "kept"]], "the long list is skipped");
  assert.equal(seen.bad, 1, "the long message is counted");
});
