/**
 * A {@link HookConfigAdapter} for an agent whose hooks live in one JSON settings file with the shared hook list
 * shape (Claude Code, Gemini CLI). The agent's folder supplies the path, the group it wants, and any setting
 * that would silence hooks.
 * @module
 */
import { join } from "node:path";
import { asmHome } from "../config/mod.ts";
import type { AgentConfig, Env, HookConfigAdapter, HookInstallOptions, InstallResult } from "./protocol.ts";
import {
  commitEdits,
  hookCommand,
  readJsonObjectFile,
  uninstallFile,
  wrapperPathProblem,
} from "./hook_file.ts";
import { hasAsmHooks, type JsonHookPlan, planJsonHooks, stripJsonHooks } from "./hook_json.ts";

/** What differs between agents that keep hooks in one JSON settings file. */
export interface JsonHookSpec {
  /** The settings file. */
  configPath(env: Env): string;
  /** The group asm appends under `hooks.<Event>`. */
  group(command: string): Record<string, unknown>;
  /** A sentence when a setting in the file keeps hooks from running, else null. */
  silencedBy?(root: Record<string, unknown>, path: string): string | null;
  /** Appended to the refusal when the file is not valid JSON (e.g. the agent itself accepts comments). */
  invalidHint?: string;
}

/** The wrapper path `isInstalled` and `trustState` look for: `$ASM_HOME/bin/asm-hook`. */
export function currentWrapper(env: Env): string {
  return join(asmHome(env), "bin", "asm-hook");
}

/** Notes every JSON plan shares: what was added, what was re-pointed, which folder was created. */
export function planNotes(plan: Extract<JsonHookPlan, { kind: "write" }>, path: string): string[] {
  const notes: string[] = [];
  if (plan.addition.added.length > 0) {
    notes.push(`added asm hooks for ${plan.addition.added.join(", ")} to ${path}`);
  }
  if (plan.addition.updated.length > 0) {
    notes.push(
      `pointed the asm hooks for ${plan.addition.updated.join(", ")} in ${path} at the current wrapper`,
    );
  }
  if (plan.createdFolder) {
    notes.push(`created ${path}; its folder did not exist yet (the agent may not be set up)`);
  }
  return notes;
}

/** Builds the adapter from the spec. */
export function jsonHookAdapter(spec: JsonHookSpec): HookConfigAdapter {
  return {
    configFiles: (env) => [spec.configPath(env)],
    install(options: HookInstallOptions): InstallResult {
      const agent = options.agent.name;
      const problem = wrapperPathProblem(options.wrapper);
      if (problem !== null) return { kind: "NotInstalled", agent, reason: problem };
      const path = spec.configPath(options.env);
      const command = hookCommand(options.wrapper, agent);
      const plan = planJsonHooks(path, { agent: options.agent, command, group: () => spec.group(command) });
      if (plan.kind === "refused") {
        const hint = spec.invalidHint && / is not valid JSON /.test(plan.reason)
          ? ` ${spec.invalidHint}`
          : "";
        return { kind: "NotInstalled", agent, reason: plan.reason + hint };
      }
      const notes: string[] = [];
      if (plan.kind === "write") {
        commitEdits([plan.edit], options.backupsDir, options.now);
        notes.push(...planNotes(plan, path));
      }
      const read = readJsonObjectFile(path);
      const silenced = read.kind === "ok" && spec.silencedBy ? spec.silencedBy(read.root, path) : null;
      if (silenced !== null) notes.push(silenced);
      return plan.kind === "write"
        ? { kind: "Installed", agent, files: [path], notes }
        : { kind: "AlreadyInstalled", agent, notes };
    },
    uninstall(options: HookInstallOptions) {
      const path = spec.configPath(options.env);
      const agent = options.agent.name;
      const result = uninstallFile({
        agent,
        path,
        backupsDir: options.backupsDir,
        strip: (text) => stripJsonHooks(path, agent, text),
      });
      return { restored: result.restored, notes: result.notes };
    },
    isInstalled(env: Env, agent: AgentConfig): boolean {
      const read = readJsonObjectFile(spec.configPath(env));
      if (read.kind !== "ok") return false;
      return hasAsmHooks(read.root, Object.keys(agent.events), hookCommand(currentWrapper(env), agent.name));
    },
  };
}
