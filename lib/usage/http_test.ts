import assert from "node:assert/strict";
import { requestJson, resolveBaseUrl, retryAfterMs, scrub } from "./http.ts";

const TOKEN = "tok-http-test-0123456789";

/** A loopback server answering with `answer`; the last request's headers are kept. */
function serve(answer: (req: Request) => Response | Promise<Response>) {
  const seen: { headers: Headers | null; body: string } = { headers: null, body: "" };
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, signal: stop.signal },
    async (req) => {
      seen.headers = req.headers;
      seen.body = await req.text();
      return answer(req);
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    async close() {
      stop.abort();
      await server.finished;
    },
  };
}

function request(url: string, extra: Partial<Parameters<typeof requestJson>[0]> = {}) {
  return requestJson({
    url,
    headers: { authorization: `Bearer ${TOKEN}` },
    timeoutMs: 2_000,
    what: "the test endpoint",
    secrets: [TOKEN],
    ...extra,
  });
}

Deno.test("each kind of answer comes to the outcome the readers share", async () => {
  const rows: {
    why: string;
    answer: () => Response;
    kind: string;
    message?: RegExp;
    retryAfterMs?: number;
  }[] = [
    { why: "200 JSON", answer: () => Response.json({ a: 1 }), kind: "json" },
    {
      why: "401",
      answer: () => new Response("no", { status: 401 }),
      kind: "signed-out",
      message: /^signed out or token expired \(the test endpoint answered HTTP 401\)$/,
    },
    {
      why: "403",
      answer: () => new Response("no", { status: 403 }),
      kind: "signed-out",
      message: /HTTP 403/,
    },
    {
      why: "429 with Retry-After",
      answer: () => new Response("slow down", { status: 429, headers: { "retry-after": "120" } }),
      kind: "failed",
      message: /rate limiting asm \(HTTP 429\)/,
      retryAfterMs: 120_000,
    },
    {
      why: "500",
      answer: () => new Response("oops", { status: 500 }),
      kind: "failed",
      message: /answered HTTP 500$/,
    },
    {
      why: "a redirect is not followed",
      answer: () => Response.redirect("http://127.0.0.1:1/elsewhere", 302),
      kind: "failed",
      message: /HTTP 302/,
    },
    {
      why: "malformed JSON, quoting the token, is not quoted",
      answer: () => new Response(`{"echo": "${TOKEN}", `, { status: 200 }),
      kind: "failed",
      message: /^the test endpoint answered with something that is not JSON$/,
    },
  ];
  for (const row of rows) {
    const s = serve(row.answer);
    try {
      const out = await request(s.url);
      assert.equal(out.kind, row.kind, row.why);
      if (out.kind !== "json") {
        assert.match(out.message, row.message!, row.why);
        assert.ok(!out.message.includes(TOKEN), row.why);
        if (out.kind === "failed") assert.equal(out.retryAfterMs, row.retryAfterMs, row.why);
      } else assert.deepEqual(out.body, { a: 1 });
    } finally {
      await s.close();
    }
  }
});

Deno.test("a call sends the headers and JSON body it was given", async () => {
  const s = serve(() => Response.json({}));
  try {
    await request(s.url, {
      method: "POST",
      body: { project: "p1" },
      headers: { authorization: `Bearer ${TOKEN}`, "x-h": "v" },
    });
    assert.equal(s.seen.headers?.get("authorization"), `Bearer ${TOKEN}`);
    assert.equal(s.seen.headers?.get("x-h"), "v");
    assert.equal(s.seen.headers?.get("content-type"), "application/json");
    assert.deepEqual(JSON.parse(s.seen.body), { project: "p1" });
  } finally {
    await s.close();
  }
});

Deno.test("no answer within the timeout, or no server at all, is a transient failure naming the endpoint", async () => {
  const s = serve(() => new Promise((r) => setTimeout(() => r(Response.json({})), 1_500)));
  try {
    const slow = await request(s.url, { timeoutMs: 200 });
    assert.equal(slow.kind, "failed");
    assert.match((slow as { message: string }).message, /^the test endpoint did not answer within 0\.2 s$/);
  } finally {
    await s.close();
  }
  const gone = await request("http://127.0.0.1:1/x");
  assert.equal(gone.kind, "failed");
  assert.match((gone as { message: string }).message, /^the test endpoint could not be reached/);
});

Deno.test("a base URL may be overridden only with https or loopback http", () => {
  const rows: [string, string | null][] = [
    ["", "https://real.example"],
    ["http://127.0.0.1:4000/", "http://127.0.0.1:4000"],
    ["http://localhost:4000/backend-api", "http://localhost:4000/backend-api"],
    ["https://proxy.example.com", "https://proxy.example.com"],
    ["http://proxy.example.com", null],
    ["ftp://127.0.0.1", null],
    ["not a url", null],
  ];
  for (const [configured, want] of rows) {
    const got = resolveBaseUrl(configured, "https://real.example");
    if (want === null) assert.ok("problem" in got, configured);
    else assert.deepEqual(got, { url: want }, configured);
  }
});

Deno.test("secrets are scrubbed from messages and Retry-After reads seconds or a date", () => {
  assert.equal(scrub(`bad ${TOKEN} here ${TOKEN}`, [TOKEN, "short"]), "bad [redacted] here [redacted]");
  assert.equal(retryAfterMs("30", 0), 30_000);
  assert.equal(retryAfterMs(new Date(90_000).toUTCString(), 30_000), 60_000);
  assert.equal(retryAfterMs(null, 0), undefined);
  assert.equal(retryAfterMs("soon", 0), undefined);
});
