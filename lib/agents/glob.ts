/**
 * The executable globs of agents.toml, matched by `node:path`'s `matchesGlob`: `**` is any number of whole
 * folders (none included), `*` and `?` stay inside one name, `[...]` is a class (`[!...]` or `[^...]` negates); the
 * whole path must match. One difference on purpose: a name that starts with a dot is matched like any other
 * (agents live under `~/.nvm`, `~/.npm-global`, `~/.local`). hooks/hook.ts carries its own copy (it imports
 * nothing); both answer every case of `_glob_cases.json`, and follow docs/runbook.md.
 * @module
 */
import { matchesGlob } from "node:path";
import type { AgentConfig } from "./protocol.ts";

/**
 * Every name of a path or a glob, `**` aside, with one letter put before it: no name then starts with a dot, which
 * `matchesGlob` (minimatch without its `dot` option, which node:path does not pass on) would never let `*`, `?` or
 * `**` match.
 */
function undotted(pathOrGlob: string): string {
  return pathOrGlob.split("/").map((name) => name === "" || name === "**" ? name : `x${name}`).join("/");
}

/** True when the path matches the glob. */
export function globMatches(path: string, glob: string): boolean {
  return matchesGlob(undotted(path), undotted(glob));
}

/** True when the path matches one of the globs. */
export function matchesAny(path: string, globs: readonly string[]): boolean {
  return globs.some((g) => globMatches(path, g));
}

/**
 * True when a process (its exe realpath and argv) is this agent: the exe matches, and for an interpreter agent
 * the first non-option argument resolves to a path matching a script glob.
 */
export function isAgentProcess(
  agent: AgentConfig,
  exe: string | null,
  argv: string[],
  cwd?: string,
): boolean {
  if (exe === null || !matchesAny(exe, agent.exe)) return false;
  if (agent.script.length === 0) return true;
  const script = argv.slice(1).find((a) => !a.startsWith("-"));
  if (!script) return false;
  let resolved = script;
  try {
    resolved = Deno.realPathSync(script.startsWith("/") || !cwd ? script : `${cwd}/${script}`);
  } catch { /* a script path that no longer resolves is compared as written */ }
  return matchesAny(resolved, agent.script);
}
