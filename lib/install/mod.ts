/**
 * `asm install` / `asm uninstall`: lays out `$ASM_HOME`, writes the hook wrapper and `hook-agents.json`, then lets
 * each agent's adapter add (or remove) its hook entries. The canary (`canary.ts`, run by the command and by the
 * gates) proves an event reaches the inbox and attaches its outcome to the results (`InstallResult.canary`).
 * @module
 */
import { join } from "node:path";
import { asmHome as defaultAsmHome, type Env } from "../config/mod.ts";
import {
  type AgentConfig,
  DEFAULT_JSON_LAYOUT,
  formatJson,
  hookAdapter,
  hookAgentsJson,
  type InstallResult,
  loadAgents,
  readTextOrNull,
  type UninstallResult,
  wrapperPathProblem,
  writeFileAtomic,
} from "../agents/mod.ts";
import { renderWrapper } from "./wrapper.ts";
import { hookRuntime, installHookRuntime } from "./runtime.ts";

export { hookRuntime, hookRuntimeProblems } from "./runtime.ts";
import { type Clock, errorText } from "../lang/mod.ts";

export { type CanaryEvent, type CanaryOptions, type CanaryRun, eventsFrom, runCanary } from "./canary.ts";

/** The folders `$ASM_HOME` always has (docs/runbook.md section 2). */
export const ASM_HOME_FOLDERS = ["inbox", "processed", "rejected", "bin", "rules", "backups"] as const;

/** What both commands take. */
export interface HookCommandOptions {
  /** Defaults to the process environment. */
  env?: Env;
  /** Defaults to `ASM_HOME`, else `~/.asm`. */
  asmHome?: string;
  /** Agent names; defaults to every agent in the registry. */
  agents?: string[];
  /** Clock for backup names (tests). */
  now?: Clock;
}

/** Options of {@link installHooks}. */
export interface InstallOptions extends HookCommandOptions {
  /** The deno copied into `$ASM_HOME/bin/` for the wrapper to run; defaults to the one running asm. */
  denoPath?: string;
}

/** One agent's uninstall outcome. */
export interface UninstallReport extends UninstallResult {
  agent: string;
}

/** `$ASM_HOME/bin/asm-hook`. */
export function wrapperPath(asmHome: string): string {
  return join(asmHome, "bin", "asm-hook");
}

interface Context {
  env: Env;
  home: string;
  selected: AgentConfig[];
  all: AgentConfig[];
}

function context(options: HookCommandOptions): Context {
  const baseEnv = options.env ?? Deno.env.toObject();
  const home = options.asmHome ?? defaultAsmHome(baseEnv);
  // the adapters derive the wrapper path from ASM_HOME too (isInstalled), so both must agree
  const env = { ...baseEnv, ASM_HOME: home };
  const all = loadAgents({ asmHome: home, env });
  if (options.agents === undefined) return { env, home, all, selected: all };
  const selected = options.agents.map((name) => {
    const agent = all.find((a) => a.name === name);
    if (!agent) throw new Error(`unknown agent "${name}"; asm knows ${all.map((a) => a.name).join(", ")}`);
    return agent;
  });
  return { env, home, all, selected };
}

/** Writes a file only when its text differs, so a second install touches nothing. */
function writeIfChanged(path: string, text: string, mode?: number): void {
  if (readTextOrNull(path) !== text) writeFileAtomic(path, text);
  if (mode !== undefined && (Deno.statSync(path).mode! & 0o777) !== mode) Deno.chmodSync(path, mode);
}

/**
 * Installs asm's hooks for the selected agents (all by default). One result per agent, in order; an agent that
 * could not be installed says why in a sentence and the others still go ahead. Throws only for an unknown agent
 * name or a broken agents.toml.
 */
export function installHooks(options: InstallOptions = {}): InstallResult[] {
  const { env, home, all, selected } = context(options);
  const wrapper = wrapperPath(home);
  const problem = wrapperPathProblem(wrapper);
  if (problem !== null) {
    return selected.map((agent) => ({ kind: "NotInstalled", agent: agent.name, reason: problem }));
  }
  // the data folder is the user's alone: folders 0700, files 0600, the wrapper 0700 (lib/server/data_folder.ts)
  for (const folder of ["", ...ASM_HOME_FOLDERS]) {
    Deno.mkdirSync(join(home, folder), { recursive: true, mode: 0o700 });
    Deno.chmodSync(join(home, folder), 0o700);
  }
  // the wrapper runs copies in the data folder: its text never changes with an upgrade (lib/install/runtime.ts)
  installHookRuntime(home, { denoPath: options.denoPath });
  const runtime = hookRuntime(home);
  writeIfChanged(
    wrapper,
    renderWrapper({ asmHome: home, denoPath: runtime.deno, hookScript: runtime.hook }),
    0o700,
  );
  // every agent, not only the selected ones: the hook tells nested agents apart by all of their globs
  writeIfChanged(
    join(home, "hook-agents.json"),
    formatJson(hookAgentsJson(all), DEFAULT_JSON_LAYOUT),
    0o600,
  );
  const backupsDir = join(home, "backups");
  return selected.map((agent): InstallResult => {
    const adapter = hookAdapter(agent);
    let result: InstallResult;
    try {
      result = adapter.install({ env, wrapper, agent, backupsDir, now: options.now });
    } catch (err) {
      const message = errorText(err);
      return { kind: "NotInstalled", agent: agent.name, reason: `${agent.display}: ${message}` };
    }
    if (result.kind !== "NotInstalled" && adapter.trustState) {
      const state = adapter.trustState(env, agent);
      result.trust = { state, advice: state === "needs-review" ? adapter.trustAdvice ?? "" : "" };
    }
    return result;
  });
}

/**
 * Removes asm's hooks for the selected agents (all by default): each file goes back byte-for-byte when nobody
 * edited it since the install, else only asm's entries leave it. `$ASM_HOME` itself stays.
 */
export function uninstallHooks(options: HookCommandOptions = {}): UninstallReport[] {
  const { env, home, selected } = context(options);
  const wrapper = wrapperPath(home);
  const backupsDir = join(home, "backups");
  return selected.map((agent) => {
    try {
      return { agent: agent.name, ...hookAdapter(agent).uninstall({ env, wrapper, agent, backupsDir }) };
    } catch (err) {
      const message = errorText(err);
      return { agent: agent.name, restored: false, notes: [`${agent.display}: ${message}`] };
    }
  });
}
