/**
 * The session page end to end, in a real Chromium, on real Claude Code sessions in real tmux windows against its
 * fake model server (and a real Gemini CLI to CONTINUE WITH): a prompt typed into the live window appears on the open
 * page without a reload, with its tool call's command and output; every action works from the page (Jump, Send,
 * END, RESUME, Closeout on a live session, Closeout on an ended one, CONTINUE WITH), and the closeout cell turns
 * to "closed out" without a reload; a CONTINUE WITH shows both links.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { liveWorld, testedAgents } from "../../verify/live_world.ts";
import { launchChromium, openWithKey } from "../../verify/browser.ts";
import { MOCK_SHELL_COMMAND } from "../../verify/fakes/mod.ts";

/** The closeout skill of the fixture: what the person's own closeout would be. */
const CLOSEOUT_SKILL = `---
name: closeout
description: Wrap the session up
---
Close the session out: reply with the word CLOSED-OUT-NOW.
`;

/** Marks the page, so a reload (which drops the mark) is caught. */
async function mark(page: Page): Promise<void> {
  await page.evaluate(() => ((globalThis as unknown as { __noReload: boolean }).__noReload = true));
}

async function notReloaded(page: Page): Promise<boolean> {
  return await page.evaluate(() => (globalThis as unknown as { __noReload?: boolean }).__noReload === true);
}

/** Confirms the open dialog with its submit button and waits for the action's notice. */
async function confirm(page: Page, notice: RegExp): Promise<string> {
  await page.locator(".dialog button[type=submit]").click();
  const said = page.locator(".notice").filter({ hasText: notice });
  await said.waitFor({ timeout: 30_000 });
  return await said.innerText();
}

