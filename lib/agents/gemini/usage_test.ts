import assert from "node:assert/strict";
import { readerHarness } from "../../usage/_test_utils.ts";
import {
  codeAssistExample,
  FAILURE_MODES,
  FAKE_PROJECT,
  startUsageFake,
} from "../../../verify/fakes/usage.ts";
import { tempHomes, writeFile } from "../_test_utils.ts";
import { geminiOauthPath, geminiUsage, parseGeminiQuota } from "./usage.ts";

const T0 = Date.parse("2026-11-29T12:00:00.000Z");

Deno.test("every bucket of Gemini's quota answer is a window named by its model", () => {
  const rows: { why: string; body: unknown; windows: [string, number | null, string | null][] | null }[] = [
    {
      why: "the documented example",
      body: codeAssistExample(T0),
      windows: [
        ["gemini-2.5-pro", 25, "2026-11-29T22:00:00.000Z"],
        ["gemini-2.5-flash", 10, "2026-11-29T22:00:00.000Z"],
      ],
    },
    {
      why: "a token bucket, a fraction with binary noise, no reset time, a bucket without a model",
      body: {
        buckets: [
          { modelId: "gemini-3-pro", tokenType: "TOKENS", remainingFraction: 0.7 },
          { modelId: "gemini-3-flash", remainingFraction: 1 - 0.3 },
          { tokenType: "REQUESTS", remainingFraction: 0.5 },
        ],
      },
      windows: [["gemini-3-pro (tokens)", 30, null], ["gemini-3-flash", 30, null]],
    },
    { why: "no buckets: nothing to show, still a reading", body: {}, windows: [] },
    { why: "buckets that are not a list", body: { buckets: "none" }, windows: null },
  ];
  for (const row of rows) {
    const got = parseGeminiQuota(row.body);
    assert.deepEqual(got?.map((w) => [w.name, w.percent_used, w.resets_at]) ?? null, row.windows, row.why);
  }
});

function oauthCreds(token: string, expiry = Date.now() + 3_600_000): string {
  return JSON.stringify({
    access_token: token,
    refresh_token: `${token}-refresh`,
    scope: "https://www.googleapis.com/auth/cloud-platform",
    token_type: "Bearer",
    expiry_date: expiry,
  });
}

Deno.test("Gemini's reader asks for the account's project, then its quota, with the Google sign-in's token", async () => {
  using homes = tempHomes();
  const token = `tok-gemini-${crypto.randomUUID()}`;
  writeFile(geminiOauthPath(homes.env), oauthCreds(token));
  const fake = startUsageFake({ tokens: { "code-assist": token } });
  try {
    const reading = await readerHarness(geminiUsage, { env: homes.env, baseUrl: fake.baseUrl("code-assist") })
      .read();
    assert.equal(reading.state, "ok", reading.message);
    assert.deepEqual(reading.windows.map((w) => [w.name, w.percent_used]), [
      ["gemini-2.5-pro", 25],
      ["gemini-2.5-flash", 10],
    ]);
    const [load, quota] = fake.requests();
    assert.equal(load.path, "/v1internal:loadCodeAssist");
    assert.equal(quota.path, "/v1internal:retrieveUserQuota");
    assert.deepEqual(quota.body, { project: FAKE_PROJECT });
    assert.ok(load.authorized && quota.authorized);
  } finally {
    await fake.close();
  }
});

Deno.test("a project named in GOOGLE_CLOUD_PROJECT is used as Gemini CLI uses it", async () => {
  using homes = tempHomes();
  writeFile(geminiOauthPath(homes.env), oauthCreds("tok-gemini-project-test"));
  const fake = startUsageFake();
  try {
    const env = { ...homes.env, GOOGLE_CLOUD_PROJECT: "my-own-project" };
    assert.equal(
      (await readerHarness(geminiUsage, { env, baseUrl: fake.baseUrl("code-assist") }).read()).state,
      "ok",
    );
    assert.deepEqual(fake.requests().map((r) => [r.path, r.body]), [
      ["/v1internal:retrieveUserQuota", { project: "my-own-project" }],
    ]);
  } finally {
    await fake.close();
  }
});

Deno.test("Gemini's reader comes to the right state for every failure of the endpoint, and no message holds the token", async () => {
  using homes = tempHomes();
  const token = `tok-gemini-${crypto.randomUUID()}`;
  writeFile(geminiOauthPath(homes.env), oauthCreds(token));
  const fake = startUsageFake({ tokens: { "code-assist": token }, slowMs: 200 });
  try {
    for (const { mode, state } of [...FAILURE_MODES, { mode: "slow" as const, state: "ok" as const }]) {
      fake.setMode("code-assist", mode);
      const reader = readerHarness(geminiUsage, {
        env: homes.env,
        baseUrl: fake.baseUrl("code-assist"),
        timeoutMs: 500,
      });
      const reading = await reader.read();
      assert.equal(reading.state, state, `${mode}: ${reading.message}`);
      assert.ok(
        !JSON.stringify([reading, reader.logged]).includes(token),
        `${mode}: no token in the reading or log`,
      );
    }
  } finally {
    await fake.close();
  }
});

Deno.test("a Gemini CLI signed in with an API key reads 'not available with API-key sign-in', and an expired token calls nothing", async () => {
  using homes = tempHomes();
  const fake = startUsageFake();
  try {
    const read = () =>
      readerHarness(geminiUsage, { env: homes.env, baseUrl: fake.baseUrl("code-assist") }).read();
    const apiKey = await read();
    assert.equal(apiKey.state, "unavailable");
    assert.match(apiKey.message, /^not available with API-key sign-in/);
    assert.deepEqual(apiKey.windows, []);
    writeFile(geminiOauthPath(homes.env), oauthCreds("tok-gemini-expired-0123", Date.now() - 1));
    const expired = await read();
    assert.equal(expired.state, "signed-out");
    assert.match(expired.message, /Gemini CLI renews it the next time it runs/);
    assert.equal(fake.requests().length, 0);
  } finally {
    await fake.close();
  }
});
