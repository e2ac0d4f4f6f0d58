/**
 * Codex's hooks: `$CODEX_HOME/hooks.json` (CODEX_HOME defaults to ~/.codex) with `hooks.<Event>` lists of
 * `{"hooks": [{"type": "command", "command": ..., "timeout": seconds}]}`, plus the top-level `notify` program in
 * `$CODEX_HOME/config.toml`. Codex skips a hook until the user trusts it in the TUI; notify needs no trust
 * (agents/codex.md section 5). asm never writes trust records: it reports whether they exist.
 * @module
 */
import { codexHome } from "./home.ts";
import { join } from "node:path";
import type {
  AgentConfig,
  Env,
  HookConfigAdapter,
  HookInstallOptions,
  InstallResult,
  TrustState,
  UninstallResult,
} from "../protocol.ts";
import {
  commitEdits,
  type FileEdit,
  hookCommand,
  readJsonObjectFile,
  readTextOrNull,
  uninstallFile,
  wrapperPathProblem,
} from "../hook_file.ts";
import { hasAsmHooks, planJsonHooks, stripJsonHooks } from "../hook_json.ts";
import { currentWrapper, planNotes } from "../json_hook_adapter.ts";
import { planNotify, stripNotify } from "./notify.ts";
import { type CodexHookTrust, codexHookTrust } from "./hook_trust.ts";

/** Seconds; the hook bounds its own stdin read at 3 s. */
const TIMEOUT_SECONDS = 10;
/** Codex 0.169 caps SessionEnd hooks at 3 s and warns "clamping SessionEnd hook timeout to 3s" for more. */
const SESSION_END_TIMEOUT_SECONDS = 3;

/** What a person does so Codex runs asm's hooks (the words are the TUI's own, Codex 0.169). */
export const CODEX_TRUST_ADVICE =
  "Codex runs a new or changed hook only after you approve it: open codex in a " +
  'terminal (sign in first if it asks; the review comes after), and at the "Hooks need review" prompt choose ' +
  '"Trust all and continue" (or "Review hooks" to look at each one first); asm\'s hooks run from then on. asm\'s ' +
  "notify entry, when it is set, works without this.";

/** `$CODEX_HOME/hooks.json`. */
export function codexHooksPath(env: Env): string {
  return join(codexHome(env), "hooks.json");
}

/** `$CODEX_HOME/config.toml`. */
export function codexConfigPath(env: Env): string {
  return join(codexHome(env), "config.toml");
}

/** The group asm appends under `hooks.<Event>` (no matcher: asm wants every occurrence). */
export function codexHookGroup(command: string, event: string): Record<string, unknown> {
  const timeout = event === "SessionEnd" ? SESSION_END_TIMEOUT_SECONDS : TIMEOUT_SECONDS;
  return { hooks: [{ type: "command", command, timeout }] };
}

/** The trust status of each of this agent's asm hooks (empty when none is installed). */
export function codexTrustReport(env: Env, agent: AgentConfig): CodexHookTrust[] {
  const read = readJsonObjectFile(codexHooksPath(env));
  if (read.kind !== "ok") return [];
  return codexHookTrust({
    hooksPath: codexHooksPath(env),
    hooksRoot: read.root,
    configText: readTextOrNull(codexConfigPath(env)),
    agentName: agent.name,
  });
}

function install(options: HookInstallOptions): InstallResult {
  const agent = options.agent.name;
  const problem = wrapperPathProblem(options.wrapper);
  if (problem !== null) return { kind: "NotInstalled", agent, reason: problem };
  const hooksPath = codexHooksPath(options.env);
  const configPath = codexConfigPath(options.env);
  const command = hookCommand(options.wrapper, agent);
  // both files are planned before either is written: a refusal leaves both untouched
  const hooks = planJsonHooks(hooksPath, {
    agent: options.agent,
    command,
    group: (event) => codexHookGroup(command, event),
  });
  if (hooks.kind === "refused") return { kind: "NotInstalled", agent, reason: hooks.reason };
  const wantsNotify = Object.keys(options.agent.notify_events).length > 0;
  const notify = wantsNotify
    ? planNotify(configPath, { wrapper: options.wrapper, agentName: agent })
    : { kind: "unchanged" as const, notes: [] };
  if (notify.kind === "refused") return { kind: "NotInstalled", agent, reason: notify.reason };
  const edits: FileEdit[] = [];
  const notes: string[] = [];
  if (hooks.kind === "write") {
    edits.push(hooks.edit);
    notes.push(...planNotes(hooks, hooksPath));
  }
  if (notify.kind === "write") edits.push(notify.edit);
  notes.push(...notify.notes);
  if (edits.length === 0) return { kind: "AlreadyInstalled", agent, notes };
  commitEdits(edits, options.backupsDir, options.now);
  return { kind: "Installed", agent, files: edits.map((edit) => edit.path), notes };
}

function uninstall(options: HookInstallOptions): UninstallResult {
  const agent = options.agent.name;
  const hooksPath = codexHooksPath(options.env);
  const configPath = codexConfigPath(options.env);
  let moved: string[] = [];
  const hooks = uninstallFile({
    agent,
    path: hooksPath,
    backupsDir: options.backupsDir,
    strip: (text) => {
      const stripped = stripJsonHooks(hooksPath, agent, text);
      moved = stripped.moved ?? [];
      return stripped;
    },
  });
  const notify = uninstallFile({
    agent,
    path: configPath,
    backupsDir: options.backupsDir,
    strip: (text) => stripNotify(configPath, agent, text),
  });
  const notes = [...hooks.notes, ...notify.notes];
  if (moved.length > 0) {
    notes.push(
      `other hooks on ${
        moved.join(", ")
      } moved up in ${hooksPath}; Codex keys trust by position, so it will ask ` +
        "to review them again",
    );
  }
  const touched = [hooks, notify].filter((r) => r.restored || r.stripped);
  return { restored: touched.length > 0 && touched.every((r) => r.restored), notes };
}

function isInstalled(env: Env, agent: AgentConfig): boolean {
  const read = readJsonObjectFile(codexHooksPath(env));
  if (read.kind !== "ok") return false;
  return hasAsmHooks(read.root, Object.keys(agent.events), hookCommand(currentWrapper(env), agent.name));
}

function trustState(env: Env, agent: AgentConfig): TrustState {
  const report = codexTrustReport(env, agent);
  if (report.length === 0) return "not-applicable";
  return report.every((hook) => hook.status === "trusted") ? "trusted" : "needs-review";
}

/** The Codex hook adapter. */
export const codexHookConfig: HookConfigAdapter = {
  configFiles: (env) => [codexHooksPath(env), codexConfigPath(env)],
  install,
  uninstall,
  isInstalled,
  trustState,
  trustAdvice: CODEX_TRUST_ADVICE,
};
