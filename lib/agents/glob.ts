/**
 * The executable globs of agents.toml: `**` matches across "/", `*` and `?` do not, `[...]` is a class; the whole
 * path must match. hooks/hook.ts carries its own copy (it imports nothing); both follow docs/runbook.md.
 * @module
 */
import type { AgentConfig } from "./protocol.ts";

/** Compiles one glob to an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) re += "\\[";
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        re += `[${body}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** True when the path matches one of the globs. */
export function matchesAny(path: string, globs: readonly string[]): boolean {
  return globs.some((g) => globToRegExp(g).test(path));
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
