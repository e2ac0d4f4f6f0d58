/**
 * Another local user gets nothing: every page and route answers 403 to a connection opened by another uid, with
 * or without the install token or a one-time code, and `allowed_uids` lets a named uid in. The client really is
 * another user: curl run through setpriv as uid 65534 (CI runs as root, which is what makes that possible).
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROUTES } from "../routes/mod.ts";
import { startServer } from "../lib/server/mod.ts";

const NOBODY = 65534;

/** Runs curl as uid 65534 once per request; the HTTP status of each, in order. */
async function asNobody(
  requests: { method: string; url: string; headers?: Record<string, string>; body?: string }[],
) {
  const dir = Deno.makeTempDirSync({ prefix: "asm-nobody-" });
  try {
    Deno.chmodSync(dir, 0o755);
    const lines = ["#!/bin/sh"];
    for (const r of requests) {
      const headers = Object.entries(r.headers ?? {}).map(([k, v]) => `-H '${k}: ${v}'`).join(" ");
      // the bodies are the test's own (JSON of base64url codes): nothing in them needs more than single quotes
      const body = r.method === "POST"
        ? `-H 'content-type: application/json' --data '${r.body ?? "{}"}'`
        : "";
      lines.push(`curl -s -o /dev/null -w '%{http_code}\\n' -X ${r.method} ${headers} ${body} '${r.url}'`);
    }
    const script = join(dir, "requests.sh");
    Deno.writeTextFileSync(script, lines.join("\n") + "\n", { mode: 0o755 });
    Deno.chmodSync(script, 0o755);
    const out = await new Deno.Command("setpriv", {
      args: [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "/bin/sh", script],
      env: { PATH: "/usr/bin:/bin", HOME: dir },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).trim().split("\n").map(Number);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

/** One concrete request per route (its `:params` filled in), and the pages. */
function everyRoute(base: string): { method: string; url: string }[] {
  return ROUTES.map((r) => ({ method: r.method, url: base + r.pattern.replace(/:[a-z_]+/g, "x") }));
}

Deno.test({
  name: "another local uid gets 403 from every page and route, with or without the token or a code",
  ignore: Deno.uid() !== 0,
  async fn() {
    const home = Deno.makeTempDirSync({ prefix: "asm-other-uid-" });
    const server = startServer({ asmHome: home, port: 0, services: [], routes: ROUTES });
    try {
      const routes = everyRoute(server.url);
      assert.ok(routes.length >= 20, `${routes.length} routes`);
      const code = server.context.codes.mint(Deno.uid()).code;
      const requests = [
        ...routes,
        ...routes.map((r) => ({ ...r, headers: { authorization: `Bearer ${server.token}` } })),
        { method: "POST", url: `${server.url}/api/token`, headers: { origin: server.url } },
        { method: "GET", url: `${server.url}/#code=${code}` },
      ];
      const statuses = await asNobody(requests);
      assert.equal(statuses.length, requests.length);
      const let_in = requests.filter((_, i) => statuses[i] !== 403).map((r, i) =>
        `${r.method} ${r.url} ${statuses[i]}`
      );
      assert.deepEqual(let_in, [], "every request of uid 65534 was refused");
      // the code was never traded: the owner can still use it once
      assert.equal(server.context.codes.redeem(code, Deno.uid()), true);
      const refused = Deno.readTextFileSync(join(home, "server.log")).split("\n").filter((l) =>
        l.includes('"refused"')
      );
      assert.equal(refused.length, 1, "one log line for the refused uid, however many requests");
      assert.match(refused[0], /"uid":65534/);
      // the owner is let in
      const own = await server.api("/api/sessions");
      assert.equal(own.status, 200);
      await own.body?.cancel();
    } finally {
      await server.close();
      Deno.removeSync(home, { recursive: true });
    }
  },
});

Deno.test({
  name: "a uid named in allowed_uids is let in, with the token",
  ignore: Deno.uid() !== 0,
  async fn() {
    const home = Deno.makeTempDirSync({ prefix: "asm-other-uid-" });
    Deno.writeTextFileSync(join(home, "config.toml"), `allowed_uids = [${NOBODY}]\n`);
    const server = startServer({ asmHome: home, port: 0, services: [], routes: ROUTES });
    try {
      const [page, api, tokenless] = await asNobody([
        { method: "GET", url: `${server.url}/projects` },
        {
          method: "GET",
          url: `${server.url}/api/sessions`,
          headers: { authorization: `Bearer ${server.token}` },
        },
        { method: "GET", url: `${server.url}/api/sessions` },
      ]);
      assert.deepEqual([page, api, tokenless], [200, 200, 401]);
    } finally {
      await server.close();
      Deno.removeSync(home, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a code the owner asked for cannot be traded by a uid allowed_uids lets in, and the owner's trade still works",
  ignore: Deno.uid() !== 0,
  async fn() {
    const home = Deno.makeTempDirSync({ prefix: "asm-other-uid-" });
    Deno.writeTextFileSync(join(home, "config.toml"), `allowed_uids = [${NOBODY}]\n`);
    const server = startServer({ asmHome: home, port: 0, services: [], routes: ROUTES });
    try {
      // as `asm open` asks: the owner's connection, with the token
      const { code } = await (await server.api("/api/open-code", { method: "POST" })).json();
      const trade = { method: "POST", url: `${server.url}/api/token`, headers: { origin: server.url } };
      const [stolen] = await asNobody([{ ...trade, body: JSON.stringify({ code }) }]);
      assert.equal(stolen, 403, "the allowed uid read the code but cannot trade it");
      const own = await server.api("/api/token", {
        method: "POST",
        headers: { origin: server.url, "content-type": "application/json" },
        body: JSON.stringify({ code }),
      });
      assert.deepEqual(await own.json(), { token: server.token }, "the other uid's try did not spend it");
    } finally {
      await server.close();
      Deno.removeSync(home, { recursive: true });
    }
  },
});