Deno.test({
  name: "the session page follows a live Claude without a reload, shows its tool call's command, and every " +
    "action works from it: Jump, Send, END, RESUME, closeout live and ended (the cell turns closed), CONTINUE WITH " +
    "(both links)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const agents = testedAgents().filter((a) => a.name === "claude" || a.name === "gemini");
    const world = await liveWorld(agents);
    const home = world.env.HOME;
    Deno.mkdirSync(join(home, ".claude", "skills", "closeout"), { recursive: true });
    Deno.writeTextFileSync(join(home, ".claude", "skills", "closeout", "SKILL.md"), CLOSEOUT_SKILL);
    // the person allowed the one command the fake model's tool turn runs (no permission dialog in the way)
    Deno.mkdirSync(join(world.folder, ".claude"), { recursive: true });
    Deno.writeTextFileSync(
      join(world.folder, ".claude", "settings.local.json"),
      JSON.stringify({ permissions: { allow: [`Bash(${MOCK_SHELL_COMMAND})`] } }),
    );
    const browser = await launchChromium();
    const drainer = setInterval(() => world.drain(), 250);
    const turnEnded = (asmId: string, n: number) =>
      world.until(
        () =>
          world.server.ledger.query("SELECT 1 FROM events WHERE asm_id = ? AND event = 'Stop'", asmId)
            .length >= n,
        `turn ${n} of ${asmId} ended`,
        30_000,
      );
    try {
      const launched = await world.post("/api/launch", {
        agent: "claude",
        folder: world.folder,
        prompt: "hello from the session page test",
      });
      assert.equal(launched.status, 200, JSON.stringify(launched.body));
      const a = await world.waitLive(String(launched.body.token));
      await turnEnded(a.asmId, 1);
      const pane = String(launched.body.pane_id);

      // the Copy button writes the clipboard: granted, as a person's browser grants it to the page they use
      const context = await browser.newContext();
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: world.server.url });
      const page = await context.newPage();
      page.on("pageerror", (e) => console.log(`page error: ${e.message}`));
      await openWithKey(page, world.server, `/sessions/${a.asmId}?stream_ms=300`);
      await page.locator(`[data-status-for="${a.asmId}"]`, { hasText: "LIVE" }).waitFor({ timeout: 15_000 });
      await page.locator(".msg-prompt", { hasText: "hello from the session page test" }).waitFor();
      await mark(page);

      // typed into its window as a person would: the prompt, the tool call and its output arrive on the page
      await world.tmux(["send-keys", "-t", pane, "-l", "please USE_TOOL now, second prompt"]);
      await new Promise((r) => setTimeout(r, 300));
      await world.tmux(["send-keys", "-t", pane, "Enter"]);
      await page.locator(".msg-prompt", { hasText: "please USE_TOOL now, second prompt" }).waitFor({
        timeout: 30_000,
      });
      const call = page.locator(".msg-tool", { hasText: MOCK_SHELL_COMMAND }).first();
      await call.waitFor({ timeout: 30_000 });
      const tool = await call.locator(".tool-name").innerText();
      const command = await call.locator(".tool-cmd").innerText();
      await call.locator(".tool-output summary").waitFor({ timeout: 30_000 });
      const output = await call.locator(".tool-output pre").textContent();
      console.log(`tool call on the page: ${tool}: ${command}; output ${JSON.stringify(output)}`);
      assert.equal(tool, "Bash");
      assert.equal(command, `$ ${MOCK_SHELL_COMMAND}`);
      assert.match(output ?? "", /mock-tool-ran/);
      assert.equal(await notReloaded(page), true, "no reload: the entries were appended");
      const appended = await page.evaluate(() =>
        (globalThis as unknown as { __asmAppended: number }).__asmAppended
      );
      assert.ok(appended >= 2, `${appended} entries appended`);

      // the resume command, copied as a person pastes it
      await page.locator(".resume-command").getByRole("button", { name: "Copy", exact: true }).click();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      const sid = world.server.ledger.session(a.asmId)!.agent_session_id;
      assert.equal(copied, `cd '${world.folder}' && claude --resume ${sid}`);

      // a search hit opens the page at the hit, marked and in view; the page reads at every width
      await page.goto(`${world.server.url}/sessions/${a.asmId}?find=mock-tool-ran&stream_ms=300#hit`);
      const hit = page.locator("#hit");
      await hit.waitFor();
      assert.equal(await hit.locator("mark").first().innerText(), "mock-tool-ran");
      const box = (await hit.boundingBox())!;
      const height = page.viewportSize()!.height;
      console.log(`search hit: at ${Math.round(box.y)} px of a ${height} px window`);
      assert.ok(box.y >= 0 && box.y < height, "the hit is in view");
      for (const width of [1920, 1440, 1024, 768, 390]) {
        await page.setViewportSize({ width, height: 900 });
        const at = await page.evaluate(() => ({
          scroll: document.documentElement.scrollWidth - innerWidth,
          // the window's screen scrolls sideways inside its own box (it has the pane's width): what is inside
          // it is clipped there, not sticking out of the page
          sticking: [...document.querySelectorAll<HTMLElement>("main *")].filter((e) =>
            e.getBoundingClientRect().right > innerWidth + 1 && e.getClientRects().length > 0 &&
            !e.parentElement?.closest(".terminal-screen")
          ).slice(0, 3).map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
        }));
        console.log(
          `${width} px, session page: page scroll ${at.scroll} px; ${at.sticking.length} elements stick out`,
        );
        assert.equal(at.scroll, 0, `${width} px: ${at.sticking.join("; ")}`);
        assert.deepEqual(at.sticking, [], `${width} px`);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await openWithKey(page, world.server, `/sessions/${a.asmId}?stream_ms=300`);
      await mark(page);

      // Jump and Send from the page (its pane is proven)
      await page.getByRole("button", { name: "Jump", exact: true }).click();
      await page.locator(".notice").filter({ hasText: /Jump to .*: done/ }).waitFor({ timeout: 15_000 });
      await page.getByRole("button", { name: "Send", exact: true }).click();
      await page.locator(".dialog input[name=text]").fill("/rename Renamed From The Page");
      await confirm(page, /Send to .*: done/);
      await world.until(
        () => {
          const path = world.server.ledger.session(a.asmId)!.transcript_path;
          return path !== null && Deno.readTextFileSync(path).includes("Renamed From The Page");
        },
        "the rename reached the transcript",
        30_000,
      );

      // END from the page, then RESUME from the page: the same session, live again
      await page.getByRole("button", { name: "END", exact: true }).click();
      await confirm(page, /END .*: done/);
      await page.locator(`[data-status-for="${a.asmId}"]`, { hasText: "ENDED" }).waitFor({ timeout: 30_000 });
      await page.getByRole("button", { name: "RESUME", exact: true }).click();
      await confirm(page, /RESUME .*: done/);
      await page.locator(`[data-status-for="${a.asmId}"]`, { hasText: "LIVE" }).waitFor({ timeout: 30_000 });
      assert.equal(world.server.ledger.runs(a.asmId).length, 2, "the same session's second run");

      // Closeout on the live session: typed into its window; the cell turns "closed out" without a reload
      const closeoutCell = page.locator(`[data-closeout-for="${a.asmId}"]`);
      await closeoutCell.getByRole("button", { name: "Closeout" }).waitFor({ timeout: 15_000 });
      await closeoutCell.getByRole("button", { name: "Closeout" }).click();
      assert.match(
        await page.locator(".dialog").innerText(),
        /types \/closeout and Enter into its own window/,
      );
      await confirm(page, /Closeout .*: done/);
      await closeoutCell.locator(".closed-out").waitFor({ timeout: 45_000 });
      console.log(`live closeout: the cell reads "${await closeoutCell.innerText()}"`);
      assert.equal(await notReloaded(page), true, "still the same page");

      // a second session, ended before its closeout: Closeout resumes it with the skill
      const second = await world.post("/api/launch", {
        agent: "claude",
        folder: world.folder,
        prompt: "hello from the second session",
      });
      const b = await world.waitLive(String(second.body.token));
      await turnEnded(b.asmId, 1);
      assert.equal((await world.post(`/api/sessions/${b.asmId}/end`)).status, 200);
      await world.until(() => world.server.ledger.session(b.asmId)!.status !== "live", "b ended", 30_000);
      await openWithKey(page, world.server, `/sessions/${b.asmId}?stream_ms=300`);
      await mark(page);
      const bCell = page.locator(`[data-closeout-for="${b.asmId}"]`);
      await bCell.getByRole("button", { name: "Closeout" }).click();
      assert.match(await page.locator(".dialog").innerText(), /resumes it .* with \/closeout as its prompt/);
      await confirm(page, /Closeout .*: done/);
      await bCell.locator(".closed-out").waitFor({ timeout: 60_000 });
      assert.equal(await notReloaded(page), true, "the cell turned without a reload");
      assert.equal(
        world.server.ledger.query("SELECT closeout_state FROM sessions WHERE asm_id = ?", b.asmId)[0]
          .closeout_state,
        "closed",
      );
      console.log(`ended closeout: the cell reads "${await bCell.innerText()}"`);

      // CONTINUE WITH from the page (once it ends): Gemini CLI takes over; both pages link the two sessions
      await page.locator(`[data-status-for="${b.asmId}"]`, { hasText: "LIVE" }).waitFor({ timeout: 30_000 });
      await page.getByRole("button", { name: "END", exact: true }).click();
      await confirm(page, /END .*: done/);
      await page.locator(`[data-status-for="${b.asmId}"]`, { hasText: "ENDED" }).waitFor({ timeout: 30_000 });
      await page.getByRole("button", { name: "CONTINUE WITH", exact: true }).click();
      await page.locator(".dialog select[name=agent]").selectOption("gemini");
      await confirm(page, /CONTINUE .*: done/);
      const forward = page.locator("[data-continued-by] a");
      await forward.waitFor({ timeout: 60_000 });
      const successor = (await forward.getAttribute("href"))!;
      console.log(`continued by: ${await forward.innerText()} (${successor})`);
      assert.equal(await notReloaded(page), true, "the link appeared without a reload");
      await page.goto(`${world.server.url}${successor}`);
      const back = page.locator("[data-continues] a");
      await back.waitFor({ timeout: 15_000 });
      assert.equal(await back.getAttribute("href"), `/sessions/${b.asmId}`);
    } finally {
      clearInterval(drainer);
      await browser.close();
      await world.close();
    }
  },
});
