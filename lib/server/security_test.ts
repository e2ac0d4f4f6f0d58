import assert from "node:assert/strict";
import { json, type Route } from "./router.ts";
import { startServer } from "./app.ts";
import { refusal, TOKEN_COOKIE } from "./security.ts";

const TOKEN = "a".repeat(64);

function req(method: string, headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1:7777/api/x", { method, headers });
}

Deno.test("GETs need only this server's own Host", () => {
  assert.equal(refusal(req("GET", { host: "127.0.0.1:7777" }), 7777, TOKEN), null);
  assert.equal(refusal(req("GET", { host: "localhost:7777" }), 7777, TOKEN), null);
  assert.match(refusal(req("GET", { host: "rebind.example:7777" }), 7777, TOKEN)!, /answers only/);
  assert.match(refusal(req("GET", { host: "127.0.0.1:80" }), 7777, TOKEN)!, /answers only/);
});

Deno.test("a POST needs the token, by cookie or bearer, and no foreign Origin", () => {
  const host = { host: "127.0.0.1:7777" };
  assert.match(refusal(req("POST", host), 7777, TOKEN)!, /install token/);
  assert.match(
    refusal(req("POST", { ...host, authorization: `Bearer ${"b".repeat(64)}` }), 7777, TOKEN)!,
    /token/,
  );
  assert.equal(refusal(req("POST", { ...host, authorization: `Bearer ${TOKEN}` }), 7777, TOKEN), null);
  assert.equal(
    refusal(
      req("POST", { ...host, origin: "http://127.0.0.1:7777", cookie: `x=1; ${TOKEN_COOKIE}=${TOKEN}` }),
      7777,
      TOKEN,
    ),
    null,
  );
  assert.match(
    refusal(
      req("POST", { ...host, origin: "http://evil.example", authorization: `Bearer ${TOKEN}` }),
      7777,
      TOKEN,
    )!,
    /evil\.example may not change/,
  );
});

Deno.test("the running server refuses a foreign-origin or tokenless POST and runs a proper one, without CORS", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-security-" });
  let ran = 0;
  const routes: Route[] = [{
    method: "POST",
    pattern: "/api/poke",
    handle: () => (ran++, json({ ok: true })),
  }];
  const server = startServer({ asmHome: home, port: 0, routes, services: [] });
  try {
    const token = Deno.readTextFileSync(`${home}/token`).trim();
    assert.equal(token, server.token);
    assert.equal(Deno.statSync(`${home}/token`).mode! & 0o777, 0o600);
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/poke`, { method: "POST", headers });
    const foreign = await post({ origin: "http://evil.example", authorization: `Bearer ${token}` });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get("access-control-allow-origin"), null);
    await foreign.body?.cancel();
    const tokenless = await post({ origin: server.url });
    assert.equal(tokenless.status, 403);
    await tokenless.body?.cancel();
    assert.equal(ran, 0, "a refused request changed nothing");
    const ok = await post({ origin: server.url, authorization: `Bearer ${token}` });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    assert.equal(ran, 1);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});
