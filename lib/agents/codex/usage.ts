/**
 * Codex's plan usage: `GET https://chatgpt.com/backend-api/wham/usage` with the ChatGPT sign-in's access token and
 * `ChatGPT-Account-Id` from `$CODEX_HOME/auth.json` (`tokens.access_token`, `tokens.account_id`). Read fresh on
 * every call, held for that call only, never written, logged or refreshed. When no account reading is possible
 * (an API-key sign-in, no auth.json, a refused token, a failed call), the newest rollout's last-turn figures are
 * the fallback (`last_turn.ts`).
 * @module
 */
import { join } from "node:path";
import type { Env } from "../protocol.ts";
import { codexHome } from "./home.ts";
import { codexLastTurn } from "./last_turn.ts";
import {
  type AccountOutcome,
  fileStamp,
  finite,
  isoFromEpochSeconds,
  type RawWindow,
  readCredentialsFile,
  requestJson,
  resolveBaseUrl,
  stringField,
  type UsageFetchContext,
  type UsageSource,
  windowNameForSeconds,
} from "../../usage/mod.ts";
import { isRecord } from "../../lang/mod.ts";

/** The real endpoint's base. */
export const CODEX_USAGE_BASE = "https://chatgpt.com/backend-api";

/** `$CODEX_HOME/auth.json`. */
export function codexAuthPath(env: Env): string {
  return join(codexHome(env), "auth.json");
}

/** The windows of one `{primary_window, secondary_window}` block, named by their length, with a prefix. */
function windowsOfBlock(block: unknown, prefix: string, nowMs: number): RawWindow[] {
  if (!isRecord(block)) return [];
  const windows: RawWindow[] = [];
  for (const slot of ["primary_window", "secondary_window"] as const) {
    const w = block[slot];
    if (!isRecord(w)) continue;
    const after = finite(w.reset_after_seconds);
    // reset_at is absolute; reset_after_seconds is relative to the answer, so it is fixed to an instant now
    const resetsAt = isoFromEpochSeconds(w.reset_at) ??
      (after === null ? null : new Date(nowMs + after * 1000).toISOString());
    const name = windowNameForSeconds(finite(w.limit_window_seconds)) ?? slot.replace("_window", "");
    windows.push({ name: prefix + name, percent_used: finite(w.used_percent), resets_at: resetsAt });
  }
  return windows;
}

/**
 * Every window of an answer: `rate_limit` (5-hour, weekly), `code_review_rate_limit`, and each
 * `additional_rate_limits` entry (named by its `limit_name`). `credits` is a balance, not a window. Null when the
 * answer is not a usage reading.
 */
export function parseCodexUsage(body: unknown, nowMs: number): RawWindow[] | null {
  if (!isRecord(body) || !("rate_limit" in body)) return null;
  const windows = [
    ...windowsOfBlock(body.rate_limit, "", nowMs),
    ...windowsOfBlock(body.code_review_rate_limit, "code review ", nowMs),
  ];
  if (Array.isArray(body.additional_rate_limits)) {
    for (const extra of body.additional_rate_limits) {
      if (!isRecord(extra)) continue;
      const label = stringField(extra, "limit_name") ?? stringField(extra, "metered_feature") ?? "other";
      windows.push(...windowsOfBlock(extra.rate_limit, `${label} `, nowMs));
    }
  }
  return windows;
}

/** One call of Codex's usage endpoint. */
export async function codexAccountUsage(ctx: UsageFetchContext): Promise<AccountOutcome> {
  const path = codexAuthPath(ctx.env);
  const file = await readCredentialsFile(path);
  if (file.kind === "absent") {
    return { kind: "unavailable", message: `no ChatGPT sign-in for Codex (${path} is absent)` };
  }
  if (file.kind === "invalid") return { kind: "failed", message: file.message };
  const tokens = file.root.tokens;
  const token = stringField(tokens, "access_token");
  if (token === null) {
    return {
      kind: "unavailable",
      message:
        `Codex is not signed in with ChatGPT (${path} holds no access token); an API key has no plan usage`,
    };
  }
  const accountId = stringField(tokens, "account_id");
  const base = resolveBaseUrl(ctx.baseUrl, CODEX_USAGE_BASE);
  if ("problem" in base) return { kind: "failed", message: base.problem };
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (accountId !== null) headers["chatgpt-account-id"] = accountId;
  const answer = await requestJson({
    url: `${base.url}/wham/usage`,
    headers,
    timeoutMs: ctx.timeoutMs,
    what: "Codex's usage endpoint",
    secrets: accountId === null ? [token] : [token, accountId],
  });
  if (answer.kind !== "json") return answer;
  const windows = parseCodexUsage(answer.body, ctx.now);
  return windows === null
    ? { kind: "failed", message: "Codex's usage endpoint answered JSON that is not a usage reading" }
    : { kind: "ok", windows };
}

/** Codex's usage reader (the adapter's `usage`). */
export const codexUsage: UsageSource = {
  account: codexAccountUsage,
  lastTurn: (ctx) => Promise.resolve(codexLastTurn(ctx.env)),
  credentialsStamp: (ctx) => fileStamp(codexAuthPath(ctx.env)),
  credentialsPath: codexAuthPath,
};
