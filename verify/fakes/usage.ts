/**
 * A loopback fake of the three plan-usage endpoints, serving their documented response shapes, and every
 * failure a reader must survive: 401, 403, 429 (with Retry-After), 500, a timeout (no answer until closed),
 * malformed JSON and a slow answer.
 *
 * | endpoint      | path (under the fake's url)                                   | real base                            |
 * | ------------- | ------------------------------------------------------------- | ------------------------------------ |
 * | `anthropic`   | `GET /api/oauth/usage`                                        | `https://api.anthropic.com`          |
 * | `chatgpt`     | `GET /backend-api/wham/usage`                                 | `https://chatgpt.com/backend-api`    |
 * | `code-assist` | `POST /v1internal:loadCodeAssist`, `POST /v1internal:retrieveUserQuota` | `https://cloudcode-pa.googleapis.com` |
 *
 * Where the shapes come from (the fields the readers parse):
 * - `anthropic`: `five_hour` / `seven_day` / `seven_day_sonnet` / `seven_day_opus` / `seven_day_oauth_apps` as
 *   `{utilization, resets_at}` or null, and `extra_usage` `{is_enabled, monthly_limit, used_credits, utilization}`
 *   from public write-ups of the endpoint (charlieyou/aim QUOTA_APIS.md and others); `extra_usage.currency` and
 *   `limits[] {kind, group, percent, resets_at, severity, is_active}` from the example embedded in the Claude
 *   Code 2.1.328 binary; `model_scoped[] {display_name, utilization, resets_at}` from the same binary's SDK
 *   schema (assumed to appear in this response too).
 * - `chatgpt`: `plan_type`, `rate_limit {allowed, limit_reached, primary_window, secondary_window}`, windows
 *   `{used_percent, limit_window_seconds, reset_after_seconds, reset_at}`, `code_review_rate_limit`, `credits`
 *   from charlieyou/aim QUOTA_APIS.md; `additional_rate_limits[] {limit_name, metered_feature, rate_limit}`
 *   from the field names in the Codex 0.169.0 binary (its exact nesting is assumed).
 * - `code-assist`: `buckets[] {modelId, tokenType, remainingFraction, resetTime}` from charlieyou/aim
 *   QUOTA_APIS.md, `remainingAmount` and the `{project}` request from Gemini CLI 0.61.0's own bundle;
 *   `loadCodeAssist`'s `{currentTier, cloudaicompanionProject}` from the same bundle.
 * - What each endpoint does with a bad token or a missing header is assumed: 401 for a wrong bearer token.
 *
 * The bearer token is checked (a wrong one is 401) and never recorded.
 * @module
 */
import { jsonResponse, pause } from "./server.ts";

/** The three endpoints, named by their service. */
export type UsageEndpoint = "anthropic" | "chatgpt" | "code-assist";

/** How an endpoint answers. */
export type UsageFakeMode = "ok" | "401" | "403" | "429" | "500" | "timeout" | "malformed" | "slow";

/** Every failure mode, with the state a reader's reading must end in when it has nothing older to show. */
export const FAILURE_MODES: { mode: UsageFakeMode; state: "signed-out" | "error" }[] = [
  { mode: "401", state: "signed-out" },
  { mode: "403", state: "signed-out" },
  { mode: "429", state: "error" },
  { mode: "500", state: "error" },
  { mode: "timeout", state: "error" },
  { mode: "malformed", state: "error" },
];

/** One request as the fake saw it; the authorization header is reduced to whether it matched. */
export interface UsageFakeRequest {
  endpoint: UsageEndpoint;
  method: string;
  path: string;
  /** Lower-cased names; `authorization` is never kept. */
  headers: Record<string, string>;
  body: unknown;
  /** The bearer token was the expected one. */
  authorized: boolean;
}

/** Options of {@link startUsageFake}. */
export interface UsageFakeOptions {
  /** The bearer token each endpoint accepts; without one, any non-empty bearer is accepted. */
  tokens?: Partial<Record<UsageEndpoint, string>>;
  /** How long a `slow` answer waits (default 300 ms). */
  slowMs?: number;
  port?: number;
}

/** A running usage fake. */
export interface UsageFake {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** The base URL a reader is configured with for this endpoint (`usage_base_url`). */
  baseUrl(endpoint: UsageEndpoint): string;
  setMode(endpoint: UsageEndpoint, mode: UsageFakeMode): void;
  /** Answers `ok` with this body instead of the documented example (null: the example again). */
  setBody(endpoint: UsageEndpoint, body: unknown): void;
  /** The bearer token the endpoint accepts from now on. */
  expectToken(endpoint: UsageEndpoint, token: string): void;
  requests(): UsageFakeRequest[];
  close(): Promise<void>;
}

/** The project `loadCodeAssist` hands out. */
export const FAKE_PROJECT = "fake-project-4711";

/** ISO with microseconds and `+00:00`, as the Anthropic endpoint writes it. */
function anthropicTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1123+00:00");
}

/** The documented example of `GET /api/oauth/usage`, resets relative to `now`. */
export function anthropicExample(now: number): Record<string, unknown> {
  const d = new Date(now);
  const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return {
    five_hour: { utilization: 24.0, resets_at: anthropicTime(now + 2 * 3_600_000) },
    seven_day: { utilization: 36.0, resets_at: anthropicTime(now + 3 * 86_400_000) },
    seven_day_sonnet: { utilization: 1.0, resets_at: anthropicTime(now + 5 * 86_400_000) },
    seven_day_opus: null,
    seven_day_oauth_apps: null,
    iguana_necktie: null,
    extra_usage: {
      is_enabled: true,
      monthly_limit: 50000,
      used_credits: 27140,
      utilization: 54,
      currency: "USD",
    },
    limits: [{
      kind: "spend",
      group: "monthly",
      percent: 54,
      resets_at: new Date(nextMonth).toISOString(),
      severity: "normal",
      is_active: true,
    }],
  };
}

