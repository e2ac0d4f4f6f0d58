import assert from "node:assert/strict";
import { readerHarness } from "../../usage/_test_utils.ts";
import { agentsBinDir, PINNED_AGENTS } from "../../../verify/prerequisites.ts";
import { anthropicExample, FAILURE_MODES, startUsageFake } from "../../../verify/fakes/usage.ts";
import { tempHomes, writeFile } from "../_test_utils.ts";
import { claudeCredentialsPath, claudeUsage, parseClaudeUsage } from "./usage.ts";

const T0 = Date.parse("2026-11-29T12:00:00.000Z");

Deno.test("every window of Claude's usage answer is parsed, and nothing that is not a window", () => {
  const rows: { why: string; body: unknown; windows: [string, number | null, string | null][] | null }[] = [
    {
      why: "the documented example: 5-hour, weekly, per model, and the spend cap from limits",
      body: anthropicExample(T0),
      windows: [
        ["5-hour", 24, "2026-11-29T14:00:00.000Z"],
        ["weekly", 36, "2026-12-02T12:00:00.000Z"],
        ["weekly (Sonnet)", 1, "2026-12-04T12:00:00.000Z"],
        ["extra usage (monthly)", 54, "2026-12-01T00:00:00.000Z"],
      ],
    },
    {
      why: "extra usage on without a cap: no percent, never 0",
      body: {
        five_hour: { utilization: 61.0, resets_at: "2026-01-28T07:59:59.571404+00:00" },
        extra_usage: { is_enabled: true, monthly_limit: null, used_credits: 1240, utilization: null },
        limits: [],
      },
      windows: [["5-hour", 61, "2026-01-28T07:59:59.571Z"], ["extra usage", null, null]],
    },
    {
      why: "extra usage off, Opus window, a window key asm does not know yet, per-model rows",
      body: {
        seven_day: { utilization: 9, resets_at: null },
        seven_day_opus: { utilization: 70, resets_at: "2026-01-08T06:59:59.600974+00:00" },
        cinder_cove: { utilization: 3, resets_at: null },
        iguana_necktie: null,
        model_scoped: [{ display_name: "Fable", utilization: 12, resets_at: null }],
        extra_usage: { is_enabled: false, monthly_limit: null, used_credits: null, utilization: null },
      },
      windows: [
        ["weekly", 9, null],
        ["weekly (Opus)", 70, "2026-01-08T06:59:59.600Z"],
        ["cinder cove", 3, null],
        ["weekly (Fable)", 12, null],
      ],
    },
    {
      why: "an error body is not a reading",
      body: { error: { type: "authentication_error" } },
      windows: null,
    },
    { why: "a list is not a reading", body: [1, 2], windows: null },
  ];
  for (const row of rows) {
    const got = parseClaudeUsage(row.body);
    assert.deepEqual(got?.map((w) => [w.name, w.percent_used, w.resets_at]) ?? null, row.windows, row.why);
  }
});

function credentials(token: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    claudeAiOauth: {
      accessToken: token,
      refreshToken: `${token}-refresh`,
      expiresAt: Date.now() + 3_600_000,
      scopes: ["user:inference", "user:profile"],
      subscriptionType: "max",
      ...extra,
    },
  });
}

Deno.test("Claude's reader calls the endpoint with the beta header and the installed version's user agent", async () => {
  using homes = tempHomes();
  const token = `tok-claude-${crypto.randomUUID()}`;
  writeFile(claudeCredentialsPath(homes.env), credentials(token));
  const fake = startUsageFake({ tokens: { anthropic: token } });
  try {
    const env = { ...homes.env, PATH: `${agentsBinDir()}:/usr/bin:/bin` };
    const reader = readerHarness(claudeUsage, { env, baseUrl: fake.baseUrl("anthropic"), command: "claude" });
    const reading = await reader.read();
    assert.equal(reading.state, "ok", reading.message);
    assert.deepEqual(reading.windows.map((w) => [w.name, w.percent_used]), [
      ["5-hour", 24],
      ["weekly", 36],
      ["weekly (Sonnet)", 1],
      ["extra usage (monthly)", 54],
    ]);
    assert.ok(reading.windows.every((w) => w.source === "account" && w.resets_in_seconds! > 0));
    const [seen] = fake.requests();
    assert.equal(seen.authorized, true);
    assert.equal(seen.method, "GET");
    assert.equal(seen.path, "/api/oauth/usage");
    assert.equal(seen.headers["anthropic-beta"], "oauth-2025-04-20");
    assert.equal(seen.headers["user-agent"], `claude-code/${PINNED_AGENTS.claude.version}`);
  } finally {
    await fake.close();
  }
});

