/**
 * The dashboard end to end, in a real Chromium, driving a real Claude Code in a real tmux window against its fake
 * model server (and a session of each other real agent for the widths): launch from the dialog, see it live, END it from its row, see ENDED, RESUME it from the row and
 * see the same session live again; then START a card of the board from its lane and see a new Claude live in
 * a window of its own, the card IN PROCESS with its status cell LIVE.
 * @module
 */
import assert from "node:assert/strict";
import { liveWorld, testedAgents } from "../../verify/live_world.ts";
import { launchChromium, measureTable, openWithKey } from "../../verify/browser.ts";

Deno.test({
  name: "a session launched from the dialog goes live, ENDs from its row, and RESUMEs as the same session; " +
    "a card STARTed from its lane launches a real agent and reads LIVE in IN PROCESS; with every real agent's rows, " +
    "the page reads at six widths",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const agents = testedAgents();
    const world = await liveWorld(agents, {
      folders: ["webapp"],
      config: (folders) => ({ board: { folders: { webapp: folders.get("webapp") } } }),
      asmFiles: {
        "board.testing.md": "## SPRINT PLAN ^asm-plan\n- Started from the page #webapp ^c-page01\n" +
          "  - hello from the board\n## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete\n",
      },
    });
    const browser = await launchChromium();
    // the world's server drains only when asked (its gates count events); the page needs it drained as it goes
    const drainer = setInterval(() => world.drain(), 250);
    try {
      const page = await browser.newPage();
      // the scratch folder is under the system temp folder, a harness root: its rows are hidden unless all=1
      await openWithKey(page, world.server, "/?all=1&poll_ms=500");
      await page.getByRole("button", { name: "New session" }).click();
      await page.locator(".dialog select[name=agent]").selectOption("claude");
      await page.locator(".dialog input[name=folder]").fill(world.folder);
      await page.locator(".dialog input[name=name]").fill("dashboard e2e");
      await page.locator(".dialog textarea[name=prompt]").fill("hello from the dashboard");
      const windowsBefore = await world.windows();
      await page.locator(".dialog button[type=submit]").click();
      await page.locator(".notice").filter({ hasText: "Launch: done" }).waitFor({ timeout: 20_000 });

      // the launched session's row appears and reads LIVE
      const row = page.locator("tr[data-row-for]", { has: page.locator(".chip", { hasText: "claude" }) })
        .first();
      await row.locator("td.status", { hasText: "LIVE" }).waitFor({ timeout: 30_000 });
      const asmId = await row.getAttribute("data-row-for");
      assert.ok(asmId);
      const session = world.server.ledger.session(asmId)!;
      assert.equal(session.agent, "claude");
      assert.equal(await world.windows(), windowsBefore + 1);
      const sessionId = session.agent_session_id;
      // its pane is proven (the panes service): the row offers Jump and Send
      await row.getByRole("button", { name: "Jump", exact: true }).waitFor({ timeout: 15_000 });
      assert.equal(await row.getByRole("button", { name: "Send", exact: true }).isVisible(), true);
      // let the first turn finish before END: Claude writes its transcript only with the first prompt, and a
      // session ended before that has nothing to resume
      await world.until(
        () =>
          world.server.ledger.query("SELECT 1 FROM events WHERE asm_id = ? AND event = 'Stop'", asmId)
            .length > 0,
        "the first turn's Stop event",
        30_000,
      );

      // END from the row: the window closes and the row reads ENDED (stored as killed)
      await row.getByRole("button", { name: "END", exact: true }).click();
      // END asks first; Enter confirms (the dialog's END button has the focus)
      await page.waitForFunction(() =>
        document.activeElement?.textContent === "END" && !!document.activeElement.closest(".dialog")
      );
      await page.keyboard.press("Enter");
      await page.locator(`[data-status-for="${asmId}"]`, { hasText: "ENDED" }).waitFor({ timeout: 30_000 });
      assert.equal(world.server.ledger.session(asmId)!.status, "killed");
      await world.until(async () => (await world.windows()) === windowsBefore, "the window closed", 15_000);

      // RESUME from the row: the same agent session comes back live, in the same row
      const ended = page.locator(`tr[data-row-for="${asmId}"]`);
      await ended.getByRole("button", { name: "RESUME", exact: true }).click();
      assert.match(await page.locator(".dialog").innerText(), /CONTINUE WITH/);
      await page.locator(".dialog button[type=submit]").click();
      await page.locator(".notice").filter({ hasText: /RESUME .*: / }).waitFor({ timeout: 20_000 });
      assert.match(await page.locator(".notice").innerText(), /: done/);
      try {
        await page.locator(`[data-status-for="${asmId}"]`, { hasText: "LIVE" }).waitFor({ timeout: 30_000 });
      } catch (err) {
        // what the ledger says, so a failure in CI explains itself
        const ledger = world.server.ledger;
        throw new Error(
          `${(err as Error).message}\nsession: ${JSON.stringify(ledger.session(asmId))}\nruns: ${
            JSON.stringify(ledger.runs(asmId))
          }\nevents: ${
            JSON.stringify(
              ledger.query("SELECT event, ts, outcome FROM events WHERE asm_id = ? ORDER BY ts", asmId),
            )
          }\nlaunches: ${
            JSON.stringify(ledger.query("SELECT token, kind, matched_asm_id, error FROM launches"))
          }`,
        );
      }
      const resumed = world.server.ledger.session(asmId)!;
      assert.equal(resumed.agent_session_id, sessionId);
      const runs = world.server.ledger.runs(asmId);
      assert.equal(runs.length, 2);
      assert.equal(runs[1].start_source, "resume");

      // START from the board's lane: a real Claude in a new window, the card IN PROCESS and its cell LIVE
      const card = page.locator('[data-card-for="c-page01"]');
      const windowsBeforeStart = await world.windows();
      await card.locator('button[data-button="start"]').click();
      const dialog = page.locator(".board .dialog");
      await dialog.locator("select[name=agent]").selectOption("claude");
      await dialog.locator("button[type=submit]").click();
      const moved = page.locator('[data-lane="process"] [data-card-for="c-page01"]');
      await moved.waitFor({ timeout: 20_000 });
      await moved.locator("[data-status-for]", { hasText: "LIVE" }).waitFor({ timeout: 30_000 });
      const cardAsmId = await moved.locator("[data-status-for]").getAttribute("data-status-for");
      assert.ok(cardAsmId && cardAsmId !== asmId, `the card's own new session: ${cardAsmId}`);
      const started = world.server.ledger.session(cardAsmId)!;
      assert.deepEqual([started.agent, started.status, started.cwd], [
        "claude",
        "live",
        world.folders.get("webapp"),
      ]);
      assert.equal(await world.windows(), windowsBeforeStart + 1, "one window more");
      const fake = world.fakes.get("claude")!;
      await world.until(
        () => fake.userTexts().some((t) => t.includes("hello from the board")),
        "the card's prompt reached the model",
        30_000,
      );
      assert.match(
        Deno.readTextFileSync(`${world.asmHome}/board.testing.md`),
        /## IN PROCESS \^asm-process\n- Started from the page #webapp #claude \^c-page01\n/,
      );

      // a session of each other real agent too, so the widths are measured on every agent's rows
      for (const agent of agents.filter((a) => a.name !== "claude")) {
        const launched = await world.post("/api/launch", {
          agent: agent.name,
          folder: world.folder,
          prompt: `hello from ${agent.display}`,
          bypass_hook_trust: true,
        });
        assert.equal(launched.status, 200, JSON.stringify(launched.body));
        await world.waitLive(String(launched.body.token));
      }
      await page.waitForFunction(
        (n) => document.querySelectorAll("tbody tr").length >= n,
        agents.length + 1,
        { timeout: 30_000 },
      );
      const agentsShown = await page.evaluate(() =>
        [...new Set([...document.querySelectorAll("tbody tr td.agent")].map((td) => td.textContent))].sort()
      );
      assert.deepEqual(
        agentsShown,
        agents.map((a) => a.name).sort(),
        "every real agent's rows are on the page",
      );

      // the same page, with these real sessions, resized across the widths a person uses
      for (const width of [1920, 1440, 1280, 1024, 768, 390]) {
        await page.setViewportSize({ width, height: 900 });
        const at = await page.evaluate(measureTable);
        const title = at.columns?.find(([name]) => name.startsWith("Title"))?.[1];
        console.log(
          `${width} px, real sessions: ${
            at.columns === null ? `cards of ${at.rowLines} lines` : `Title ${title}`
          }; ` +
            `page scroll ${at.pageScroll} px; ${at.overflowing.length} cells overflow`,
        );
        assert.equal(at.pageScroll, 0, `${width} px: ${at.sticking.join("; ")}`);
        assert.deepEqual(at.overflowing, [], `${width} px: ${JSON.stringify(at.overflowing)}`);
        if (width >= 1024) assert.ok(title !== undefined && title >= 160, `${width} px: Title ${title}`);
      }
    } finally {
      clearInterval(drainer);
      await browser.close();
      await world.close();
    }
  },
});
