/**
 * The person's project rules, from the `[projects]` table of `$ASM_HOME/config.toml`:
 *
 * ```toml
 * [projects]
 * # a run of this skill scores 25 for that project folder
 * skill_folders = { website = "/home/me/site", "asm-build" = "/home/me/asm" }
 * # skills that run in every session: never scored (added to the built-in list in lib/derive/project.ts)
 * excluded_skills = ["standup"]
 * ```
 * @module
 */
import { join } from "node:path";
import { parse } from "smol-toml";
import type { ProjectRules } from "../derive/mod.ts";
import { errorText, isRecord } from "../lang/mod.ts";

/** The rules, and a sentence when the file could not be used (the defaults then apply). */
export function projectRules(asmHome: string): { rules: ProjectRules; problem: string | null } {
  const rules: ProjectRules = { skillFolders: {}, excludedSkills: [] };
  const path = join(asmHome, "config.toml");
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { rules, problem: null };
    return { rules, problem: `${path} could not be read: ${errorText(err)}` };
  }
  let projects: unknown;
  try {
    projects = parse(text).projects;
  } catch (err) {
    return {
      rules,
      problem: `${path} is not valid TOML (${errorText(err).split("\n")[0]}); using no rules`,
    };
  }
  if (projects === undefined) return { rules, problem: null };
  if (!isRecord(projects)) {
    return { rules, problem: `${path}: [projects] must be a table` };
  }
  const { skill_folders: folders, excluded_skills: excluded } = projects;
  const problems: string[] = [];
  if (folders !== undefined) {
    if (isRecord(folders)) {
      for (const [skill, folder] of Object.entries(folders)) {
        if (typeof folder === "string" && folder.startsWith("/")) rules.skillFolders[skill] = folder;
        else problems.push(`projects.skill_folders.${skill} must be an absolute folder path`);
      }
    } else problems.push("projects.skill_folders must be a table of skill = folder");
  }
  if (excluded !== undefined) {
    if (Array.isArray(excluded) && excluded.every((s) => typeof s === "string")) {
      rules.excludedSkills = excluded;
    } else problems.push("projects.excluded_skills must be a list of skill names");
  }
  return { rules, problem: problems.length ? `${path}: ${problems.join("; ")}` : null };
}
