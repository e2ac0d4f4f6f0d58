import assert from "node:assert/strict";
import { newFacts } from "../../derive/facts.ts";
import { codexSkillsOf, harvestCodexSkills, SKILL_KIND } from "./skills.ts";

/** The `<skill>` part Codex 0.169 wrote when `$wrapup` named an installed skill (docs/agents/skills.md). */
const WRAPUP =
  "<skill>\n<name>wrapup</name>\n<path>/tmp/skx/home/.codex/skills/wrapup/SKILL.md</path>\n---\n" +
  'name: wrapup\ndescription: Wraps up a session.\n---\n# Wrap up\nSay "wrapped up" and stop.\n\n</skill>';

function message(texts: string[], kinds: string[] | null, role = "user"): Record<string, unknown> {
  return {
    type: "message",
    role,
    content: texts.map((text) => ({ type: "input_text", text })),
    ...(kinds === null ? {} : { internal_chat_message_metadata_passthrough: { content_item_kinds: kinds } }),
  };
}

const CASES: [string, Record<string, unknown>, string[]][] = [
  ["the message Codex writes when it loads a named skill", message([WRAPUP], [SKILL_KIND]), ["wrapup"]],
  [
    "each part of the skill kind counts, a part of another kind does not",
    message([WRAPUP, "<skill>\n<name>tidy</name>\n</skill>", "<skill><name>x</name>"], [
      SKILL_KIND,
      SKILL_KIND,
      "user.text",
    ]),
    ["wrapup", "tidy"],
  ],
  ["the same tags typed by the person (a user.text part)", message([WRAPUP], ["user.text"]), []],
  ["a message without content kinds (no marker to trust)", message([WRAPUP], null), []],
  ["an assistant message", message([WRAPUP], [SKILL_KIND], "assistant"), []],
  ["a skill part without a name", message(["<skill>\n<path>/x/SKILL.md</path>"], [SKILL_KIND]), []],
  ["a tool call", { type: "function_call", name: "exec_command", arguments: "{}" }, []],
];

for (const [situation, payload, want] of CASES) {
  Deno.test(`Codex skills: ${situation}`, () => {
    assert.deepEqual(codexSkillsOf(payload), want);
  });
}

Deno.test("Codex skills: each loaded skill counts one run in the facts", () => {
  const facts = newFacts();
  harvestCodexSkills(facts, message([WRAPUP], [SKILL_KIND]));
  harvestCodexSkills(facts, message([WRAPUP], [SKILL_KIND]));
  harvestCodexSkills(facts, message([WRAPUP], ["user.text"]));
  assert.deepEqual(facts.skills, { wrapup: 2 });
});
