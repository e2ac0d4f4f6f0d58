/**
 * The skills Codex's harness records as run (docs/agents/skills.md). When a person names a skill with `$name` (typed,
 * picked from the `$` popup, or in an `exec` prompt), Codex 0.169 loads its SKILL.md and writes it into the rollout
 * as a user-role message of its own, content kind `skills.selected_skill_instructions`, provenance `skills`:
 * `<skill>\n<name>NAME</name>\n<path>…/SKILL.md</path>\n…body…</skill>`. Only an existing skill is loaded. Typing those
 * tags by hand makes a `user.text` message instead, so only the kind counts.
 *
 * Not a run: the model reading a SKILL.md on its own (the skills instructions tell it to open the file with its
 * shell tool: an ordinary `exec_command`, no marker), and a prompt that names the skill without the `$`.
 * @module
 */
import { obj } from "../../derive/bytes.ts";
import { addSkill } from "../../derive/facts.ts";
import type { SessionFacts } from "../../derive/mod.ts";
import { isRecord } from "../../lang/mod.ts";

/** The content kind of the message Codex writes when it loads a skill the person named. */
export const SKILL_KIND = "skills.selected_skill_instructions";

const NAME = /^\s*<skill>\s*<name>([^<\n]+)<\/name>/;

/** The skills a response item shows the harness loaded (its `<skill>` parts of the skill kind), in order. */
export function codexSkillsOf(payload: Record<string, unknown>): string[] {
  if (payload.type !== "message" || payload.role !== "user") return [];
  const kinds = obj(payload, "internal_chat_message_metadata_passthrough")?.content_item_kinds;
  const content = payload.content;
  if (!Array.isArray(kinds) || !Array.isArray(content)) return [];
  const names: string[] = [];
  // the kinds run parallel to the content parts: each part says what it is
  content.forEach((part, i) => {
    if (kinds[i] !== SKILL_KIND || !isRecord(part) || typeof part.text !== "string") return;
    const name = NAME.exec(part.text)?.[1].trim();
    if (name) names.push(name);
  });
  return names;
}

/** Counts the skill runs a response item records into the session's facts. */
export function harvestCodexSkills(facts: SessionFacts, payload: Record<string, unknown>): void {
  for (const name of codexSkillsOf(payload)) addSkill(facts, name);
}
