/**
 * Gemini CLI's quota: the Code Assist backend Gemini CLI itself uses with a Google sign-in
 * (`https://cloudcode-pa.googleapis.com/v1internal`): `POST :loadCodeAssist` for the account's project (unless
 * `GOOGLE_CLOUD_PROJECT` names one, as Gemini CLI does), then `POST :retrieveUserQuota {project}` for the buckets
 * (`{modelId, tokenType, remainingFraction, resetTime}`). The token is `access_token` of
 * `$GEMINI_CLI_HOME/.gemini/oauth_creds.json` (GEMINI_CLI_HOME defaulting to HOME), read fresh on every call and
 * never written, logged or refreshed. With an API key there is no such file and no quota to read.
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
import { isRecord } from "../../lang/mod.ts";

/** The real endpoint's base. */
export const GEMINI_USAGE_BASE = "https://cloudcode-pa.googleapis.com";

/** The sentence of a Gemini CLI signed in with an API key. */
export const API_KEY_SIGN_IN = "not available with API-key sign-in";

/** `$GEMINI_CLI_HOME/.gemini/oauth_creds.json`, GEMINI_CLI_HOME defaulting to HOME. */
export function geminiOauthPath(env: Env): string {
  return join(env.GEMINI_CLI_HOME || homeDir(env), ".gemini", "oauth_creds.json");
}

/**
 * Every bucket of a `retrieveUserQuota` answer as a window named by its model (and its token type when that is
 * not requests); percent used is `1 - remainingFraction`. Null when the answer is not a quota reading.
 */
export function parseGeminiQuota(body: unknown): RawWindow[] | null {
  if (!isRecord(body) || (body.buckets !== undefined && !Array.isArray(body.buckets))) return null;
  const windows: RawWindow[] = [];
  for (const bucket of (body.buckets ?? []) as unknown[]) {
    if (!isRecord(bucket) || typeof bucket.modelId !== "string") continue;
    const remaining = finite(bucket.remainingFraction);
    const type = typeof bucket.tokenType === "string" && bucket.tokenType !== "REQUESTS"
      ? ` (${bucket.tokenType.toLowerCase()})`
      : "";
    windows.push({
      name: bucket.modelId + type,
      // one decimal: the fraction's binary noise (0.30000000000000004) is not a reading
      percent_used: remaining === null ? null : Math.round((1 - remaining) * 1000) / 10,
      resets_at: isoFromText(bucket.resetTime),
    });
  }
  return windows;
}

/** One reading of Gemini's quota (two calls: the project, then the quota). */
export async function geminiAccountUsage(ctx: UsageFetchContext): Promise<AccountOutcome> {
  const path = geminiOauthPath(ctx.env);
  const file = await readCredentialsFile(path);
  if (file.kind === "absent") {
    return { kind: "unavailable", message: `${API_KEY_SIGN_IN} (no Google sign-in: ${path} is absent)` };
  }
  if (file.kind === "invalid") return { kind: "failed", message: file.message };
  const token = stringField(file.root, "access_token");
  if (token === null) {
    return { kind: "unavailable", message: `${API_KEY_SIGN_IN} (${path} holds no Google sign-in)` };
  }
  const expiry = numberField(file.root, "expiry_date");
  if (expiry !== null && expiry <= ctx.now) {
    return {
      kind: "signed-out",
      message: `${SIGNED_OUT} (the Google sign-in token expired at ${new Date(expiry).toISOString()}; ` +
        "Gemini CLI renews it the next time it runs)",
    };
  }
  const base = resolveBaseUrl(ctx.baseUrl, GEMINI_USAGE_BASE);
  if ("problem" in base) return { kind: "failed", message: base.problem };
  const call = (method: string, body: unknown) =>
    requestJson({
      url: `${base.url}/v1internal:${method}`,
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body,
      timeoutMs: ctx.timeoutMs,
      what: "Gemini's Code Assist quota endpoint",
      secrets: [token],
    });
  let project = ctx.env.GOOGLE_CLOUD_PROJECT || ctx.env.GOOGLE_CLOUD_PROJECT_ID || null;
  if (project === null) {
    const loaded = await call("loadCodeAssist", {
      metadata: { ideType: "IDE_UNSPECIFIED", platform: "PLATFORM_UNSPECIFIED", pluginType: "GEMINI" },
    });
    if (loaded.kind !== "json") return loaded;
    project = stringField(loaded.body, "cloudaicompanionProject");
    if (project === null) {
      return {
        kind: "unavailable",
        message: "this Google account has no Code Assist project yet; run gemini once to finish signing in",
      };
    }
  }
  const answer = await call("retrieveUserQuota", { project });
  if (answer.kind !== "json") return answer;
  const windows = parseGeminiQuota(answer.body);
  return windows === null
    ? {
      kind: "failed",
      message: "Gemini's Code Assist quota endpoint answered JSON that is not a quota reading",
    }
    : { kind: "ok", windows };
}

/** Gemini's usage reader (the adapter's `usage`). */
export const geminiUsage: UsageSource = {
  account: geminiAccountUsage,
  credentialsStamp: (ctx) => fileStamp(geminiOauthPath(ctx.env)),
  credentialsPath: geminiOauthPath,
};
