/**
 * Gemini CLI's `type:"user"` records (agents/gemini.md section 3): which hold what the person typed, which are
 * context the CLI or a hook put in the conversation, and which are tool results. The byte pass counts turns with
 * these rules, search labels records with them and the session page shows them, so all three agree.
 * @module
 */
import { isRecord } from "../../lang/mod.ts";

const HOOK_CONTEXT = /<hook_context>[\s\S]*?<\/hook_context>/g;

/** The text parts of a record's content (a string, or a list of parts), and whether it holds a tool call or result. */
export function partsText(content: unknown): { text: string; tool: boolean } {
  if (typeof content === "string") return { text: content, tool: false };
  if (!Array.isArray(content)) return { text: "", tool: false };
  const texts: string[] = [];
  let tool = false;
  for (const part of content) {
    if (!isRecord(part)) continue;
    if ("functionResponse" in part || "functionCall" in part) tool = true;
    if (typeof part.text === "string") texts.push(part.text);
  }
  return { text: texts.join("\n"), tool };
}

/**
 * The text a person typed in a user record (`displayContent` when present: what the person saw; else the text
 * parts; `<hook_context>` blocks removed), or null when the record is context or a tool result.
 */
export function typedGeminiText(record: Record<string, unknown>): string | null {
  const { text: raw, tool } = partsText(record.content);
  if (tool) return null;
  const shown = record.displayContent !== undefined ? partsText(record.displayContent).text : raw;
  if (shown.trimStart().startsWith("<session_context>")) return null;
  const text = shown.replace(HOOK_CONTEXT, "").trim();
  return text === "" ? null : text;
}
