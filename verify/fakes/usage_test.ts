import assert from "node:assert/strict";
import { FAKE_PROJECT, startUsageFake, type UsageEndpoint } from "./usage.ts";

const TOKEN = "tok-usage-fake-test-0123456789";

function call(url: string, endpoint: UsageEndpoint, token = TOKEN, signal?: AbortSignal) {
  const path = endpoint === "anthropic"
    ? "/api/oauth/usage"
    : endpoint === "chatgpt"
    ? "/backend-api/wham/usage"
    : "/v1internal:retrieveUserQuota";
  return fetch(url + path, {
    method: endpoint === "code-assist" ? "POST" : "GET",
    headers: { authorization: `Bearer ${token}` },
    body: endpoint === "code-assist" ? JSON.stringify({ project: FAKE_PROJECT }) : undefined,
    signal,
  });
}

Deno.test("the usage fake serves each endpoint's documented shape to the expected token only", async () => {
  const fake = startUsageFake({ tokens: { anthropic: TOKEN, chatgpt: TOKEN, "code-assist": TOKEN } });
  try {
    const claude = await (await call(fake.url, "anthropic")).json();
    assert.equal(claude.five_hour.utilization, 24);
    assert.match(claude.five_hour.resets_at, /\+00:00$/);
    assert.equal(claude.seven_day_opus, null);
    assert.equal(claude.extra_usage.monthly_limit, 50000);
    const codex = await (await call(fake.url, "chatgpt")).json();
    assert.equal(codex.rate_limit.primary_window.limit_window_seconds, 18000);
    assert.ok(codex.rate_limit.primary_window.reset_at > Date.now() / 1000);
    const gemini = await (await call(fake.url, "code-assist")).json();
    assert.equal(gemini.buckets[0].remainingFraction, 0.75);
    const load = await fetch(`${fake.url}/v1internal:loadCodeAssist`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
      body: "{}",
    });
    assert.equal((await load.json()).cloudaicompanionProject, FAKE_PROJECT);

    const wrong = await call(fake.url, "anthropic", "tok-someone-else");
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    fake.expectToken("anthropic", "tok-next");
    const next = await call(fake.url, "anthropic", "tok-next");
    assert.equal(next.status, 200);
    await next.body?.cancel();

    assert.deepEqual(fake.requests().map((r) => r.authorized), [true, true, true, true, false, true]);
    assert.ok(!JSON.stringify(fake.requests()).includes(TOKEN), "the token is never recorded");
    assert.ok(fake.requests().every((r) => !("authorization" in r.headers)));
  } finally {
    await fake.close();
  }
});

Deno.test("each failure mode of the usage fake answers as the real service would fail", async () => {
  const fake = startUsageFake({ slowMs: 150 });
  try {
    const rows: {
      mode: Parameters<typeof fake.setMode>[1];
      status: number;
      check?: (r: Response) => Promise<void>;
    }[] = [
      { mode: "401", status: 401 },
      { mode: "403", status: 403 },
      {
        mode: "429",
        status: 429,
        check: (r) => Promise.resolve(assert.equal(r.headers.get("retry-after"), "120")),
      },
      { mode: "500", status: 500 },
      { mode: "malformed", status: 200 },
    ];
    for (const row of rows) {
      fake.setMode("anthropic", row.mode);
      const res = await call(fake.url, "anthropic");
      assert.equal(res.status, row.status, row.mode);
      if (row.mode === "malformed") {
        const text = await res.text();
        assert.throws(() => JSON.parse(text), SyntaxError);
      } else {
        await row.check?.(res);
        await res.body?.cancel();
      }
    }
    fake.setMode("anthropic", "slow");
    const started = Date.now();
    const slow = await call(fake.url, "anthropic");
    assert.equal(slow.status, 200);
    await slow.body?.cancel();
    assert.ok(Date.now() - started >= 140, "a slow answer waits");

    fake.setMode("chatgpt", "timeout");
    const cut = await call(fake.url, "chatgpt", TOKEN, AbortSignal.timeout(200)).then(
      () => "answered",
      (err) => err.name,
    );
    assert.equal(cut, "TimeoutError", "a timeout never answers");

    fake.setMode("anthropic", "ok");
    fake.setBody("anthropic", { five_hour: { utilization: 99, resets_at: null } });
    assert.equal((await (await call(fake.url, "anthropic")).json()).five_hour.utilization, 99);
  } finally {
    await fake.close();
  }
});
