/**
 * The hook list shape Claude Code, Codex and Gemini CLI share: `{"hooks": {"<Event>": [group, ...]}}` where a
 * group is `{"matcher"?: ..., "hooks": [{"type": "command", "command": ...}, ...]}`. These functions add and
 * remove asm's groups in such a file and leave every other group, key and order as it was.
 * @module
 */
import { dirname } from "node:path";
import type { AgentConfig } from "./protocol.ts";
import {
  asmCommandAgent,
  DEFAULT_JSON_LAYOUT,
  type FileEdit,
  formatJson,
  parseJsonObject,
  readJsonObjectFile,
  type StripResult,
} from "./hook_file.ts";
import { isRecord } from "../lang/mod.ts";

/** A plain sentence when `root.hooks` is not the shape above, else null (a missing `hooks` is fine). */
export function hookListProblem(root: Record<string, unknown>, path: string): string | null {
  if (!("hooks" in root)) return null;
  const hooks = root.hooks;
  if (!isRecord(hooks)) return `${path}: "hooks" is not a JSON object; asm left the file untouched`;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) return `${path}: hooks.${event} is not a list; asm left the file untouched`;
    for (const [i, group] of groups.entries()) {
      if (!isRecord(group) || ("hooks" in group && !Array.isArray(group.hooks))) {
        return `${path}: hooks.${event}[${i}] is not a hook group ({"hooks": [...]}); asm left the file untouched`;
      }
    }
  }
  return null;
}

function groupsOf(root: Record<string, unknown>): Record<string, Record<string, unknown>[]> {
  return isRecord(root.hooks) ? root.hooks as Record<string, Record<string, unknown>[]> : {};
}

function handlersOf(group: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(group.hooks) ? group.hooks.filter(isRecord) : [];
}

/** What {@link addAsmHooks} changed. */
export interface HookAddition {
  /** Events that got a new asm group. */
  added: string[];
  /** Events whose asm entry pointed at another wrapper path and now points at this one. */
  updated: string[];
}

/**
 * Gives every event an asm group, appended after the groups already there (Codex keys trust by position, so
 * appending never moves a hook the user already trusted). An asm entry with an old wrapper path is pointed at
 * the current one. Mutates `root`.
 */
export function addAsmHooks(
  root: Record<string, unknown>,
  options: {
    events: string[];
    agentName: string;
    command: string;
    group: (event: string) => Record<string, unknown>;
  },
): HookAddition {
  const result: HookAddition = { added: [], updated: [] };
  if (!isRecord(root.hooks)) root.hooks = {};
  const hooks = root.hooks as Record<string, Record<string, unknown>[]>;
  for (const event of options.events) {
    const groups = hooks[event] ?? (hooks[event] = []);
    const ours = groups.flatMap(handlersOf).filter((h) => asmCommandAgent(h.command) === options.agentName);
    if (ours.some((h) => h.command === options.command)) continue;
    if (ours.length > 0) {
      ours.forEach((h) => h.command = options.command);
      result.updated.push(event);
    } else {
      groups.push(options.group(event));
      result.added.push(event);
    }
  }
  return result;
}

/** What {@link removeAsmHooks} took out. */
export interface HookRemoval {
  removed: number;
  /** Events where a group that stays came after a removed one, so its position changed. */
  moved: string[];
}

/**
 * Removes this agent's asm entries; a group left empty goes, an event left without groups goes, and a `hooks`
 * object left empty goes. Everything else stays in order. Mutates `root`.
 */
export function removeAsmHooks(root: Record<string, unknown>, agentName: string): HookRemoval {
  const result: HookRemoval = { removed: 0, moved: [] };
  if (!isRecord(root.hooks)) return result;
  const hooks = root.hooks as Record<string, unknown>;
  const ours = (h: unknown) => isRecord(h) && asmCommandAgent(h.command) === agentName;
  for (const [event, value] of Object.entries(hooks)) {
    if (!Array.isArray(value)) continue;
    const kept: unknown[] = [];
    // a kept group or hook that sat after a removed one has a new position (Codex keys trust by position)
    let removedBefore = false;
    let moved = false;
    for (const group of value) {
      if (!isRecord(group) || !Array.isArray(group.hooks) || !group.hooks.some(ours)) {
        moved ||= removedBefore;
        kept.push(group);
        continue;
      }
      const handlers = group.hooks as unknown[];
      const others = handlers.filter((h) => !ours(h));
      result.removed += handlers.length - others.length;
      if (others.length > 0) {
        moved ||= removedBefore || handlers.findIndex(ours) < handlers.findLastIndex((h) => !ours(h));
        group.hooks = others;
        kept.push(group);
      } else {
        removedBefore = true;
      }
    }
    if (moved) result.moved.push(event);
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  if (result.removed > 0 && Object.keys(hooks).length === 0) delete root.hooks;
  return result;
}

/** True when every event has an entry running exactly `command`. */
export function hasAsmHooks(root: Record<string, unknown>, events: string[], command: string): boolean {
  const hooks = groupsOf(root);
  return events.every((event) =>
    Array.isArray(hooks[event]) &&
    hooks[event].filter(isRecord).flatMap(handlersOf).some((h) => h.command === command)
  );
}

/** The plan for one JSON hook file. */
export type JsonHookPlan =
  | { kind: "write"; edit: FileEdit; addition: HookAddition; createdFolder: boolean }
  | { kind: "unchanged" }
  | { kind: "refused"; reason: string };

/** Reads a JSON hook file and works out the text with asm's groups added, writing nothing. */
export function planJsonHooks(
  path: string,
  options: { agent: AgentConfig; command: string; group: (event: string) => Record<string, unknown> },
): JsonHookPlan {
  const read = readJsonObjectFile(path);
  if (read.kind === "invalid") return { kind: "refused", reason: read.reason };
  const root = read.kind === "ok" ? structuredClone(read.root) : {};
  const problem = hookListProblem(root, path);
  if (problem !== null) return { kind: "refused", reason: problem };
  const addition = addAsmHooks(root, {
    events: Object.keys(options.agent.events),
    agentName: options.agent.name,
    command: options.command,
    group: options.group,
  });
  if (addition.added.length === 0 && addition.updated.length === 0) return { kind: "unchanged" };
  const layout = read.kind === "ok" ? read.layout : DEFAULT_JSON_LAYOUT;
  return {
    kind: "write",
    edit: {
      agent: options.agent.name,
      path,
      before: read.kind === "ok" ? read.text : null,
      after: formatJson(root, layout),
    },
    addition,
    createdFolder: read.kind === "absent" && !folderExists(path),
  };
}

/** The strip step of an uninstall for a JSON hook file (see `uninstallFile`). */
export function stripJsonHooks(
  path: string,
  agentName: string,
  text: string,
): StripResult & { moved?: string[] } {
  const read = parseJsonObject(path, text);
  if (read.kind === "invalid") return { kind: "refused", reason: read.reason };
  const removal = removeAsmHooks(read.root, agentName);
  if (removal.removed === 0) return { kind: "nothing" };
  return { kind: "stripped", text: formatJson(read.root, read.layout), moved: removal.moved };
}

function folderExists(path: string): boolean {
  try {
    return Deno.statSync(dirname(path)).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
