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
    // no agent on the server's PATH: the doctor's one broken finding, which the nav's Doctor tab counts
    const env = {
      ...Deno.env.toObject(),
      HOME: home,
      CODEX_HOME: `${home}/.codex`,
      GEMINI_CLI_HOME: home,
      PATH: "/usr/bin:/bin",
    };
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
      // the doctor's findings are not the server's health: no alarm, but the nav's Doctor tab counts them
      const report = await (await server.api("/api/doctor")).json();
      assert.deepEqual(
        report.findings.filter((f: { severity: string }) => f.severity === "broken").map((
          f: { check: string },
        ) => f.check),
        ["found"],
      );
      const tab = page.locator("nav a[data-doctor-tab]");
      await page.waitForFunction(() => document.querySelector("[data-doctor-tab]")?.textContent !== "Doctor");
      console.log(`the Doctor tab reads "${await tab.innerText()}"`);
      assert.equal(await tab.innerText(), "Doctor (1 broken)");
      assert.equal(await tab.getAttribute("data-doctor-broken"), "");

      // the drain cannot list its inbox: the banner names the part in plain words
      Deno.removeSync(join(home, "inbox"), { recursive: true });
      Deno.writeTextFileSync(join(home, "inbox"), "not a folder");
      await banner.waitFor({ state: "visible", timeout: 10_000 });
      assert.match(
        await banner.innerText(),
        /^asm has a problem\. Hook events: the drain cannot list .*inbox/,
      );

      // the banner links to the doctor's findings, which name the same part as broken, with its fix
      await banner.locator("a[data-doctor-link]").click();
      await page.waitForURL(`${server.url}/doctor`);
      const drain = page.locator('[data-doctor-subject=asm] li[data-check="Hook events"]');
      assert.equal(await drain.getAttribute("data-severity"), "broken");
      assert.match(
        await drain.innerText(),
        /the drain cannot list .*inbox.*; restart the server with asm restart/s,
      );
      assert.match(await page.locator("[data-doctor-summary]").innerText(), /^\d+ broken, \d+ warning\(s\)$/);
      // the findings fit every width: no sideways scroll, no finding's text past the window's edge
      for (const width of [1920, 1280, 1024, 768, 390]) {
        await page.setViewportSize({ width, height: 900 });
        const fit = await page.evaluate(() => ({
          scroll: document.documentElement.scrollWidth - innerWidth,
          sticking: [...document.querySelectorAll(".doctor li")].filter((li) =>
            li.getBoundingClientRect().right > innerWidth + 0.5
          ).length,
        }));
        console.log(
          `doctor page at ${width} px: sideways scroll ${fit.scroll} px, findings past the edge ${fit.sticking}`,
        );
        assert.deepEqual(fit, { scroll: 0, sticking: 0 }, `at ${width} px`);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${server.url}/?poll_ms=300`);
      await banner.waitFor({ state: "visible", timeout: 10_000 });

      Deno.removeSync(join(home, "inbox"));
      Deno.mkdirSync(join(home, "inbox"), { mode: 0o700 });
      await banner.waitFor({ state: "hidden", timeout: 10_000 });

      // the server stops: the page's poll fails, and the banner says since when
      await server.close();
      closed = true;
      await banner.waitFor({ state: "visible", timeout: 10_000 });
      assert.match(
        await banner.innerText(),
        /^asm is not answering since \d\d:\d\d: is the server still running\? `asm doctor` in a terminal says why\.$/,
      );
      assert.equal(await banner.locator("a").count(), 0, "no link to a page a gone server cannot serve");
    } finally {
      await browser.close();
      if (!closed) await server.close();
      Deno.removeSync(home, { recursive: true });
    }
  },
});
