/**
 * The page's key, in a real Chromium: `asm open` opens the page with a one-time code, the page trades it for the
 * token and keeps that in storage scoped to its exact origin; no cookie exists, so another service on 127.0.0.1
 * that the same browser visits receives no asm secret; the code works once. Where the platform cannot name the
 * user behind a connection, a page is a shell without data until it brings the key.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { startServer } from "../../lib/server/mod.ts";
// the command `asm open` itself, as main.ts runs it (the command modules stay out of the server's face)
import { openCli } from "../../lib/cli/open.ts";
import { launchChromium, openWithKey } from "../../verify/browser.ts";
import { ROUTES } from "../mod.ts";

const NO_KEY = /no key to asm yet: run `asm open`/;

function hydrated(): boolean {
  return typeof (globalThis as unknown as { __asmRenders?: number }).__asmRenders === "number";
}

Deno.test({
  name: "asm open's code works once, and a second loopback server the browser visits gets no asm secret",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const home = Deno.makeTempDirSync({ prefix: "asm-key-" });
    const server = startServer({ asmHome: home, port: 0, services: [], routes: ROUTES });
    server.ledger.applyEvent(hookEvent({ agent_session_id: "keyed", session_name: "Keyed session" }));
    // a stand-in browser for `asm open`: it records the address it was asked to open (a private page's)
    const opened = join(home, "opened.txt");
    const stub = join(home, "browser.sh");
    Deno.writeTextFileSync(stub, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o700 });
    const seen: string[] = [];
    const dev = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      seen.push([...req.headers].map(([k, v]) => `${k}: ${v}`).join("\n"));
      return new Response("<!doctype html><title>dev</title><p>a dev server</p>", {
        headers: { "content-type": "text/html" },
      });
    });
    const browser = await launchChromium();
    try {
      const printed: string[] = [];
      const exit = await openCli({
        env: { ASM_HOME: home, HOME: home, PATH: "/usr/bin:/bin", BROWSER: stub },
        out: (l) => printed.push(l),
      });
      assert.equal(exit, 0, printed.join("\n"));
      const file = Deno.readTextFileSync(opened);
      assert.match(file, /^file:\/\/.*\/open\/[0-9a-f]+\.html$/, "the browser was given a private page");
      const url = Deno.readTextFileSync(new URL(file)).match(/"(http:[^"]+)"/)?.[1] ?? "";
      assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/#code=[A-Za-z0-9_-]+$`));
      assert.ok(!url.includes(server.token), "the token is not in the address");

      // the browser opens the page it was given, which sends it on to asm's page with the code
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(file);
      await page.waitForURL(`http://127.0.0.1:${server.port}/**`);
      await page.waitForFunction(hydrated);
      assert.equal(await page.evaluate(() => localStorage.getItem("asm.token")), server.token);
      assert.equal(await page.evaluate(() => location.hash), "", "the code left the address");
      assert.equal(await page.locator("[data-key-banner]").isHidden(), true);
      assert.deepEqual(await context.cookies(), [], "asm set no cookie");
      // the page's API calls carry the key: a search (an API GET) answers
      await page.getByRole("searchbox", { name: "Search" }).fill("Keyed");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await page.locator(".results").waitFor();
      assert.match(await page.locator(".results").innerText(), /in 1 session/);

      // the same browser now visits another service on loopback, by both names
      const devPort = dev.addr.port;
      for (const host of ["127.0.0.1", "localhost"]) {
        await page.goto(`http://${host}:${devPort}/`);
        await page.evaluate(() => fetch("/probe", { credentials: "include" }).then((r) => r.text()));
      }
      assert.ok(seen.length >= 4, `the dev server saw ${seen.length} requests`);
      const secrets = [server.token, url.split("#code=")[1]];
      const leaked = seen.filter((headers) =>
        secrets.some((s) => headers.includes(s)) || /asm_token/.test(headers)
      );
      assert.deepEqual(leaked, [], "no asm secret reached the other service");

      // the code was spent: a second browser opening the same address gets no key, and says what to do
      const other = await browser.newContext();
      const again = await other.newPage();
      await again.goto(url);
      await again.locator("[data-key-banner]").waitFor({ state: "visible" });
      const banner = await again.locator("[data-key-banner]").innerText();
      assert.match(banner, /spent or has expired/);
      assert.match(banner, NO_KEY);
      assert.equal(await again.evaluate(() => localStorage.getItem("asm.token")), null);
      await other.close();
      await context.close();
    } finally {
      await browser.close();
      await dev.shutdown();
      await server.close();
      Deno.removeSync(home, { recursive: true });
    }
  },
});

Deno.test({
  name: "where the user behind a connection cannot be named, a page is a shell until it brings the key",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const home = Deno.makeTempDirSync({ prefix: "asm-key-" });
    const server = startServer({
      asmHome: home,
      port: 0,
      services: [],
      peerOwner: () => "unknown",
      routes: ROUTES,
    });
    server.ledger.applyEvent(hookEvent({ agent_session_id: "shelled", session_name: "Private title" }));
    const browser = await launchChromium();
    try {
      // the raw page holds no data
      const raw = await (await fetch(`${server.url}/`)).text();
      assert.doesNotMatch(raw, /Private title/);
      assert.match(raw, /data-shell="1"/);

      const keyless = await browser.newPage();
      await keyless.goto(`${server.url}/`);
      await keyless.locator("[data-key-banner]").waitFor({ state: "visible" });
      assert.match(await keyless.locator("[data-key-banner]").innerText(), NO_KEY);
      assert.equal(await keyless.locator("text=Private title").count(), 0);

      const keyed = await browser.newPage();
      await openWithKey(keyed, server, "/");
      await keyed.waitForFunction(hydrated);
      await keyed.locator("tbody tr", { hasText: "Private title" }).waitFor();
      // the real page's islands work: its poll and its search go through the API with the key
      await keyed.getByRole("searchbox", { name: "Search" }).fill("Private");
      await keyed.getByRole("button", { name: "Search", exact: true }).click();
      await keyed.locator(".results").waitFor();
      assert.match(await keyed.locator(".results").innerText(), /in 1 session/);
      // and another page of the same origin loads through the shell with the stored key
      await keyed.goto(`${server.url}/projects`);
      await keyed.locator(".tile").first().waitFor();
    } finally {
      await browser.close();
      await server.close();
      Deno.removeSync(home, { recursive: true });
    }
  },
});
