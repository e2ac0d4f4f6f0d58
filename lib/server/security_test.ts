import assert from "node:assert/strict";
import { json, type Route } from "./router.ts";
import { startServer } from "./app.ts";
import {
  type Admission,
  type AdmissionFacts,
  admit,
  sameToken,
  WS_PROTOCOL,
  WS_TOKEN_PREFIX,
} from "./security.ts";
import { OneTimeCodes } from "./codes.ts";

const TOKEN = "a".repeat(64);
const OWNER = { uid: 1000 };
const FACTS: AdmissionFacts = { port: 7777, token: TOKEN, owner: OWNER, serverUid: 1000, allowedUids: [] };
const HOST = { host: "127.0.0.1:7777" };
const BEARER = { authorization: `Bearer ${TOKEN}` };
const SAME = { origin: "http://127.0.0.1:7777" };

function req(method: string, path: string, headers: Record<string, string>): Request {
  return new Request(`http://127.0.0.1:7777${path}`, { method, headers });
}

/** One row: a request, the facts that differ from {@link FACTS}, the decision (and a pattern its sentence holds). */
const ROWS: [string, Request, Partial<AdmissionFacts>, Admission["kind"], number | null, RegExp | null][] = [
  [
    "a page another site's document loads (an image, a fetch) is refused before any work",
    req("GET", "/doctor", {
      ...HOST,
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "no-cors",
      "sec-fetch-dest": "image",
    }),
    {},
    "refuse",
    403,
    /another site's page may not load asm's pages/,
  ],
  [
    "another port of localhost is the same site: its frame of a page is refused too",
    req("GET", "/", {
      ...HOST,
      "sec-fetch-site": "same-site",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "iframe",
    }),
    {},
    "refuse",
    403,
    /another site's page/,
  ],
  [
    "a link followed from elsewhere to a top-level page is the person's: it passes",
    req("GET", "/doctor", {
      ...HOST,
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
    }),
    {},
    "pass",
    null,
    null,
  ],
  [
    "an address typed or a bookmark (no site) passes",
    req("GET", "/doctor", {
      ...HOST,
      "sec-fetch-site": "none",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
    }),
    {},
    "pass",
    null,
    null,
  ],
  [
    "a foreign Host is refused (DNS rebinding)",
    req("GET", "/", { host: "rebind.example:7777" }),
    {},
    "refuse",
    403,
    /answers only/,
  ],
  [
    "another port in Host is refused",
    req("GET", "/", { host: "127.0.0.1:80" }),
    {},
    "refuse",
    403,
    /answers only/,
  ],
  [
    "another local uid is refused, named",
    req("GET", "/", HOST),
    { owner: { uid: 65534 } },
    "refuse",
    403,
    /uid 65534/,
  ],
  [
    "another uid is refused even with the token",
    req("GET", "/api/sessions", { ...HOST, ...BEARER }),
    { owner: { uid: 65534 } },
    "refuse",
    403,
    /allowed_uids/,
  ],
  [
    "another uid is refused at /api/health too",
    req("GET", "/api/health", HOST),
    { owner: { uid: 65534 } },
    "refuse",
    403,
    /uid 65534/,
  ],
  [
    "another uid is refused at the code exchange",
    req("POST", "/api/token", { ...HOST, ...SAME }),
    { owner: { uid: 65534 } },
    "refuse",
    403,
    /uid 65534/,
  ],
  [
    "another uid is refused the script too",
    req("GET", "/static/islands.x.js", HOST),
    { owner: { uid: 65534 } },
    "refuse",
    403,
    /uid 65534/,
  ],
  [
    "a uid in allowed_uids gets in",
    req("GET", "/", HOST),
    { owner: { uid: 65534 }, allowedUids: [65534] },
    "pass",
    null,
    null,
  ],
  [
    "a connection the socket table does not show is refused",
    req("GET", "/", HOST),
    { owner: "not found" },
    "refuse",
    403,
    /could not tell/,
  ],
  ["the owner's page is served with its data", req("GET", "/", HOST), {}, "pass", null, null],
  [
    "a page whose user cannot be named is its shell",
    req("GET", "/projects", HOST),
    { owner: "unknown" },
    "shell",
    null,
    null,
  ],
  [
    "a page whose user cannot be named, with the token, is served",
    req("GET", "/projects", { ...HOST, ...BEARER }),
    { owner: "unknown" },
    "pass",
    null,
    null,
  ],
  [
    "an API GET without the token is refused",
    req("GET", "/api/sessions", HOST),
    {},
    "refuse",
    401,
    /asm open/,
  ],
  [
    "an API GET with a wrong token is refused",
    req("GET", "/api/sessions", { ...HOST, authorization: `Bearer ${"b".repeat(64)}` }),
    {},
    "refuse",
    401,
    /key/,
  ],
  [
    "a cookie is no key",
    req("GET", "/api/sessions", { ...HOST, cookie: `asm_token=${TOKEN}` }),
    {},
    "refuse",
    401,
    /key/,
  ],
  [
    "an API GET with the token passes",
    req("GET", "/api/sessions", { ...HOST, ...BEARER }),
    {},
    "pass",
    null,
    null,
  ],
  [
    "/api/health without the token says only that it is up",
    req("GET", "/api/health", HOST),
    {},
    "health",
    null,
    null,
  ],
  [
    "/api/health with the token is the whole report",
    req("GET", "/api/health", { ...HOST, ...BEARER }),
    {},
    "pass",
    null,
    null,
  ],
  [
    "a POST without the token is refused",
    req("POST", "/api/launch", { ...HOST, ...SAME }),
    {},
    "refuse",
    401,
    /key/,
  ],
  [
    "a POST from a foreign Origin is refused even with the token",
    req("POST", "/api/launch", { ...HOST, ...BEARER, origin: "http://evil.example" }),
    {},
    "refuse",
    403,
    /evil\.example/,
  ],
  [
    "a GET of the API (a terminal stream) from a foreign Origin is refused even with the token",
    req("GET", "/api/terminal", { ...HOST, ...BEARER, origin: "http://evil.example" }),
    {},
    "refuse",
    403,
    /evil\.example/,
  ],
  [
    "a GET of the API without an Origin (the page's own fetch) passes with the token",
    req("GET", "/api/terminal", { ...HOST, ...BEARER }),
    {},
    "pass",
    null,
    null,
  ],
  [
    "a POST from Origin null is refused",
    req("POST", "/api/launch", { ...HOST, ...BEARER, origin: "null" }),
    {},
    "refuse",
    403,
    /null/,
  ],
  [
    "a POST from the page with the token passes",
    req("POST", "/api/launch", { ...HOST, ...BEARER, ...SAME }),
    {},
    "pass",
    null,
    null,
  ],
  [
    "a script's POST (no Origin) with the token passes",
    req("POST", "/api/launch", { ...HOST, ...BEARER }),
    {},
    "pass",
    null,
    null,
  ],
  [
    "the code exchange needs no token but the page's Origin",
    req("POST", "/api/token", { ...HOST, ...SAME }),
    {},
    "pass",
    null,
    null,
  ],
  [
    "the code exchange without an Origin is refused",
    req("POST", "/api/token", HOST),
    {},
    "refuse",
    403,
    /only asm's page/,
  ],
  [
    "the code exchange from a foreign Origin is refused",
    req("POST", "/api/token", { ...HOST, origin: "http://127.0.0.1:8080" }),
    {},
    "refuse",
    403,
    /8080/,
  ],
  [
    "the page's script is served without the token",
    req("GET", "/static/islands.x.js", HOST),
    {},
    "pass",
    null,
    null,
  ],
  [
    "a WebSocket with the token in its subprotocol and the page's Origin passes",
    req("GET", "/api/stream", {
      ...HOST,
      ...SAME,
      upgrade: "websocket",
      "sec-websocket-protocol": `asm.v1, ${WS_TOKEN_PREFIX}${TOKEN}`,
    }),
    {},
    "pass",
    null,
    null,
  ],
  [
    "a WebSocket without the token is refused",
    req("GET", "/api/stream", { ...HOST, ...SAME, upgrade: "websocket", "sec-websocket-protocol": "asm.v1" }),
    {},
    "refuse",
    401,
    /key/,
  ],
  [
    "a WebSocket without an Origin is refused",
    req("GET", "/api/stream", {
      ...HOST,
      upgrade: "websocket",
      "sec-websocket-protocol": `${WS_TOKEN_PREFIX}${TOKEN}`,
    }),
    {},
    "refuse",
    403,
    /page/,
  ],
  [
    "a WebSocket from a foreign Origin is refused",
    req("GET", "/api/stream", {
      ...HOST,
      origin: "http://evil.example",
      upgrade: "websocket",
      "sec-websocket-protocol": `${WS_TOKEN_PREFIX}${TOKEN}`,
    }),
    {},
    "refuse",
    403,
    /evil/,
  ],
];

