import assert from "node:assert/strict";
import { join } from "node:path";
import { readerHarness } from "../../usage/_test_utils.ts";
import { chatgptExample, FAILURE_MODES, startUsageFake } from "../../../verify/fakes/usage.ts";
import { tempHomes, writeFile } from "../_test_utils.ts";
import { codexAuthPath, codexUsage, parseCodexUsage } from "./usage.ts";

const T0 = Date.parse("2026-11-29T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("every window of Codex's usage answer is parsed: 5-hour, weekly, code review and additional limits", () => {
  const s = T0 / 1000;
  const rows: { why: string; body: unknown; windows: [string, number | null, string | null][] | null }[] = [
    {
      why: "the documented example",
      body: chatgptExample(T0),
      windows: [
        ["5-hour", 3, iso(T0 + 15_858_000)],
        ["weekly", 9, iso(T0 + 489_450_000)],
        ["code review weekly", 0, iso(T0 + 604_800_000)],
      ],
    },
    {
      why: "only reset_after_seconds: fixed to an instant from the answer's time",
      body: {
        rate_limit: {
          primary_window: { used_percent: 50, limit_window_seconds: 18_000, reset_after_seconds: 60 },
        },
      },
      windows: [["5-hour", 50, iso(T0 + 60_000)]],
    },
    {
      why: "an additional limit is named by its limit_name",
      body: {
        rate_limit: null,
        additional_rate_limits: [{
          limit_name: "GPT-5.3-Codex-Spark",
          metered_feature: "codex_bengalfox",
          rate_limit: { primary_window: { used_percent: 7, limit_window_seconds: 18_000, reset_at: s + 10 } },
        }],
      },
      windows: [["GPT-5.3-Codex-Spark 5-hour", 7, iso(T0 + 10_000)]],
    },
    { why: "an error body is not a reading", body: { detail: "Unauthorized" }, windows: null },
  ];
  for (const row of rows) {
    const got = parseCodexUsage(row.body, T0);
    assert.deepEqual(got?.map((w) => [w.name, w.percent_used, w.resets_at]) ?? null, row.windows, row.why);
  }
});

function auth(token: string, accountId: string): string {
  return JSON.stringify({
    auth_mode: "chatgpt",
    OPENAI_API_KEY: null,
    tokens: {
      id_token: `${token}-id`,
      access_token: token,
      refresh_token: `${token}-refresh`,
      account_id: accountId,
    },
    last_refresh: "2026-11-29T10:00:00.000Z",
  });
}

Deno.test("Codex's reader sends the access token and the ChatGPT account id, and reads every window", async () => {
  using homes = tempHomes();
  const token = `tok-codex-${crypto.randomUUID()}`;
  const account = `acct-${crypto.randomUUID()}`;
  writeFile(codexAuthPath(homes.env), auth(token, account));
  const fake = startUsageFake({ tokens: { chatgpt: token } });
  try {
    const reading = await readerHarness(codexUsage, { env: homes.env, baseUrl: fake.baseUrl("chatgpt") })
      .read();
    assert.equal(reading.state, "ok", reading.message);
    assert.deepEqual(reading.windows.map((w) => [w.name, w.percent_used]), [
      ["5-hour", 3],
      ["weekly", 9],
      ["code review weekly", 0],
    ]);
    const [seen] = fake.requests();
    assert.equal(seen.authorized, true);
    assert.equal(seen.path, "/backend-api/wham/usage");
    assert.equal(seen.headers["chatgpt-account-id"], account);
  } finally {
    await fake.close();
  }
});

Deno.test("Codex's reader comes to the right state for every failure of the endpoint, and no message holds the token", async () => {
  using homes = tempHomes();
  const token = `tok-codex-${crypto.randomUUID()}`;
  writeFile(codexAuthPath(homes.env), auth(token, "acct-1"));
  const fake = startUsageFake({ tokens: { chatgpt: token }, slowMs: 200 });
  try {
    for (const { mode, state } of [...FAILURE_MODES, { mode: "slow" as const, state: "ok" as const }]) {
      fake.setMode("chatgpt", mode);
      const reader = readerHarness(codexUsage, {
        env: homes.env,
        baseUrl: fake.baseUrl("chatgpt"),
        timeoutMs: 500,
      });
      const reading = await reader.read();
      assert.equal(reading.state, state, `${mode}: ${reading.message}`);
      assert.equal(reading.label, null, `${mode}: no rollout, so no last-turn figures`);
      assert.ok(
        !JSON.stringify([reading, reader.logged]).includes(token),
        `${mode}: no token in the reading or log`,
      );
    }
  } finally {
    await fake.close();
  }
});

Deno.test("a Codex signed in with an API key has no account reading, and its endpoint is not called", async () => {
  using homes = tempHomes();
  writeFile(
    codexAuthPath(homes.env),
    JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: "sk-x", tokens: null }),
  );
  const fake = startUsageFake();
  try {
    const reading = await readerHarness(codexUsage, { env: homes.env, baseUrl: fake.baseUrl("chatgpt") })
      .read();
    assert.equal(reading.state, "unavailable");
    assert.match(reading.message, /not signed in with ChatGPT/);
    assert.equal(fake.requests().length, 0);
  } finally {
    await fake.close();
  }
});

Deno.test("when Codex's token is refused, the newest rollout's figures are shown, labelled", async () => {
  using homes = tempHomes();
  const token = `tok-codex-${crypto.randomUUID()}`;
  writeFile(codexAuthPath(homes.env), auth(token, "acct-1"));
  const now = Date.now();
  const turnAt = iso(now - 120_000);
  const line = {
    timestamp: turnAt,
    type: "event_msg",
    payload: {
      type: "token_count",
      rate_limits: {
        primary: { used_percent: 33, window_minutes: 300, resets_at: Math.floor(now / 1000) + 600 },
      },
    },
  };
  writeFile(
    join(homes.codexHome, "sessions", "2026", "11", "29", "rollout-y.jsonl"),
    JSON.stringify(line) + "\n",
  );
  const fake = startUsageFake({ tokens: { chatgpt: "tok-a-different-one" } });
  try {
    const reading = await readerHarness(codexUsage, {
      env: homes.env,
      baseUrl: fake.baseUrl("chatgpt"),
      startMs: now,
    })
      .read();
    assert.equal(reading.state, "signed-out");
    assert.match(reading.message, /^signed out or token expired .*; showing the last turn's figures$/);
    assert.equal(reading.label, `from the last turn at ${turnAt}`);
    assert.equal(reading.age, 120);
    assert.deepEqual(reading.windows.map((w) => [w.name, w.percent_used, w.source]), [[
      "5-hour",
      33,
      "last-turn",
    ]]);
  } finally {
    await fake.close();
  }
});
