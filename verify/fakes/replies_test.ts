import assert from "node:assert/strict";
import {
  compileRules,
  createReplyBook,
  decideReply,
  type Decision,
  excerpt,
  MOCK_SHELL_COMMAND,
  type ReplyRule,
  SKILL_PLACEHOLDER,
  type Turn,
} from "./replies.ts";

function turn(last: string, more: Partial<Turn> = {}): Turn {
  return {
    userTexts: [last],
    toolOutput: null,
    tools: ["Bash", "Read", "Skill"],
    shellTool: "Bash",
    ...more,
  };
}

const rules: ReplyRule[] = [
  { match: "^ping$", reply: { text: "pong" } },
  { match: "deploy", reply: { tool: { command: "touch deployed" } }, delayMs: 5 },
  { match: "teapot", reply: { status: 418, message: "short and stout" } },
  { match: "read it", reply: { tool: { name: "Read", input: { file_path: "/etc/hostname" } } } },
];

/** A skill tool as the Anthropic fake offers it, with a nested placeholder to show every string is filled. */
const SKILL_TOOL = { name: "Skill", input: { skill: SKILL_PLACEHOLDER, args: [SKILL_PLACEHOLDER] } };

const table: { situation: string; turn: Turn; want: Decision }[] = [
  {
    situation: "a plain prompt gets the numbered default reply",
    turn: turn("hello there"),
    want: { kind: "text", text: "Mock reply #7: hello there", delayMs: 0, numbered: true },
  },
  {
    situation: "a script rule wins over the default",
    turn: turn("ping"),
    want: { kind: "text", text: "pong", delayMs: 0, numbered: false },
  },
  {
    situation: "rules look at the last user text only",
    turn: turn("something else", { userTexts: ["ping", "something else"] }),
    want: { kind: "text", text: "Mock reply #7: something else", delayMs: 0, numbered: true },
  },
  {
    situation: "a tool rule fills the shell tool with its command and adds its delay",
    turn: turn("please deploy"),
    want: { kind: "tool", name: "Bash", input: null, command: "touch deployed", delayMs: 5 },
  },
  {
    situation: "a tool rule is skipped once its tool ran, so the agent gets text",
    turn: turn("please deploy", { toolOutput: "done" }),
    want: { kind: "text", text: "Mock saw tool output: done", delayMs: 0, numbered: false },
  },
  {
    situation: "a tool rule naming a tool the request does not offer is skipped",
    turn: turn("read it", { tools: ["Bash"] }),
    want: { kind: "text", text: "Mock reply #7: read it", delayMs: 0, numbered: true },
  },
  {
    situation: "a tool rule with a name and input passes them through",
    turn: turn("read it"),
    want: {
      kind: "tool",
      name: "Read",
      input: { file_path: "/etc/hostname" },
      command: MOCK_SHELL_COMMAND,
      delayMs: 0,
    },
  },
  {
    situation: "a status rule fails with its message",
    turn: turn("teapot"),
    want: { kind: "fail", status: 418, message: "short and stout", delayMs: 0 },
  },
  {
    situation: "FAIL_HTTP returns that status",
    turn: turn("now FAIL_HTTP:503 please"),
    want: { kind: "fail", status: 503, message: "mock failure 503", delayMs: 0 },
  },
  {
    situation: "USE_TOOL asks for the shell tool",
    turn: turn("USE_TOOL"),
    want: { kind: "tool", name: "Bash", input: null, command: MOCK_SHELL_COMMAND, delayMs: 0 },
  },
  {
    situation: "USE_TOOL after the tool ran answers with text quoting the output",
    turn: turn("USE_TOOL", { toolOutput: "mock-tool-ran\n" }),
    want: { kind: "text", text: "Mock saw tool output: mock-tool-ran", delayMs: 0, numbered: false },
  },
  {
    situation: "USE_TOOL without a shell tool on offer falls back to text",
    turn: turn("USE_TOOL", { tools: [], shellTool: null }),
    want: { kind: "text", text: "Mock reply #7: USE_TOOL", delayMs: 0, numbered: true },
  },
  {
    situation: "SLOW delays whatever reply is chosen, rules included",
    turn: turn("SLOW:250 deploy"),
    want: { kind: "tool", name: "Bash", input: null, command: "touch deployed", delayMs: 255 },
  },
  {
    situation: "USE_SKILL calls the agent's skill tool with the name put in",
    turn: turn("USE_SKILL wrap-up now", { skillCall: SKILL_TOOL }),
    want: {
      kind: "tool",
      name: "Skill",
      input: { skill: "wrap-up", args: ["wrap-up"] },
      command: MOCK_SHELL_COMMAND,
      delayMs: 0,
    },
  },
  {
    situation: "USE_SKILL after the skill ran answers with text quoting its output",
    turn: turn("USE_SKILL wrap-up", { skillCall: SKILL_TOOL, toolOutput: "Launching skill: wrap-up" }),
    want: {
      kind: "text",
      text: "Mock saw tool output: Launching skill: wrap-up",
      delayMs: 0,
      numbered: false,
    },
  },
  {
    situation: "USE_SKILL without a way to run a skill falls back to text",
    turn: turn("USE_SKILL wrap-up"),
    want: { kind: "text", text: "Mock reply #7: USE_SKILL wrap-up", delayMs: 0, numbered: true },
  },
  {
    situation: "USE_SKILL whose skill tool the request does not offer falls back to text",
    turn: turn("USE_SKILL wrap-up", { skillCall: SKILL_TOOL, tools: ["Bash"] }),
    want: { kind: "text", text: "Mock reply #7: USE_SKILL wrap-up", delayMs: 0, numbered: true },
  },
  {
    situation: "an earlier USE_TOOL does not trigger a tool for a later prompt",
    turn: turn("thanks", { userTexts: ["USE_TOOL", "thanks"] }),
    want: { kind: "text", text: "Mock reply #7: thanks", delayMs: 0, numbered: true },
  },
];