for (const [name, request, facts, kind, status, sentence] of ROWS) {
  Deno.test(`admission: ${name}`, () => {
    const got = admit(request, { ...FACTS, ...facts });
    assert.equal(got.kind, kind, JSON.stringify(got));
    if (got.kind === "refuse") {
      assert.equal(got.status, status);
      assert.match(got.message, sentence!);
    }
  });
}

Deno.test("tokens compare in constant time and only when equal", () => {
  assert.equal(sameToken(TOKEN, TOKEN), true);
  assert.equal(sameToken("a".repeat(63), TOKEN), false);
  assert.equal(sameToken(null, TOKEN), false);
  assert.equal(sameToken("b" + "a".repeat(63), TOKEN), false);
});

Deno.test("a one-time code works once, within its 60 s, only for the user who asked, and only codes minted here work", () => {
  let now = 1_000_000;
  const codes = new OneTimeCodes(() => now);
  const a = codes.mint(1000);
  assert.match(a.code, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(codes.redeem("nope", 1000), false);
  assert.equal(codes.redeem(a.code, 1001), false, "another user cannot trade it");
  assert.equal(codes.redeem(a.code, null), false, "nor a connection whose user is unknown");
  assert.equal(codes.redeem(a.code, 1000), true, "another user's try did not spend it");
  assert.equal(codes.redeem(a.code, 1000), false, "spent");
  const b = codes.mint(1000);
  now += 60_001;
  assert.equal(codes.redeem(b.code, 1000), false, "expired");
  assert.equal(codes.redeem(42, 1000), false);
  // where the platform cannot name users, the code alone is the credential
  const c = codes.mint(null);
  assert.equal(codes.redeem(c.code, 1234), true);
});

Deno.test("the running server: no cookie, no CORS, a token on every API call, and a code traded once", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-security-" });
  let ran = 0;
  const routes: Route[] = [
    { method: "POST", pattern: "/api/poke", handle: () => (ran++, json({ ok: true })) },
    { method: "GET", pattern: "/api/secret", handle: () => json({ secret: "s3cret" }) },
    ...(await import("../../routes/api/auth.ts")).authRoutes,
  ];
  const server = startServer({ asmHome: home, port: 0, routes, services: [] });
  try {
    const token = Deno.readTextFileSync(`${home}/token`).trim();
    assert.equal(token, server.token);
    assert.equal(Deno.statSync(`${home}/token`).mode! & 0o777, 0o600);
    const post = (path: string, headers: Record<string, string>, body?: string) =>
      fetch(`${server.url}${path}`, { method: "POST", headers, body });
    const foreign = await post("/api/poke", {
      origin: "http://evil.example",
      authorization: `Bearer ${token}`,
    });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get("access-control-allow-origin"), null);
    await foreign.body?.cancel();
    const tokenless = await post("/api/poke", {});
    assert.equal(tokenless.status, 401);
    await tokenless.body?.cancel();
    const secretless = await fetch(`${server.url}/api/secret`);
    assert.equal(secretless.status, 401, "a GET of private data without the token is refused");
    assert.doesNotMatch(await secretless.text(), /s3cret/);
    const health = await (await fetch(`${server.url}/api/health`)).json();
    assert.deepEqual(
      Object.keys(health).sort(),
      ["ok", "status", "version"],
      "health says only that it is up",
    );
    // a Host that makes no address at all is refused as a foreign one: nothing of it echoed, nothing logged
    for (const host of [`127.0.0.1:${server.port}.evil.example`, "[::1"]) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      await conn.write(
        new TextEncoder().encode(`GET /api/secret HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
      );
      const buf = new Uint8Array(4096);
      let text = "";
      for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
      conn.close();
      assert.match(text, /^HTTP\/1.1 (403|400) /, `Host ${host}: ${text.slice(0, 60)}`);
      assert.ok(!text.includes("evil.example"), "the Host is not echoed");
    }
    assert.doesNotMatch(Deno.readTextFileSync(`${home}/server.log`), /request failed/);
    const ok = await post("/api/poke", { authorization: `Bearer ${token}` });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("set-cookie"), null);
    await ok.body?.cancel();
    assert.equal(ran, 1, "only the proper POST ran");

    const minted = await (await post("/api/open-code", { authorization: `Bearer ${token}` })).json();
    assert.match(minted.url, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/#code=`));
    assert.ok(!minted.url.includes(token), "the token is never in a URL");
    const trade = (origin: Record<string, string>) =>
      post(
        "/api/token",
        { "content-type": "application/json", ...origin },
        JSON.stringify({ code: minted.code }),
      );
    const noOrigin = await trade({});
    assert.equal(noOrigin.status, 403, "only a page (with its Origin) trades a code");
    await noOrigin.body?.cancel();
    const first = await trade({ origin: server.url });
    assert.deepEqual(await first.json(), { token });
    const second = await trade({ origin: server.url });
    assert.equal(second.status, 403, "a code works once");
    assert.match((await second.json()).error, /spent or has expired/);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

/** Opens a WebSocket handshake by hand (a client that can set Origin) and returns the server's answer head. */
async function handshake(port: number, headers: Record<string, string>): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [
    "GET /api/stream HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version: 13",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  await conn.write(new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n"));
  const buf = new Uint8Array(4096);
  const n = await conn.read(buf);
  conn.close();
  return new TextDecoder().decode(buf.subarray(0, n ?? 0));
}

Deno.test("a stream over a WebSocket opens only with the token in its subprotocol and the page's Origin", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-security-" });
  const routes: Route[] = [{
    method: "GET",
    pattern: "/api/stream",
    handle(req) {
      const { response, socket } = Deno.upgradeWebSocket(req, { protocol: WS_PROTOCOL });
      socket.onopen = () => socket.close();
      return response;
    },
  }];
  const server = startServer({ asmHome: home, port: 0, routes, services: [] });
  try {
    const origin = { Origin: server.url };
    const good = await handshake(server.port, {
      ...origin,
      "Sec-WebSocket-Protocol": `${WS_PROTOCOL}, ${WS_TOKEN_PREFIX}${server.token}`,
    });
    assert.match(good, /^HTTP\/1\.1 101/);
    assert.match(good, /sec-websocket-protocol: asm\.v1\r\n/i, "the answer names asm.v1, never the token");
    assert.ok(!good.includes(server.token), "the token is not echoed back");
    const tokenless = await handshake(server.port, { ...origin, "Sec-WebSocket-Protocol": WS_PROTOCOL });
    assert.match(tokenless, /^HTTP\/1\.1 401/);
    const originless = await handshake(server.port, {
      "Sec-WebSocket-Protocol": `${WS_PROTOCOL}, ${WS_TOKEN_PREFIX}${server.token}`,
    });
    assert.match(originless, /^HTTP\/1\.1 403/);
    const foreign = await handshake(server.port, {
      Origin: "http://127.0.0.1:1",
      "Sec-WebSocket-Protocol": `${WS_PROTOCOL}, ${WS_TOKEN_PREFIX}${server.token}`,
    });
    assert.match(foreign, /^HTTP\/1\.1 403/);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});
