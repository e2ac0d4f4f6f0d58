/**
 * What every agent's `viewLine` needs alike and no agent names: bounding the texts a transcript carries (a tool's
 * output can be megabytes; the page gets at most about 64 KiB of it), a tool input as compact JSON, a command
 * given as an argument list as one command line, the file an apply-patch text touches, and the input fields many
 * tools share (`file_path`, `pattern`, `query`...).
 *
 * Transcript strings are hostile: they are carried as text, cut and joined, never evaluated.
 * @module
 */
import type { ToolInput } from "../derive/mod.ts";
import { isRecord } from "../lang/mod.ts";

/** The most UTF-8 bytes a text of the page gets (a tool's output, a prompt, an edit's side). */
export const TEXT_BYTES = 64 * 1024;
/** The most UTF-8 bytes of a tool input's compact JSON. */
export const RAW_BYTES = 4 * 1024;
/** The most UTF-8 bytes of a one-line summary or a path. */
export const LINE_BYTES = 1024;

const ELLIPSIS = "…";
const ELLIPSIS_BYTES = 3;
const utf8 = new TextEncoder();

/**
 * `text` when its UTF-8 form fits in `maxBytes`, else its longest start that fits with a trailing "…" (never
 * cutting a character in two). Nothing else marks the cut.
 */
export function clipBytes(text: string, maxBytes: number = TEXT_BYTES): string {
  // every UTF-16 unit takes at most 3 bytes: short texts need no encoding at all
  if (text.length * 3 <= maxBytes) return text;
  const buf = new Uint8Array(maxBytes);
  if (utf8.encodeInto(text, buf).read === text.length) return text;
  // encodeInto stops before a character that does not fit, so the cut never splits one
  const { read } = utf8.encodeInto(text, buf.subarray(0, Math.max(0, maxBytes - ELLIPSIS_BYTES)));
  return text.slice(0, read) + ELLIPSIS;
}

/** A string clipped to `maxBytes`, or null for anything that is not a non-empty string. */
export function clippedString(value: unknown, maxBytes: number = TEXT_BYTES): string | null {
  return typeof value === "string" && value !== "" ? clipBytes(value, maxBytes) : null;
}

/** A value as compact JSON clipped to `maxBytes`; "" when it cannot be written (nesting too deep). */
export function rawJson(value: unknown, maxBytes: number = RAW_BYTES): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // a parsed value has no cycles and no BigInt: only a nesting deeper than the stack gets here
    return "";
  }
  return text === undefined ? "" : clipBytes(text, maxBytes);
}

/** The fields of a {@link ToolInput} an adapter found; each left out is null. */
export interface ToolFields {
  command?: string | null;
  path?: string | null;
  edit?: { before: string; after: string } | null;
  patch?: string | null;
  summary?: string | null;
}

/** A {@link ToolInput} from the fields an adapter found and the whole input (`raw`), every text bounded. */
export function toolInput(raw: unknown, fields: ToolFields = {}): ToolInput {
  const edit = fields.edit ?? null;
  return {
    command: clippedString(fields.command),
    path: clippedString(fields.path, LINE_BYTES),
    edit: edit === null ? null : { before: clipBytes(edit.before), after: clipBytes(edit.after) },
    patch: clippedString(fields.patch),
    summary: clippedString(fields.summary, LINE_BYTES),
    raw: rawJson(raw),
  };
}

/** The shells whose `-c` script is the command a person would read. */
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "fish"]);
/** A word the shell reads as itself (anything else is quoted when an argument list is written as one line). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

function shellWord(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command as one line: a string as it is; an argument list `["bash", "-lc", "<script>"]` as its script (what
 * ran); any other list of strings as its words, quoted where the shell would need it. Null for anything else.
 */
export function commandLine(value: unknown): string | null {
  if (typeof value === "string") return value === "" ? null : value;
  if (!Array.isArray(value) || value.length === 0 || !value.every((w) => typeof w === "string")) return null;
  const words = value as string[];
  const shell = words[0].split("/").pop() ?? "";
  if (words.length === 3 && SHELLS.has(shell) && /^-[a-z]*c$/.test(words[1])) return words[2];
  return words.map(shellWord).join(" ");
}

const PATCH_FILE = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/m;

/** The first file an apply-patch text names (`*** Update File: <path>`, `*** Add File:`...), or null. */
export function patchPath(patch: string): string | null {
  return patch.match(PATCH_FILE)?.[1].trim() || null;
}

/** True for text that reads as an apply-patch envelope. */
export function isPatchText(text: string): boolean {
  return text.trimStart().startsWith("*** Begin Patch");
}

/** The string at `key` when it is a non-empty string, else null (a hostile input may hold anything there). */
export function textAt(input: Record<string, unknown> | undefined, key: string): string | null {
  const value = input?.[key];
  return typeof value === "string" && value !== "" ? value : null;
}

/** The first of `keys` that holds a non-empty string. */
export function firstText(
  input: Record<string, unknown> | undefined,
  keys: readonly string[],
): string | null {
  for (const key of keys) {
    const value = textAt(input, key);
    if (value !== null) return value;
  }
  return null;
}

/** The keys tools of every agent use for the one file they act on. */
const FILE_KEYS = ["file_path", "absolute_path", "notebook_path"];
/** The keys tools use for a folder they search or list in. */
const FOLDER_KEYS = ["path", "dir_path", "directory"];
/** The keys that name a call in one line, most telling first. */
const SUMMARY_KEYS = ["pattern", "query", "url", "skill", "description", "prompt", "fact"];

/**
 * What a tool input says in the keys many tools share, for a tool an adapter has no rule for: the file it acts
 * on, a replaced text and its replacement, and a one-line summary (a search pattern "in" its folder, a query, a
 * URL...). Never a command: a `command` key of an unknown tool need not be a shell command.
 */
export function commonFields(input: unknown): ToolFields {
  if (!isRecord(input)) return {};
  const before = input.old_string;
  const after = input.new_string;
  const edit = typeof before === "string" && typeof after === "string" ? { before, after } : null;
  return { path: firstText(input, FILE_KEYS), edit, summary: locatedSummary(input) };
}

/** The summary of {@link commonFields}: `<pattern> in <folder>` when both are there. */
export function locatedSummary(input: Record<string, unknown>): string | null {
  const what = firstText(input, SUMMARY_KEYS);
  const where = firstText(input, FOLDER_KEYS);
  if (what !== null && where !== null) return `${what} in ${where}`;
  return what ?? (where === null ? null : `in ${where}`);
}

/** The text of a list of content blocks (`{type: "text", text}` and the like): their texts, one per line. */
export function blockTexts(blocks: unknown): string {
  if (typeof blocks === "string") return blocks;
  if (!Array.isArray(blocks)) return "";
  const parts: string[] = [];
  for (const block of blocks) {
    if (isRecord(block) && typeof block.text === "string") parts.push(block.text);
  }
  return parts.join("\n");
}
