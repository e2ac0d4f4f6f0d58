/**
 * One key of config.toml set (or removed) in place, keeping every other line as the person wrote it (comments,
 * order, blank lines). Pure. The edit is proved, not trusted: the file before and after are both parsed and must
 * differ in exactly that key, else {@link TomlEditError} says which key to set by hand. So a layout the line edit
 * does not know (a dotted key, a `[board.lists]` table, a value spanning lines) is refused, never mangled.
 * @module
 */
import { parse } from "smol-toml";
import { errorText, isRecord } from "../lang/mod.ts";

/** The edit cannot be made safely; the message says what to set by hand. */
export class TomlEditError extends Error {
  override name = "TomlEditError";
}

/** A TOML basic string: JSON's escapes are TOML's, plus DEL, which TOML wants escaped too. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\x7f/g, "\\u007f");
}

/** An inline table of strings: `{ plan = "a", process = "b" }`. */
export function tomlInlineTable(values: Record<string, string>): string {
  return `{ ${Object.entries(values).map(([k, v]) => `${k} = ${tomlString(v)}`).join(", ")} }`;
}

const HEADER = /^\s*\[\[?\s*([^\][]+?)\s*\]\]?\s*(#[^\r]*)?\r?$/;

/** The sections of the text: [first line, end line) of the top level (name null) and of each table. */
function sections(lines: string[]): { name: string | null; start: number; end: number }[] {
  const out: { name: string | null; start: number; end: number }[] = [{
    name: null,
    start: 0,
    end: lines.length,
  }];
  lines.forEach((line, i) => {
    const m = HEADER.exec(line);
    if (!m) return;
    out[out.length - 1].end = i;
    out.push({ name: m[1].replace(/^"(.*)"$/, "$1"), start: i + 1, end: lines.length });
  });
  return out;
}

/** Keys sorted at every depth, so two parses compare by content, not by order. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      isRecord(v) && !Array.isArray(v) && !(v instanceof Date)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
        : v,
  );
}

function parsed(text: string, what: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new TomlEditError(`${what} is not valid TOML (${errorText(err).split("\n")[0]}); fix it first`);
  }
}

/**
 * `text` with `key` of `table` (null: the top level) set to the TOML value `value` (already rendered: see
 * {@link tomlString}), or removed when `value` is null. A key on its own line is replaced where it is (a trailing
 * comment kept when the old value is a simple one); a missing key goes after the last line of its table (a
 * missing table is added at the end). Throws {@link TomlEditError} when the result would be anything else.
 */
export function setTomlKey(text: string, table: string | null, key: string, value: string | null): string {
  if (!/^[A-Za-z0-9_-]+$/.test(key) || (table !== null && !/^[A-Za-z0-9_-]+$/.test(table))) {
    throw new TomlEditError(`${table === null ? key : `${table}.${key}`} is not a key asm edits`);
  }
  const before = parsed(text, "config.toml");
  const lines = text.split("\n");
  const section = sections(lines).find((s) => s.name === table) ?? null;
  const keyLine = new RegExp(`^(\\s*)(${key}|"${key}")\\s*=`);
  const simple = new RegExp(
    `^(\\s*(?:${key}|"${key}")\\s*=\\s*)("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[A-Za-z0-9_.:+-]+)(\\s*#.*)?$`,
  );
  let at = -1;
  if (section !== null) {
    for (let i = section.start; i < section.end; i++) if (keyLine.test(lines[i])) at = i;
  }
  // a file written with CRLF keeps its line ends: each line's "\r" is set aside while it is matched
  const cr = text.includes("\r\n") ? "\r" : "";
  const line = value === null ? null : `${key} = ${value}${cr}`;
  if (at >= 0) {
    if (line === null) lines.splice(at, 1);
    else {
      const ending = lines[at].endsWith("\r") ? "\r" : "";
      const m = simple.exec(lines[at].slice(0, lines[at].length - ending.length));
      lines[at] = m
        ? `${m[1]}${value}${m[3] ?? ""}${ending}`
        : `${keyLine.exec(lines[at])![1]}${key} = ${value}${ending}`;
    }
  } else if (line !== null) {
    if (section === null) {
      // a new table at the end, after one blank line
      while (lines.length > 0 && lines[lines.length - 1].trim() === "") lines.pop();
      lines.push(...(lines.length ? [cr] : []), `[${table}]${cr}`, line, "");
    } else {
      let last = section.end - 1;
      while (last >= section.start && lines[last].trim() === "") last--;
      // the top level with nothing in it yet: the first line of the file
      lines.splice(last + 1, 0, line);
    }
  }
  const next = lines.join("\n");
  let after: Record<string, unknown> | null = null;
  try {
    after = parse(next) as Record<string, unknown>;
  } catch { /* the edit broke the file: refused below */ }
  const expected = structuredClone(before);
  let holder: Record<string, unknown> = expected;
  if (table !== null) {
    if (!isRecord(holder[table])) holder[table] = {};
    holder = holder[table] as Record<string, unknown>;
  }
  if (value === null) delete holder[key];
  else holder[key] = (parse(`v = ${value}`) as Record<string, unknown>).v;
  if (after === null || canonical(after) !== canonical(expected)) {
    const where = table === null ? "at the top of config.toml" : `in config.toml's [${table}]`;
    throw new TomlEditError(
      `asm cannot set ${key} ${where} safely (the file writes it in a way a line edit would change more): ` +
        (value === null ? `remove ${key} yourself` : `set ${key} = ${value} yourself`) +
        ", then run it again",
    );
  }
  return next;
}
