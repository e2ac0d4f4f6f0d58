/**
 * Gemini CLI's hooks: `$GEMINI_CLI_HOME/.gemini/settings.json` (GEMINI_CLI_HOME takes the place of HOME), with
 * `hooks.<Event>` lists of `{"hooks": [{"type": "command", "name": ..., "command": ..., "timeout": ms}]}`. No
 * matcher: asm's events are lifecycle events, and matchers only filter tool events (agents/gemini.md section 4).
 * User-level hooks run without any approval.
 * @module
 */
import { join } from "node:path";
import { homeDir } from "../../config/mod.ts";
import type { Env, HookConfigAdapter } from "../protocol.ts";
import { jsonHookAdapter } from "../json_hook_adapter.ts";
import { isRecord } from "../../lang/mod.ts";

/** Milliseconds (Gemini's unit); the hook bounds its own stdin read at 3 s. */
const TIMEOUT_MS = 10000;
/** The hook's name: Gemini shows it ("Executing Hooks: asm") and `hooksConfig.disabled` lists hooks by it. */
const HOOK_NAME = "asm";

/** `$GEMINI_CLI_HOME/.gemini/settings.json`, GEMINI_CLI_HOME defaulting to HOME. */
export function geminiSettingsPath(env: Env): string {
  return join(env.GEMINI_CLI_HOME || homeDir(env), ".gemini", "settings.json");
}

/** The group asm appends under `hooks.<Event>`. */
export function geminiHookGroup(command: string): Record<string, unknown> {
  return { hooks: [{ type: "command", name: HOOK_NAME, command, timeout: TIMEOUT_MS }] };
}

/** The Gemini CLI hook adapter. */
export const geminiHookConfig: HookConfigAdapter = jsonHookAdapter({
  configPath: geminiSettingsPath,
  group: geminiHookGroup,
  silencedBy(root, path) {
    const config = isRecord(root.hooksConfig) ? root.hooksConfig : {};
    if (config.enabled === false) {
      return `${path} sets "hooksConfig": {"enabled": false}, so Gemini CLI runs no hooks (asm's included)`;
    }
    if (Array.isArray(config.disabled) && config.disabled.includes(HOOK_NAME)) {
      return `${path} lists "${HOOK_NAME}" in hooksConfig.disabled, so Gemini CLI skips asm's hooks`;
    }
    return null;
  },
  invalidHint: "Gemini CLI accepts comments in settings.json, but asm only rewrites plain JSON: remove the " +
    "comments, or add asm's hooks by hand.",
});
