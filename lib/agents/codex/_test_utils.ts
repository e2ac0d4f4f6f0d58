/**
 * Test helpers of the Codex adapter (private to tests), used by tests above lib/agents that need a Codex whose
 * hooks are trusted.
 * @module
 */
import type { Env } from "../../config/mod.ts";
import { codexConfigPath, codexHooksPath } from "./hook_config.ts";
import { codexEventLabel, codexHookHash } from "./hook_trust.ts";

/**
 * What Codex's "Trust all and continue" writes: one record per hook of hooks.json, with the hash Codex computes,
 * appended to config.toml.
 */
export function trustCodexHooksByHand(env: Env): void {
  const hooksPath = codexHooksPath(env);
  const hooks = JSON.parse(Deno.readTextFileSync(hooksPath)).hooks;
  let records = "\n[hooks.state]\n";
  for (
    const [event, groups] of Object.entries(hooks as Record<string, { hooks: Record<string, unknown>[] }[]>)
  ) {
    groups.forEach((group, g) =>
      group.hooks.forEach((handler, h) => {
        records += `\n[hooks.state."${hooksPath}:${codexEventLabel(event)}:${g}:${h}"]\n` +
          `trusted_hash = "${codexHookHash(event, group, handler)}"\n`;
      })
    );
  }
  Deno.writeTextFileSync(codexConfigPath(env), records, { append: true });
}
