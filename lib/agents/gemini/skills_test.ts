import assert from "node:assert/strict";
import { geminiSkillsOf } from "./skills.ts";
import type { TranscriptFile } from "../../derive/mod.ts";
import { geminiFacts, geminiFold, summarise } from "./transcript.ts";

/** A tool call as Gemini CLI 0.61 writes it into a `gemini` record (docs/agents/skills.md), result left out. */
function call(name: string, args: Record<string, unknown>, status: string): Record<string, unknown> {
  return { id: `${name}__${name}_1796152813222_0`, name, args, status, displayName: "Activate Skill" };
}

function reply(...toolCalls: Record<string, unknown>[]): Record<string, unknown> {
  return {
    id: "1c46c10b-15c4-4dd6-aac6-24771a37f88b",
    timestamp: "2026-12-01T19:20:13.306Z",
    type: "gemini",
    content: "",
    model: "gemini-3.8-flash",
    toolCalls,
  };
}

const CASES: [string, Record<string, unknown>, string[]][] = [
  ["a skill the CLI loaded", reply(call("activate_skill", { name: "wrapup" }, "success")), ["wrapup"]],
  [
    "an unknown skill the CLI refused",
    reply(call("activate_skill", { name: "nosuch" }, "error")),
    [],
  ],
  [
    "only the activate_skill calls among others",
    reply(
      call("run_shell_command", { command: "cat /h/.gemini/skills/wrapup/SKILL.md" }, "success"),
      call("activate_skill", { name: "tidy" }, "success"),
    ),
    ["tidy"],
  ],
  ["a call without a name", reply(call("activate_skill", {}, "success")), []],
  ["a reply without tool calls", { type: "gemini", content: "activate_skill wrapup" }, []],
];

for (const [situation, record, want] of CASES) {
  Deno.test(`Gemini skills: ${situation}`, () => {
    assert.deepEqual(geminiSkillsOf(record), want);
  });
}

Deno.test("Gemini skills: the fold keeps a reply's loaded skills with its record", () => {
  assert.deepEqual(summarise(reply(call("activate_skill", { name: "wrapup" }, "success"))).skills, [
    "wrapup",
  ]);
  assert.equal(summarise(reply()).skills, undefined);
});

Deno.test("Gemini skills: a reply the CLI writes again with its tool calls counts its skill once", () => {
  const file = {
    agent: "gemini",
    path: "/h/.gemini/tmp/p/chats/session-x.jsonl",
    cwd: null,
  } as TranscriptFile;
  const fold = geminiFold(file, null);
  const { toolCalls: _, ...bare } = reply();
  const lines = [
    { sessionId: "s-1", startTime: "2026-12-01T19:20:13.169Z", kind: "main" },
    {
      id: "u-1",
      timestamp: "2026-12-01T19:20:13.213Z",
      type: "user",
      content: [{ text: "USE_SKILL wrapup" }],
    },
    bare,
    reply(call("activate_skill", { name: "wrapup" }, "success")),
  ];
  const bytes = new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join("\n"));
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x0a) continue;
    fold.line(bytes, start, i);
    start = i + 1;
  }
  assert.deepEqual(geminiFacts([fold.state()], [file]).skills, { wrapup: 1 });
});