Deno.test("Claude's reader comes to the right state for every failure of the endpoint, and no message holds the token", async () => {
  using homes = tempHomes();
  const token = `tok-claude-${crypto.randomUUID()}`;
  writeFile(claudeCredentialsPath(homes.env), credentials(token));
  const fake = startUsageFake({ tokens: { anthropic: token }, slowMs: 200 });
  try {
    for (const { mode, state } of [...FAILURE_MODES, { mode: "slow" as const, state: "ok" as const }]) {
      fake.setMode("anthropic", mode);
      const reader = readerHarness(claudeUsage, {
        env: homes.env,
        baseUrl: fake.baseUrl("anthropic"),
        timeoutMs: 500,
      });
      const reading = await reader.read();
      assert.equal(reading.state, state, `${mode}: ${reading.message}`);
      if (state === "signed-out") assert.match(reading.message, /^signed out or token expired/, mode);
      assert.ok(
        !JSON.stringify([reading, reader.logged]).includes(token),
        `${mode}: no token in the reading or log`,
      );
    }
  } finally {
    await fake.close();
  }
});

Deno.test("Claude's token is read fresh off disk on every call", async () => {
  using homes = tempHomes();
  const first = `tok-claude-${crypto.randomUUID()}`;
  const second = `tok-claude-${crypto.randomUUID()}`;
  const path = claudeCredentialsPath(homes.env);
  writeFile(path, credentials(first));
  const fake = startUsageFake({ tokens: { anthropic: first } });
  try {
    const reader = readerHarness(claudeUsage, { env: homes.env, baseUrl: fake.baseUrl("anthropic") });
    assert.equal((await reader.read()).state, "ok");
    // Claude Code refreshed its token: the endpoint now accepts only the new one
    const written = credentials(second);
    Deno.writeTextFileSync(path, written);
    fake.expectToken("anthropic", second);
    reader.advance(60_000);
    assert.equal((await reader.read()).state, "ok", "a token kept in memory would be refused now");
    assert.deepEqual(fake.requests().map((r) => r.authorized), [true, true]);
    assert.equal(Deno.readTextFileSync(path), written, "the credentials file is never written");
  } finally {
    await fake.close();
  }
});

Deno.test("without a usable Claude sign-in the reader says why, and asks the endpoint only when there is a token to send", async () => {
  using homes = tempHomes();
  const token = `tok-claude-${crypto.randomUUID()}`;
  const path = claudeCredentialsPath(homes.env);
  const fake = startUsageFake();
  try {
    const read = () =>
      readerHarness(claudeUsage, { env: homes.env, baseUrl: fake.baseUrl("anthropic") }).read();
    const absent = await read();
    assert.equal(absent.state, "unavailable");
    assert.match(absent.message, /no Claude account sign-in on this machine/);

    writeFile(path, credentials(token, { expiresAt: Date.now() - 1_000 }));
    const expired = await read();
    assert.equal(expired.state, "signed-out");
    assert.match(expired.message, /^signed out or token expired \(the sign-in token expired at /);

    writeFile(path, `{"claudeAiOauth": {"accessToken": "${token}",`);
    const broken = await read();
    assert.equal(broken.state, "error");
    assert.equal(broken.message, `${path} is not valid JSON`);

    writeFile(path, JSON.stringify({ mcpOAuth: {} }));
    assert.equal((await read()).state, "unavailable");
    assert.equal(fake.requests().length, 0, "no call without a live token");
    assert.ok(!JSON.stringify([absent, expired, broken]).includes(token));
  } finally {
    await fake.close();
  }
});
