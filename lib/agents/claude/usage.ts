/**
 * Claude Code's plan usage: `GET https://api.anthropic.com/api/oauth/usage` with the account's OAuth access token
 * (`~/.claude/.credentials.json` `claudeAiOauth.accessToken`), `anthropic-beta: oauth-2025-04-20` and the
 * `claude-code/<installed version>` user agent Claude Code itself sends. The token is read fresh on every call,
 * held for that call only, and never written, logged or refreshed (refreshing would race Claude Code's own
 * refresh and sign the user out). An expired token is reported without calling.
 * @module
 */
import { join } from "node:path";
import { homeDir } from "../../config/mod.ts";
import type { Env } from "../protocol.ts";
import {
  type AccountOutcome,
  fileStamp,
  finite,
  isoFromText,
  numberField,
  type RawWindow,
  readCredentialsFile,
  requestJson,
  resolveBaseUrl,
  SIGNED_OUT,
  stringField,
  type UsageFetchContext,
  type UsageSource,
} from "../../usage/mod.ts";
import { claudeVersion } from "./version.ts";
import { isRecord } from "../../lang/mod.ts";

/** The real endpoint's base. */
export const CLAUDE_USAGE_BASE = "https://api.anthropic.com";

/** `$HOME/.claude/.credentials.json`. */
export function claudeCredentialsPath(env: Env): string {
  return join(homeDir(env), ".claude", ".credentials.json");
}

/** Names for the window keys the endpoint is known to send; any other key with a window is named by its key. */
const WINDOW_NAMES: Record<string, string> = {
  five_hour: "5-hour",
  seven_day: "weekly",
  seven_day_opus: "weekly (Opus)",
  seven_day_sonnet: "weekly (Sonnet)",
  seven_day_oauth_apps: "weekly (OAuth apps)",
};
/** Keys that are not a `{utilization, resets_at}` window. */
const NOT_WINDOWS = new Set(["extra_usage", "limits", "model_scoped"]);
/** At least one of these marks a usage reading (Claude Code checks the same way). */
const READING_KEYS = [
  "five_hour",
  "seven_day",
  "seven_day_opus",
  "seven_day_sonnet",
  "extra_usage",
  "limits",
];

/**
 * Every window of an answer: each `{utilization, resets_at}` key (5-hour, weekly, per model, and keys not known
 * yet), `model_scoped` rows, and extra usage (one row per spend cap in `limits`, else `extra_usage` itself when
 * it is on). Null when the answer is not a usage reading at all.
 */
export function parseClaudeUsage(body: unknown): RawWindow[] | null {
  if (!isRecord(body) || !READING_KEYS.some((k) => k in body)) return null;
  const windows: RawWindow[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (NOT_WINDOWS.has(key) || !isRecord(value) || !("utilization" in value)) continue;
    windows.push({
      name: WINDOW_NAMES[key] ?? key.replaceAll("_", " "),
      percent_used: finite(value.utilization),
      resets_at: isoFromText(value.resets_at),
    });
  }
  if (Array.isArray(body.model_scoped)) {
    for (const row of body.model_scoped) {
      if (!isRecord(row) || typeof row.display_name !== "string") continue;
      windows.push({
        name: `weekly (${row.display_name})`,
        percent_used: finite(row.utilization),
        resets_at: isoFromText(row.resets_at),
      });
    }
  }
  const caps = Array.isArray(body.limits) ? body.limits.filter((r) => isRecord(r) && "percent" in r) : [];
  for (const cap of caps as Record<string, unknown>[]) {
    windows.push({
      name: typeof cap.group === "string" ? `extra usage (${cap.group})` : "extra usage",
      percent_used: finite(cap.percent),
      resets_at: isoFromText(cap.resets_at),
    });
  }
  const extra = body.extra_usage;
  if (caps.length === 0 && isRecord(extra) && extra.is_enabled === true) {
    // no cap: utilization is null, and stays null (no cap is not 0 %)
    windows.push({ name: "extra usage", percent_used: finite(extra.utilization), resets_at: null });
  }
  return windows;
}

/** One call of Claude's usage endpoint. */
export async function claudeAccountUsage(ctx: UsageFetchContext): Promise<AccountOutcome> {
  const path = claudeCredentialsPath(ctx.env);
  const file = await readCredentialsFile(path);
  if (file.kind === "absent") {
    return {
      kind: "unavailable",
      message: `no Claude account sign-in on this machine (${path} is absent); an API key has no plan usage`,
    };
  }
  if (file.kind === "invalid") return { kind: "failed", message: file.message };
  const oauth = file.root.claudeAiOauth;
  const token = stringField(oauth, "accessToken");
  if (token === null) return { kind: "unavailable", message: `${path} holds no Claude account sign-in` };
  const expiresAt = numberField(oauth, "expiresAt");
  if (expiresAt !== null && expiresAt <= ctx.now) {
    return {
      kind: "signed-out",
      message: `${SIGNED_OUT} (the sign-in token expired at ${new Date(expiresAt).toISOString()}; ` +
        "Claude Code renews it the next time it runs)",
    };
  }
  const base = resolveBaseUrl(ctx.baseUrl, CLAUDE_USAGE_BASE);
  if ("problem" in base) return { kind: "failed", message: base.problem };
  const version = await claudeVersion(ctx.command, ctx.env);
  const answer = await requestJson({
    url: `${base.url}/api/oauth/usage`,
    headers: {
      authorization: `Bearer ${token}`,
      "anthropic-beta": "oauth-2025-04-20",
      "user-agent": `claude-code/${version ?? "unknown"}`,
    },
    timeoutMs: ctx.timeoutMs,
    what: "Claude's usage endpoint",
    secrets: [token],
  });
  if (answer.kind !== "json") return answer;
  const windows = parseClaudeUsage(answer.body);
  return windows === null
    ? { kind: "failed", message: "Claude's usage endpoint answered JSON that is not a usage reading" }
    : { kind: "ok", windows };
}

/** Claude's usage reader (the adapter's `usage`). */
export const claudeUsage: UsageSource = {
  account: claudeAccountUsage,
  credentialsStamp: (ctx) => fileStamp(claudeCredentialsPath(ctx.env)),
  credentialsPath: claudeCredentialsPath,
};
