/**
 * Claude Code's hooks: `$HOME/.claude/settings.json`, `hooks.<Event>` lists of
 * `{"matcher": "*", "hooks": [{"type": "command", "command": ..., "timeout": seconds}]}`. Claude runs the command
 * through `/bin/sh -c`, in `-p` mode without any approval (agents/claude-code.md section 4).
 * @module
 */
import { join } from "node:path";
import { homeDir } from "../../config/mod.ts";
import type { Env, HookConfigAdapter } from "../protocol.ts";
import { jsonHookAdapter } from "../json_hook_adapter.ts";

/** Seconds; the hook itself bounds its stdin read at 3 s, so 10 s is never the limit that bites. */
const TIMEOUT_SECONDS = 10;

/** `$HOME/.claude/settings.json`. */
export function claudeSettingsPath(env: Env): string {
  return join(homeDir(env), ".claude", "settings.json");
}

/** The group asm appends under `hooks.<Event>`; the "*" matcher is what Claude expects on every event. */
export function claudeHookGroup(command: string): Record<string, unknown> {
  return { matcher: "*", hooks: [{ type: "command", command, timeout: TIMEOUT_SECONDS }] };
}

/** The Claude Code hook adapter. */
export const claudeHookConfig: HookConfigAdapter = jsonHookAdapter({
  configPath: claudeSettingsPath,
  group: claudeHookGroup,
  silencedBy(root, path) {
    return root.disableAllHooks === true
      ? `${path} sets "disableAllHooks": true, so Claude Code runs no hooks (asm's included) until it is removed`
      : null;
  },
});
