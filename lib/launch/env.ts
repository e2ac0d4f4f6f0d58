/**
 * The launch environment: what a launched agent gets from asm is an allow-list, never asm's whole environment
 * (which holds every key and token of the shell that started it). Three sources of names, each a name or a
 * `PREFIX*` pattern:
 *
 * - {@link BUILTIN_LAUNCH_ENV}: what any program expects of a login session;
 * - the agent's own `launch_env` in `agents.toml` (its home folder, its auth and endpoint variables);
 * - the person's `[launch] env` in `$ASM_HOME/config.toml` (a proxy, a cloud profile, a custom provider's key).
 *
 * Never passed, whatever a list says: what the window sets for itself ({@link TERMINAL_ENV}: the shim takes those
 * from its own window), what names one launch (the shim sets `ASM_LAUNCH_TOKEN` and `ASM_SESSION_NAME`), and the
 * agent's per-session variables (`session_env`, `pid_env`, `entrypoint_env`), which would name the session asm
 * itself runs in when it was started from inside an agent. Pure.
 * @module
 */
import type { AgentConfig } from "../agents/mod.ts";
import { envNameMatches } from "../config/mod.ts";

/**
 * Every launched agent gets these when asm has them. The reasons for the less obvious ones are in
 * docs/decisions.md: TZ (the agent's clock reads as the person's), TMPDIR (where the person keeps temporary
 * files), USER / LOGNAME / SHELL (the agents' tools run the person's shell, and git, ssh and sudo ask who you are),
 * XDG_* (the base folders the agents and their tools keep config and caches in, and the runtime folder with the
 * person's agent sockets).
 */
export const BUILTIN_LAUNCH_ENV: readonly string[] = [
  "HOME",
  "PATH",
  "LANG",
  "LC_*",
  "TZ",
  "TMPDIR",
  "USER",
  "LOGNAME",
  "SHELL",
  "XDG_*",
];

/** The terminal's own variables: set by the window for the program in it, never copied from asm. */
export const TERMINAL_ENV: readonly string[] = [
  "TERM",
  "TERM_PROGRAM",
  "TERM_PROGRAM_VERSION",
  "COLORTERM",
  "COLUMNS",
  "LINES",
  "TMUX",
  "TMUX_PANE",
];

/** Set by the shim for one launch. */
const LAUNCH_OWN: readonly string[] = ["ASM_LAUNCH_TOKEN", "ASM_SESSION_NAME"];

/** A name a process environment can carry (and the shim can hand on). */
export const ENV_NAME: RegExp = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The names this agent's launch may carry, in the order they are looked at (see the module comment). */
export function launchEnvNames(agent: AgentConfig, personal: readonly string[]): string[] {
  return [...BUILTIN_LAUNCH_ENV, ...agent.launch_env, ...personal];
}

/** True when `name` may never come from asm's environment for this agent. */
function neverPassed(name: string, agent: AgentConfig): boolean {
  return TERMINAL_ENV.includes(name) || LAUNCH_OWN.includes(name) ||
    [agent.session_env, agent.pid_env, agent.entrypoint_env].includes(name);
}

/**
 * The environment a launch of `agent` gets: the variables of `env` (asm's own) whose names are allowed for it,
 * `personal` being the person's `[launch] env`. Sorted by name, so the same facts give the same file.
 */
export function launchEnv(
  env: Readonly<Record<string, string | undefined>>,
  agent: AgentConfig,
  personal: readonly string[] = [],
): Record<string, string> {
  const allowed = launchEnvNames(agent, personal);
  const names = Object.keys(env)
    .filter((name) =>
      env[name] !== undefined && ENV_NAME.test(name) && !neverPassed(name, agent) &&
      envNameMatches(name, allowed)
    )
    .sort();
  return Object.fromEntries(names.map((name) => [name, env[name]!]));
}