for (const row of table) {
  Deno.test(row.situation, () => {
    assert.deepEqual(decideReply(row.turn, compileRules(rules), 7), row.want);
  });
}

Deno.test("the default counter counts default replies only, and the base delay is added", () => {
  const book = createReplyBook({ script: [{ match: "ping", reply: { text: "pong" } }], delayMs: 3 });
  assert.deepEqual(book.decide(turn("ping")), { kind: "text", text: "pong", delayMs: 3, numbered: false });
  assert.equal((book.decide(turn("one")) as { text: string }).text, "Mock reply #1: one");
  assert.equal((book.decide(turn("two")) as { text: string }).text, "Mock reply #2: two");
});

Deno.test("userTexts keeps each distinct text once, in the order first seen", () => {
  const book = createReplyBook();
  book.decide(turn("a", { userTexts: ["a"] }));
  book.see(turn("b", { userTexts: ["a", "b"] }));
  book.decide(turn("c", { userTexts: ["a", "b", "c"] }));
  assert.deepEqual(book.userTexts(), ["a", "b", "c"]);
});

Deno.test("a malformed rule is refused with a sentence naming it", () => {
  assert.throws(
    () =>
      createReplyBook({
        script: [{ match: "ok", reply: { text: "" } }, { match: "(", reply: { text: "" } }],
      }),
    {
      message: /script rule 2 has an invalid match regex/,
    },
  );
  assert.throws(() => createReplyBook({ script: [{ match: "x", reply: {} as never }] }), {
    message: /script rule 1 needs a reply/,
  });
});

Deno.test("an excerpt keeps the head and the tail of a long text on one line", () => {
  assert.equal(excerpt("  short\n text "), "short text");
  const long = `${"h".repeat(50)}\n${"t".repeat(50)}`;
  assert.equal(excerpt(long), `${"h".repeat(40)}…${"t".repeat(40)}`);
});
