/**
 * Launching Claude Code (agents/claude-code.md section 2): the argv is in agents.toml; this holds the opener
 * and the dialogs Claude shows before a session starts. A first start with no completed onboarding runs
 * onboarding (which needs the real service); an untrusted folder shows the workspace trust dialog, and no hook
 * runs until it is answered. asm never answers either for the user: it says so.
 * @module
 */
import { join } from "node:path";
import type { LaunchCapability } from "../protocol.ts";
import { folderAndParents } from "../folder_chain.ts";
import { claudeSessionsDir, parseClaudeRecord } from "./live.ts";
import { claudeDir } from "./discover.ts";
import { isRecord } from "../../lang/mod.ts";

function claudeState(home: string | undefined): Record<string, unknown> | null {
  if (!home) return null;
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(join(home, ".claude.json")));
    return isRecord(parsed) ? parsed : null;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof SyntaxError) return null;
    throw err;
  }
}

/** Claude Code's launch capability. */
/** Whether `path` is a file (a link to one counts: a person's skills folder may be linked). */
function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** A plugin's skill or command of this name, in the plugins Claude Code installed (a bounded walk). */
function pluginSkill(root: string, skill: string, depth = 0): string | null {
  if (depth > 5) return null;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(root)];
  } catch {
    return null;
  }
  for (const e of entries) {
    if (!e.isDirectory) continue;
    const dir = join(root, e.name);
    if (e.name === "skills" && isFile(join(dir, skill, "SKILL.md"))) return join(dir, skill, "SKILL.md");
    if (e.name === "commands" && isFile(join(dir, `${skill}.md`))) return join(dir, `${skill}.md`);
    const found = pluginSkill(dir, skill, depth + 1);
    if (found) return found;
  }
  return null;
}

export const claudeLaunch: LaunchCapability = {
  opener: "Say READY and wait for my next message.",
  skillFile(skill, folder, env) {
    // a skill's name is one path component, or it names nothing
    if (!/^[A-Za-z0-9_.:-]+$/.test(skill) || skill.startsWith(".")) return null;
    // its own skills and commands, the project's (the session's folder), then its plugins'
    const homes = [claudeDir(env), ...(folder ? [join(folder, ".claude")] : [])];
    for (const home of homes) {
      for (const file of [join(home, "skills", skill, "SKILL.md"), join(home, "commands", `${skill}.md`)]) {
        if (isFile(file)) return file;
      }
    }
    return pluginSkill(join(claudeDir(env), "plugins"), skill);
  },
  waitingReason(folder, env) {
    const state = claudeState(env.HOME);
    if (state?.hasCompletedOnboarding !== true) {
      return "Claude Code will first run its onboarding in the window; finish it there";
    }
    const projects = (state.projects ?? {}) as Record<
      string,
      { hasTrustDialogAccepted?: boolean } | undefined
    >;
    const trusted = folderAndParents(folder).some((f) => projects[f]?.hasTrustDialogAccepted === true);
    return trusted ? null : "Claude Code asks whether you trust this folder; answer in its window";
  },
  threadOf(proc, env) {
    // Claude's own record of a running process: `sessions/<pid>.json`, naming its start ticks and its session
    let text: string;
    try {
      text = Deno.readTextFileSync(join(claudeSessionsDir(env), `${proc.pid}.json`));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
    const record = parseClaudeRecord(text);
    return record && record.pid === proc.pid && record.procStart === proc.startTicks
      ? record.sessionId
      : null;
  },
};