/** The documented example of `GET /backend-api/wham/usage`, resets relative to `now`. */
export function chatgptExample(now: number): Record<string, unknown> {
  const s = Math.floor(now / 1000);
  const win = (used: number, length: number, after: number) => ({
    used_percent: used,
    limit_window_seconds: length,
    reset_after_seconds: after,
    reset_at: s + after,
  });
  return {
    plan_type: "pro",
    rate_limit: {
      allowed: true,
      limit_reached: false,
      primary_window: win(3, 18_000, 15_858),
      secondary_window: win(9, 604_800, 489_450),
    },
    code_review_rate_limit: {
      allowed: true,
      limit_reached: false,
      primary_window: win(0, 604_800, 604_800),
      secondary_window: null,
    },
    credits: { has_credits: false, unlimited: false, balance: "0" },
  };
}

/** The documented example of `retrieveUserQuota`, resets relative to `now`. */
export function codeAssistExample(now: number): Record<string, unknown> {
  const reset = new Date(now + 10 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    buckets: [
      { modelId: "gemini-2.5-pro", tokenType: "REQUESTS", remainingFraction: 0.75, resetTime: reset },
      {
        modelId: "gemini-2.5-flash",
        tokenType: "REQUESTS",
        remainingAmount: "1350",
        remainingFraction: 0.9,
        resetTime: reset,
      },
    ],
  };
}

const ROUTES: { endpoint: UsageEndpoint; method: string; path: string }[] = [
  { endpoint: "anthropic", method: "GET", path: "/api/oauth/usage" },
  { endpoint: "chatgpt", method: "GET", path: "/backend-api/wham/usage" },
  { endpoint: "code-assist", method: "POST", path: "/v1internal:loadCodeAssist" },
  { endpoint: "code-assist", method: "POST", path: "/v1internal:retrieveUserQuota" },
];

/** Starts the fake on 127.0.0.1. */
export function startUsageFake(options: UsageFakeOptions = {}): UsageFake {
  const modes: Record<UsageEndpoint, UsageFakeMode> = { anthropic: "ok", chatgpt: "ok", "code-assist": "ok" };
  const bodies: Partial<Record<UsageEndpoint, unknown>> = {};
  const tokens: Partial<Record<UsageEndpoint, string>> = { ...options.tokens };
  const recorded: UsageFakeRequest[] = [];
  const closing = new AbortController();

  function okBody(endpoint: UsageEndpoint, path: string): unknown {
    if (endpoint === "code-assist" && path.endsWith(":loadCodeAssist")) {
      return {
        currentTier: { id: "free-tier", name: "Gemini Code Assist for individuals" },
        cloudaicompanionProject: FAKE_PROJECT,
      };
    }
    if (bodies[endpoint] !== undefined) return bodies[endpoint];
    const now = Date.now();
    if (endpoint === "anthropic") return anthropicExample(now);
    if (endpoint === "chatgpt") return chatgptExample(now);
    return codeAssistExample(now);
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const route = ROUTES.find((r) => r.method === request.method && r.path === url.pathname);
    const raw = await request.text();
    if (!route) {
      return jsonResponse(404, { error: `no fake usage endpoint at ${request.method} ${url.pathname}` });
    }
    const { endpoint } = route;
    const auth = request.headers.get("authorization") ?? "";
    const expected = tokens[endpoint];
    const authorized = expected === undefined ? /^Bearer \S+$/.test(auth) : auth === `Bearer ${expected}`;
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) if (name !== "authorization") headers[name] = value;
    let body: unknown = null;
    try {
      body = raw === "" ? null : JSON.parse(raw);
    } catch {
      body = raw;
    }
    recorded.push({
      endpoint,
      method: request.method,
      path: url.pathname + url.search,
      headers,
      body,
      authorized,
    });

    const mode = modes[endpoint];
    if (mode === "timeout") {
      await pause(3_600_000, closing.signal).catch(() => {});
      return jsonResponse(503, { error: "the fake is closing" });
    }
    if (mode === "401" || !authorized) {
      return jsonResponse(401, {
        error: { type: "authentication_error", message: "OAuth token has expired." },
      });
    }
    if (mode === "403") {
      return jsonResponse(403, { error: { type: "permission_error", message: "forbidden" } });
    }
    if (mode === "429") {
      return jsonResponse(429, { error: { type: "rate_limit_error", message: "Rate limited" } }, {
        "retry-after": "120",
      });
    }
    if (mode === "500") {
      return jsonResponse(500, { error: { type: "api_error", message: "Internal server error" } });
    }
    if (mode === "malformed") {
      return new Response('{"five_hour": {"utilization": 24.0, "resets_at": ', {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    }
    if (mode === "slow") await pause(options.slowMs ?? 300, closing.signal).catch(() => {});
    return jsonResponse(200, okBody(endpoint, url.pathname));
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: options.port ?? 0, onListen() {} }, handle);
  const url = `http://127.0.0.1:${server.addr.port}`;
  let closed: Promise<void> | null = null;
  return {
    url,
    baseUrl: (endpoint) => endpoint === "chatgpt" ? `${url}/backend-api` : url,
    setMode(endpoint, mode) {
      modes[endpoint] = mode;
    },
    setBody(endpoint, body) {
      if (body === null) delete bodies[endpoint];
      else bodies[endpoint] = body;
    },
    expectToken(endpoint, token) {
      tokens[endpoint] = token;
    },
    requests: () => [...recorded],
    close() {
      closed ??= (async () => {
        closing.abort();
        await server.shutdown();
      })();
      return closed;
    },
  };
}
