/**
 * Codex's `notify` program: a top-level `notify = [argv...]` in config.toml, run at every turn end with the
 * event's JSON as its last argument, and (unlike hooks) without any trust step (agents/codex.md section 5).
 *
 * config.toml belongs to the user and is full of comments and Codex's own tables, so it is edited as TEXT: one
 * line goes in before the first table, and every other byte stays where it was. A TOML serializer would lose
 * the comments and the layout. Each edit is checked by parsing the result: it must equal the old config plus
 * exactly the one key, else nothing is written.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { parse } from "smol-toml";
import { asmCommandAgent, type FileEdit, readTextOrNull, type StripResult } from "../hook_file.ts";
import { errorText } from "../../lang/mod.ts";

/** The argv asm sets: `["<wrapper>", "<agent>", "notify"]`. */
export function notifyArgv(wrapper: string, agentName: string): string[] {
  return [wrapper, agentName, "notify"];
}

/** The line asm adds (the wrapper path has no quotes or backslashes, so plain TOML strings hold it). */
export function notifyLine(wrapper: string, agentName: string): string {
  return `notify = [${notifyArgv(wrapper, agentName).map((arg) => JSON.stringify(arg)).join(", ")}]`;
}

/** True when a `notify` value is asm's for this agent (any wrapper path). */
export function isAsmNotify(value: unknown, agentName: string): value is string[] {
  return Array.isArray(value) && value.length === 3 && typeof value[0] === "string" &&
    asmCommandAgent(`${value[0]} ${value[1]}`) === agentName && value[2] === "notify";
}

/**
 * Puts a line among the top-level keys: after the last top-level line, before the first `[table]` header and
 * the comments attached to it. A file with no table gets it at the end.
 */
export function insertTopLevelLine(text: string, line: string): string {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (text === "") return line + eol;
  const lines = text.split(/(?<=\n)/);
  const header = lines.findIndex((l) => /^\s*\[/.test(l));
  if (header === -1) return text + (text.endsWith("\n") ? "" : eol) + line + eol;
  let at = header;
  while (at > 0 && /^\s*#/.test(lines[at - 1])) at--; // a comment right above a header introduces it
  while (at > 0 && lines[at - 1].trim() === "") at--;
  // at the very top, a blank line keeps the new key visibly apart from the first table
  const insert = at === 0 ? line + eol + eol : line + eol;
  return lines.slice(0, at).join("") + insert + lines.slice(at).join("");
}

function parseToml(path: string, text: string): Record<string, unknown> | string {
  try {
    return parse(text);
  } catch (err) {
    const message = errorText(err).split("\n")[0];
    return `${path} is not valid TOML (${message}); asm left it untouched`;
  }
}

/** The plan for config.toml: write the edit, leave it (with notes), or refuse the whole install. */
export type NotifyPlan =
  | { kind: "write"; edit: FileEdit; notes: string[] }
  | { kind: "unchanged"; notes: string[] }
  | { kind: "refused"; reason: string };

/** Works out config.toml with asm's notify set, writing nothing; an existing notify of someone else stays. */
export function planNotify(path: string, options: { wrapper: string; agentName: string }): NotifyPlan {
  const { wrapper, agentName } = options;
  const line = notifyLine(wrapper, agentName);
  const text = readTextOrNull(path);
  if (text === null) {
    return {
      kind: "write",
      edit: { agent: agentName, path, before: null, after: line + "\n" },
      notes: [`created ${path} with asm's notify line`],
    };
  }
  const config = parseToml(path, text);
  if (typeof config === "string") return { kind: "refused", reason: config };
  const wanted = { ...config, notify: notifyArgv(wrapper, agentName) };
  const byHand = `add this line to ${path} above the first [table] yourself: ${line}`;
  if (config.notify === undefined) {
    const after = insertTopLevelLine(text, line);
    if (!isDeepStrictEqual(parseToml(path, after), wanted)) {
      return { kind: "unchanged", notes: [`asm could not place notify in ${path} safely; ${byHand}`] };
    }
    return {
      kind: "write",
      edit: { agent: agentName, path, before: text, after },
      notes: [`set notify in ${path}`],
    };
  }
  if (isAsmNotify(config.notify, agentName)) {
    if (config.notify[0] === wrapper) return { kind: "unchanged", notes: [] };
    const after = text.replace(asmNotifyLinePattern(agentName), line);
    if (after === text || !isDeepStrictEqual(parseToml(path, after), wanted)) {
      return {
        kind: "unchanged",
        notes: [`notify in ${path} calls an older asm wrapper (${config.notify[0]}); ${byHand}`],
      };
    }
    return {
      kind: "write",
      edit: { agent: agentName, path, before: text, after },
      notes: [`pointed notify in ${path} at the current wrapper`],
    };
  }
  return {
    kind: "unchanged",
    notes: [
      `${path} already sets notify to ${JSON.stringify(config.notify)}; asm left it as it is, so turn ends ` +
      `reach asm only through its hooks, which run once Codex trusts them`,
    ],
  };
}

/** One whole line `notify = ["/.../bin/asm-hook", "<agent>", "notify"]` (any spacing, an optional comment). */
function asmNotifyLinePattern(agentName: string): RegExp {
  return new RegExp(
    String.raw`^[ \t]*notify[ \t]*=[ \t]*\[[ \t]*"/[^"\s]*/bin/asm-hook"[ \t]*,[ \t]*"` + agentName +
      String.raw`"[ \t]*,[ \t]*"notify"[ \t]*,?[ \t]*\][ \t]*(#[^\n]*)?$`,
    "m",
  );
}

/** The strip step of an uninstall for config.toml: takes out asm's notify line and nothing else. */
export function stripNotify(path: string, agentName: string, text: string): StripResult {
  const config = parseToml(path, text);
  if (typeof config === "string") return { kind: "refused", reason: config };
  if (!isAsmNotify(config.notify, agentName)) return { kind: "nothing" };
  const match = text.match(asmNotifyLinePattern(agentName));
  const byHand = `remove the notify line from ${path} by hand`;
  if (!match || match.index === undefined) {
    return { kind: "refused", reason: `asm could not find its notify line; ${byHand}` };
  }
  let end = match.index + match[0].length;
  end += text.slice(end).match(/^\r?\n/)?.[0].length ?? 0;
  // the blank line asm put after a notify it placed at the very top goes with it
  if (match.index === 0) end += text.slice(end).match(/^[ \t]*\r?\n/)?.[0].length ?? 0;
  const after = text.slice(0, match.index) + text.slice(end);
  const { notify: _, ...rest } = config;
  if (!isDeepStrictEqual(parseToml(path, after), rest)) {
    return { kind: "refused", reason: `asm could not remove its notify line safely; ${byHand}` };
  }
  return { kind: "stripped", text: after };
}
