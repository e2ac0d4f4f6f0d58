import assert from "node:assert/strict";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { asmIdOf, recordActivity } from "../../lib/ledger/mod.ts";
import { startServer } from "../../lib/server/mod.ts";
import { launchChromium, openWithKey } from "../../verify/browser.ts";
import { ROUTES } from "../mod.ts";

/** The page's render counter (islands/client.tsx). */
function renders(): number {
  return (globalThis as unknown as { __asmRenders: number }).__asmRenders;
}

async function withPage(
  fn: (page: import("playwright-core").Page, server: ReturnType<typeof startServer>) => Promise<void>,
) {
  const home = Deno.makeTempDirSync({ prefix: "asm-page-" });
  // the agents' homes are temporary too: the page reads plan usage, which looks for their credentials files
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  // three sessions in a real folder (not a harness root), one of them with a long title
  server.ledger.applyEvent(
    hookEvent({ agent_session_id: "a", cwd: "/home/user/website", ts: "2026-11-29T22:00:00.000Z" }),
  );
  server.ledger.applyEvent(
    hookEvent({
      agent: "codex",
      agent_session_id: "b",
      cwd: "/home/user/api",
      ts: "2026-11-29T22:01:00.000Z",
    }),
  );
  // b has ended: its row offers RESUME and CONTINUE WITH instead of END, Jump and Send
  server.ledger.applyEvent(
    hookEvent({
      agent: "codex",
      agent_session_id: "b",
      event: "SessionEnd",
      source: "other",
      // named, so it is not hidden as "nothing happened"
      session_name: "API work",
      cwd: "/home/user/api",
      ts: "2026-11-29T22:01:30.000Z",
    }),
  );
  server.ledger.applyEvent(
    hookEvent({
      agent: "gemini",
      agent_session_id: "c",
      cwd: "/home/user/docs",
      session_name: "A very long title ".repeat(12),
      ts: "2026-11-29T22:02:00.000Z",
    }),
  );
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await fn(page, server);
  } finally {
    await browser.close();
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
}

Deno.test("the Sessions page hydrates and stays at zero renders over two idle ticks while activity cells change", async () => {
  await withPage(async (page, server) => {
    const id = asmIdOf("claude", "a");
    // a stand-in for the browser's notifications, recording what the page shows
    await page.addInitScript(() => {
      const shown: { title: string; body: string }[] = [];
      (globalThis as unknown as { __shown: typeof shown }).__shown = shown;
      class FakeNotification {
        static permission = "default";
        static requestPermission() {
          return Promise.resolve("granted");
        }
        onclick: (() => void) | null = null;
        constructor(title: string, options: { body?: string }) {
          shown.push({ title, body: options.body ?? "" });
        }
      }
      (globalThis as unknown as { Notification: unknown }).Notification = FakeNotification;
    });
    await openWithKey(page, server, "/?poll_ms=300");
    await page.waitForFunction(() =>
      typeof (globalThis as unknown as { __asmRenders?: number }).__asmRenders === "number"
    );
    assert.equal(await page.locator("tbody tr").count(), 3);
    // the key is in storage scoped to the page's exact origin, never in a cookie, and gone from the address
    assert.deepEqual(await page.context().cookies(), []);
    assert.equal(await page.evaluate(() => localStorage.getItem("asm.token")), server.token);
    assert.equal(await page.evaluate(() => location.hash), "");
    await page.waitForTimeout(800);
    assert.equal(await page.evaluate(renders), 0);
    await page.getByRole("button", { name: "Notify me" }).click();
    await page.getByRole("button", { name: "Notifications on" }).waitFor();
    // the poll writes a changed fact into its cell, still without rendering anything
    recordActivity(server.ledger, [{
      asm_id: id,
      activity: "working",
      activity_reason: null,
      activity_at: new Date().toISOString(),
    }]);
    const cell = page.locator(`[data-activity-for="${id}"]`);
    await page.waitForFunction(
      (sel) => document.querySelector(sel)?.textContent === "Working",
      `[data-activity-for="${id}"]`,
    );
    assert.equal(await cell.textContent(), "Working");
    recordActivity(server.ledger, [{
      asm_id: id,
      activity: "waiting",
      activity_reason: "permission",
      activity_at: new Date().toISOString(),
    }]);
    await page.waitForFunction(
      (sel) => document.querySelector(sel)?.textContent === "Waiting on you: permission",
      `[data-activity-for="${id}"]`,
    );
    // a session that starts waiting on you raises one notification naming it, its folder and the reason
    await page.waitForFunction(() => (globalThis as unknown as { __shown: unknown[] }).__shown.length > 0);
    const shown = await page.evaluate(() => (globalThis as unknown as { __shown: unknown[] }).__shown);
    assert.equal(shown.length, 1);
    assert.match(JSON.stringify(shown[0]), /waiting on you/);
    assert.match(JSON.stringify(shown[0]), /permission/);
    // the top bar names the most urgent session per agent, mirrored in the page title
    await page.waitForFunction(() => document.title === "(1) asm");
    assert.match(
      await page.locator('[data-glance-for="claude"]').innerText(),
      /Waiting on you \(permission\)/,
    );
    assert.match(await page.locator('[data-glance-for="codex"]').innerText(), /no live session/);
    await page.waitForTimeout(700);
    assert.equal(await page.evaluate(renders), 0);
  });
});

Deno.test("no grid column resolves to 0 px and no cell's text overflows its cell, measured on text ranges", async () => {
  await withPage(async (page, server) => {
    await page.setViewportSize({ width: 1200, height: 800 });
    await openWithKey(page, server, "/");
    const widths = await page.evaluate(() =>
      [...document.querySelectorAll("table.sessions th")].map((th) => parseFloat(getComputedStyle(th).width))
    );
    assert.equal(widths.length, 10);
    assert.equal(widths.every((w) => w > 0), true, `column widths ${widths.join(", ")}`);
    const overflowing = await page.evaluate(() => {
      const out: string[] = [];
      for (const td of document.querySelectorAll<HTMLElement>("table.sessions td")) {
        const range = document.createRange();
        range.selectNodeContents(td);
        const text = range.getBoundingClientRect();
        const box = td.getBoundingClientRect();
        const style = getComputedStyle(td);
        // the visible area is the box less its padding; text wider than that is allowed only when it is clipped
        // with an ellipsis AND the full text is one hover away in the cell's title
        const inner = box.right - parseFloat(style.paddingRight);
        const clippedWithTip = style.overflow === "hidden" && style.textOverflow === "ellipsis" &&
          td.title === td.textContent;
        if (text.right > inner + 0.5 && !clippedWithTip) out.push(td.textContent ?? "");
      }
      return out;
    });
    assert.deepEqual(overflowing, []);
  });
});

Deno.test("searching from the page lists the matching sessions with their counts, and a one-letter query is refused", async () => {
  await withPage(async (page, server) => {
    await openWithKey(page, server, "/");
    await page.waitForFunction(() =>
      typeof (globalThis as unknown as { __asmRenders?: number }).__asmRenders === "number"
    );
    await page.getByRole("searchbox", { name: "Search" }).fill("very long title");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const results = page.locator(".results");
    await results.waitFor();
    assert.match(await results.innerText(), /in 1 session/);
    assert.match(await results.locator(".result").first().innerText(), /A very long title/);
    await page.getByRole("searchbox", { name: "Search" }).fill("x");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.locator(".search .notice.error").waitFor();
    assert.match(await page.locator(".search .notice.error").innerText(), /character/);
  });
});
