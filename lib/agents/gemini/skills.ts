/**
 * The skills Gemini CLI's harness records as run (docs/agents/skills.md). A skill runs through the CLI's own
 * `activate_skill` tool, whether the model calls it or the person types `/<skill>` in the interactive CLI (which
 * calls the tool itself); the CLI writes the call into the `toolCalls` of a `gemini` record with its `status`, and
 * `success` only when the skill exists and was loaded (an unknown name is `error`). Typing the words is a prompt,
 * never a tool call.
 * @module
 */
import { isRecord } from "../../lang/mod.ts";

/** The CLI's tool that loads a skill by name. */
export const ACTIVATE_SKILL = "activate_skill";

/** The skills a `gemini` record's tool calls loaded, in order: `activate_skill` calls that succeeded. */
export function geminiSkillsOf(record: Record<string, unknown>): string[] {
  const calls = record.toolCalls;
  if (!Array.isArray(calls)) return [];
  const names: string[] = [];
  for (const call of calls) {
    if (!isRecord(call) || call.name !== ACTIVATE_SKILL || call.status !== "success") continue;
    const name = isRecord(call.args) ? call.args.name : undefined;
    if (typeof name === "string" && name.trim() !== "") names.push(name.trim());
  }
  return names;
}
