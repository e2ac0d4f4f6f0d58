import assert from "node:assert/strict";
import { jsonResponse, pause, serveRecorded } from "./server.ts";

const echo = () => jsonResponse(200, { ok: true });

Deno.test("a request is recorded with its parsed body and without credentials", async () => {
  const server = serveRecorded(echo);
  try {
    const res = await fetch(`${server.url}/v1/thing?beta=true`, {
      method: "POST",
      headers: {
        authorization: "Bearer secret-1",
        "x-api-key": "secret-2",
        "x-goog-api-key": "secret-3",
        "x-app": "cli",
        "content-type": "application/json",
      },
      body: JSON.stringify({ hello: "world" }),
    });
    await res.body?.cancel();
    const [seen] = server.requests();
    assert.equal(seen.method, "POST");
    assert.equal(seen.path, "/v1/thing?beta=true");
    assert.deepEqual(seen.body, { hello: "world" });
    assert.equal(seen.headers["x-app"], "cli");
    assert.ok(!JSON.stringify(seen).includes("secret"), "no credential reaches the record");
    assert.ok(!Number.isNaN(Date.parse(seen.t)));
  } finally {
    await server.close();
  }
});

Deno.test("a body that is not JSON is kept raw, and bodyText joins every body", async () => {
  const server = serveRecorded(echo);
  try {
    for (const body of ["plain words", '{"marker":"M-42"}']) {
      await (await fetch(server.url + "/x", { method: "POST", body })).body?.cancel();
    }
    assert.equal(server.requests()[0].body, "plain words");
    assert.equal(server.bodyText(), 'plain words\n{"marker":"M-42"}');
  } finally {
    await server.close();
  }
});

Deno.test("health checks are answered and not recorded", async () => {
  const server = serveRecorded(echo);
  try {
    const res = await fetch(server.url + "/health");
    assert.deepEqual(await res.json(), { ok: true });
    assert.equal(server.requests().length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("every request is appended to the log file as one JSON line", async () => {
  const logPath = await Deno.makeTempFile({ prefix: "fake-log-", suffix: ".jsonl" });
  const server = serveRecorded(echo, { logPath });
  try {
    await (await fetch(server.url + "/a", { method: "POST", body: "{}" })).body?.cancel();
    await (await fetch(server.url + "/b", { headers: { authorization: "Bearer secret" } })).body?.cancel();
    const lines = (await Deno.readTextFile(logPath)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => [l.method, l.path]), [["POST", "/a"], ["GET", "/b"]]);
    assert.equal(lines[1].headers.authorization, undefined);
  } finally {
    await server.close();
    await Deno.remove(logPath);
  }
});

Deno.test("close frees the port, even while a reply is still sleeping", async () => {
  const server = serveRecorded(async (call) => {
    await pause(10_000, call.signal);
    return jsonResponse(200, {});
  });
  const pending = fetch(server.url + "/slow", { method: "POST", body: "{}" });
  while (server.requests().length === 0) await new Promise((r) => setTimeout(r, 5));
  const started = Date.now();
  await server.close();
  const res = await pending;
  assert.equal(res.status, 503);
  await res.body?.cancel();
  assert.ok(Date.now() - started < 2000, "close did not wait for the sleeping reply");
  const again = Deno.listen({ hostname: "127.0.0.1", port: server.port });
  again.close();
});

Deno.test("a busy port is refused with a plain sentence", () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    assert.throws(() => serveRecorded(echo, { port: taken.addr.port }), { message: /already in use/ });
  } finally {
    taken.close();
  }
});
