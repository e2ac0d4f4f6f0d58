/**
 * The page's one health banner, in a real Chromium: hidden while asm is well, naming the failing part when the
 * health model is not ok (a drain that cannot list its inbox), hidden again when it recovers, and saying since when
 * asm has not answered once the server is gone.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startServer } from "../../lib/server/mod.ts";
import { launchChromium, openWithKey } from "../../verify/browser.ts";
import { ROUTES } from "../mod.ts";

Deno.test({
  name: "the health banner shows when asm is unwell or gone, and hides when it is well",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const home = Deno.makeTempDirSync({ prefix: "asm-banner-" });
    const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
    const server = startServer({
      asmHome: home,
      port: 0,
      drainEveryMs: 100,
      services: [],
      env,
      routes: ROUTES,
    });
    let closed = false;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await openWithKey(page, server, "/?poll_ms=300");
      const banner = page.locator("[data-health-banner]");
      await page.waitForFunction(() =>
        typeof (globalThis as unknown as { __asmRenders?: number }).__asmRenders === "number"
      );
      await page.waitForTimeout(700); // two health polls
      assert.equal(await banner.isHidden(), true, "hidden while asm is well");

      // the drain cannot list its inbox: the banner names the part in plain words
      Deno.removeSync(join(home, "inbox"), { recursive: true });
      Deno.writeTextFileSync(join(home, "inbox"), "not a folder");
      await banner.waitFor({ state: "visible", timeout: 10_000 });
      assert.match(
        await banner.innerText(),
        /^asm has a problem\. Hook events: the drain cannot list .*inbox/,
      );

      Deno.removeSync(join(home, "inbox"));
      Deno.mkdirSync(join(home, "inbox"), { mode: 0o700 });
      await banner.waitFor({ state: "hidden", timeout: 10_000 });

      // the server stops: the page's poll fails, and the banner says since when
      await server.close();
      closed = true;
      await banner.waitFor({ state: "visible", timeout: 10_000 });
      assert.match(await banner.innerText(), /^asm is not answering since \d\d:\d\d/);
    } finally {
      await browser.close();
      if (!closed) await server.close();
      Deno.removeSync(home, { recursive: true });
    }
  },
});
