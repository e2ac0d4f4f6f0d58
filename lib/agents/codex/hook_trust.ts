/**
 * Codex runs a hook from hooks.json only after the user approved it. The approval is a table in config.toml:
 *
 *   [hooks.state."<hooks.json path>:<snake_case event>:<group index>:<hook index>"]
 *   trusted_hash = "sha256:<hex>"
 *
 * asm READS these records and never writes one: trusting code that runs on every prompt is the user's call.
 *
 * How `trusted_hash` is computed (found 2026-11-29 on the real codex 0.169.0, whose `codex app-server` answers
 * `hooks/list` with each hook's `currentHash` and `trustStatus`; every case below matched byte for byte):
 *   sha256 of the compact JSON, keys sorted at every level, of
 *   {"event_name": "<snake_case event>", "hooks": [<the one handler, normalised>], "matcher": <only if set>}
 *   where the handler is normalised to {"type":"command","command":..,"timeout":..,"async":..} plus
 *   "statusMessage" when non-empty; timeout defaults to 600 s (1 s for session_end and interrupt), is at least 1,
 *   and for session_end at most 3; the group's matcher is dropped for user_prompt_submit, stop and interrupt
 *   (Codex ignores matchers there). The hash covers the handler only: not the file's bytes, not the key, not the
 *   script the command runs. Verified cases: no matcher, a matcher on a tool event, a matcher on stop (dropped),
 *   timeout absent / 0 / 10 on session_end / 5000, statusMessage. A handler with any other key (e.g.
 *   additionalContextLimit, not verified) is judged by the presence of its record alone.
 * The trust records in fixtures/codex/misc/home3-config.toml.after-trust do NOT match fixtures/codex/misc/hooks.json
 * under this rule: the fixture's commands were rewritten to /opt/probe/... after the run, and the hash covers the
 * command text.
 * @module
 */
import { realpathSync } from "node:fs";
import { parse } from "smol-toml";
import { asmCommandAgent, sha256Hex } from "../hook_file.ts";
import { isRecord } from "../../lang/mod.ts";

/** Where Codex ignores a group's matcher, so it is not part of the hash. */
const MATCHERLESS = new Set(["user_prompt_submit", "stop", "interrupt"]);
const NORMALISABLE_KEYS = new Set(["type", "command", "timeout", "async", "statusMessage"]);

/** `SessionStart` -> `session_start`, `UserPromptSubmit` -> `user_prompt_submit`. */
export function codexEventLabel(event: string): string {
  return event.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase();
}

/** The config.toml key of one hook: `<hooks.json path>:<snake_case event>:<group>:<hook>`. */
export function codexTrustKey(hooksPath: string, event: string, group: number, hook: number): string {
  return `${hooksPath}:${codexEventLabel(event)}:${group}:${hook}`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isRecord(value)) {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key])]));
  }
  return value;
}

/**
 * The `trusted_hash` Codex 0.169 records when the user trusts this handler (see the module comment), or null
 * when the handler has keys whose normalisation was not verified.
 */
export function codexHookHash(
  event: string,
  group: Record<string, unknown>,
  handler: Record<string, unknown>,
): string | null {
  if (Object.keys(handler).some((key) => !NORMALISABLE_KEYS.has(key))) return null;
  if (handler.type !== undefined && handler.type !== "command") return null;
  const label = codexEventLabel(event);
  const shortDefault = label === "session_end" || label === "interrupt";
  const raw = typeof handler.timeout === "number" && Number.isFinite(handler.timeout)
    ? handler.timeout
    : (shortDefault ? 1 : 600);
  const timeout = label === "session_end" ? Math.min(3, Math.max(1, raw)) : Math.max(1, raw);
  const normalised: Record<string, unknown> = {
    type: "command",
    command: handler.command,
    timeout,
    async: handler.async === true,
  };
  if (typeof handler.statusMessage === "string" && handler.statusMessage !== "") {
    normalised.statusMessage = handler.statusMessage;
  }
  const identity: Record<string, unknown> = { event_name: label, hooks: [normalised] };
  if (typeof group.matcher === "string" && !MATCHERLESS.has(label)) identity.matcher = group.matcher;
  return `sha256:${sha256Hex(JSON.stringify(sortKeys(identity)))}`;
}

/** One record of `[hooks.state."<key>"]`. */
export interface CodexTrustRecord {
  trusted_hash?: string;
  enabled?: boolean;
}

/** The `[hooks.state]` records of a config.toml text; an unreadable file has none. */
export function codexTrustRecords(configText: string | null): Map<string, CodexTrustRecord> {
  const records = new Map<string, CodexTrustRecord>();
  if (configText === null) return records;
  let config: Record<string, unknown>;
  try {
    config = parse(configText);
  } catch {
    return records;
  }
  const state = isRecord(config.hooks) && isRecord(config.hooks.state) ? config.hooks.state : {};
  for (const [key, value] of Object.entries(state)) {
    if (isRecord(value)) records.set(key, value as CodexTrustRecord);
  }
  return records;
}

/** How Codex will treat one of asm's hooks. */
export interface CodexHookTrust {
  key: string;
  event: string;
  /**
   * trusted: a record with the current hash (or, for a handler asm cannot hash, any record);
   * untrusted: no record; modified: a record for an older definition; disabled: the record turns it off.
   */
  status: "trusted" | "untrusted" | "modified" | "disabled";
}

/** The trust status of every asm hook of this agent in a hooks.json. */
export function codexHookTrust(
  options: {
    hooksPath: string;
    hooksRoot: Record<string, unknown>;
    configText: string | null;
    agentName: string;
  },
): CodexHookTrust[] {
  const records = codexTrustRecords(options.configText);
  const paths = [options.hooksPath];
  try {
    const real = realpathSync(options.hooksPath);
    if (real !== options.hooksPath) paths.push(real);
  } catch { /* no file, no other spelling */ }
  const hooks = isRecord(options.hooksRoot.hooks) ? options.hooksRoot.hooks : {};
  const result: CodexHookTrust[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, g) => {
      if (!isRecord(group) || !Array.isArray(group.hooks)) return;
      group.hooks.forEach((handler, h) => {
        if (!isRecord(handler) || asmCommandAgent(handler.command) !== options.agentName) return;
        const keys = paths.map((path) => codexTrustKey(path, event, g, h));
        const record = keys.map((key) => records.get(key)).find((r) => r !== undefined);
        result.push({ key: keys[0], event, status: statusOf(record, codexHookHash(event, group, handler)) });
      });
    });
  }
  return result;
}

function statusOf(record: CodexTrustRecord | undefined, hash: string | null): CodexHookTrust["status"] {
  if (record === undefined || typeof record.trusted_hash !== "string") return "untrusted";
  if (record.enabled === false) return "disabled";
  if (hash === null || record.trusted_hash === hash) return "trusted";
  return "modified";
}
