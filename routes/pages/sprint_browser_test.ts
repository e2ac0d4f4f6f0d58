/**
 * The board on the front page in a real Chromium (one browser, one page per test), against a testing-mode server
 * whose board is a Markdown file in the test's data folder and whose sessions are hook events in its ledger: the
 * lanes at 1440 and 390 px, a card's status patched in place without a render, the board fetched again only when
 * its digest moves or the live ids change, and each button's request and answer.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page, Request } from "playwright-core";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { asmIdOf, bindCard, recordUnsure } from "../../lib/ledger/mod.ts";
import { type RunningServer, startServer } from "../../lib/server/mod.ts";
import { launchChromium, openWithKey } from "../../verify/browser.ts";
import { ROUTES } from "../mod.ts";

const LONG_PROMPT = "Keep every redirect the old pages had, and list them one per line. ".repeat(6).trim();
const LONG_TITLE = "Make the importer survive a transcript that was truncated mid-line ".repeat(3).trim();

const BOARD = [
  "# Sprint",
  "## SPRINT PLAN ^asm-plan",
  "- Write the release notes #webapp #claude ^c-plan01",
  "  - Write the notes for 2.0 from the merged pull requests.",
  "  - Include the migration steps.",
  `  - ${LONG_PROMPT}`,
  "- Tidy the logging #webapp #codex #dropped ^c-drop01",
  "## IN PROCESS ^asm-process",
  "- Fix the login redirect #webapp #claude ^c-live01",
  "  - The redirect after login drops the query string.",
  "- Waiting for its window #webapp #claude ^c-wait01",
  `- ${LONG_TITLE} #a-project-name-long-enough-to-need-clipping-on-a-phone #gemini ^c-long01`,
  "## COMPLETE ^asm-complete",
  "- Ship the search box #webapp #claude ^c-done01",
  "",
].join("\n");

/** The page's render counter (islands/client.tsx). */
function renders(): number {
  return (globalThis as unknown as { __asmRenders: number }).__asmRenders;
}

interface BoardWorld {
  server: RunningServer;
  page: Page;
  boardFile: string;
  /** Every request the page sent to asm's API, in order. */
  requests: Request[];
  ids: { live: string; dropped: string; long: string; loose: string };
}

async function withBoard(fn: (w: BoardWorld) => Promise<void>): Promise<void> {
  const home = Deno.makeTempDirSync({ prefix: "asm-sprint-page-" });
  // the agents' homes are temporary too: the page reads plan usage, which looks for their credentials files
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  Deno.writeTextFileSync(join(home, "config.toml"), `mode = "testing"\n`);
  const boardFile = join(home, "board.testing.md");
  Deno.writeTextFileSync(boardFile, BOARD);
  const server = startServer({ asmHome: home, port: 0, services: [], env, mode: "testing", routes: ROUTES });
  // sessions in a real folder (not a harness root, whose rows are hidden): three bound to cards, one not
  const session = (agent: string, sid: string, name: string | null, ended = false) => {
    const at = "2026-11-29T22:00:00.000Z";
    server.ledger.applyEvent(
      hookEvent({ agent, agent_session_id: sid, cwd: "/home/user/webapp", session_name: name, ts: at }),
    );
    if (ended) {
      server.ledger.applyEvent(hookEvent({
        agent,
        agent_session_id: sid,
        event: "SessionEnd",
        source: "other",
        session_name: name,
        cwd: "/home/user/webapp",
        ts: "2026-11-29T22:05:00.000Z",
      }));
    }
    return asmIdOf(agent, sid);
  };
  const ids = {
    live: session("claude", "live-1", "Fix the login redirect"),
    dropped: session("codex", "old-1", "Tidy the logging", true),
    long: session("gemini", "long-1", LONG_TITLE),
    loose: session("claude", "loose-1", null),
  };
  const at = "2026-11-29T22:00:00.000Z";
  bindCard(server.ledger, { cardId: "c-live01", asmId: ids.live, origin: "start", at });
  bindCard(server.ledger, { cardId: "c-drop01", asmId: ids.dropped, origin: "start", at });
  bindCard(server.ledger, { cardId: "c-long01", asmId: ids.long, origin: "start", at });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const requests: Request[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname.startsWith("/api/")) requests.push(r);
    });
    await fn({ server, page, boardFile, requests, ids });
  } finally {
    await browser.close();
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
}

async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    typeof (globalThis as unknown as { __asmRenders?: number }).__asmRenders === "number"
  );
}

/** How many times the page fetched the board. */
function boardFetches(requests: readonly Request[]): number {
  return requests.filter((r) => r.method() === "GET" && new URL(r.url()).pathname === "/api/sprint").length;
}

/**
 * Every lane's box, and every piece of the board's text that leaves its box: measured on text ranges (a padded
 * box's rect includes its padding), inside the element's content box, or its nearest block's when it is inline;
 * clipped text is allowed only with an ellipsis and its whole text one hover away in the title. Also any card,
 * button or lane reaching past its lane, card or the viewport.
 */
function measureBoard() {
  const inner = (el: Element) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return {
      left: r.left + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft),
      right: r.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight),
    };
  };
  const lanes = [...document.querySelectorAll<HTMLElement>(".lane")].map((lane) => {
    const r = lane.getBoundingClientRect();
    return { role: lane.dataset.lane ?? "", left: r.left, top: r.top, width: r.width };
  });
  const overflowing: string[] = [];
  let measured = 0;
  for (const el of document.querySelectorAll<HTMLElement>(".board *")) {
    const texts = [...el.childNodes].filter((n) =>
      n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== ""
    );
    if (texts.length === 0 || el.getClientRects().length === 0) continue; // no text of its own, or not shown
    measured++;
    let block: HTMLElement = el;
    while (getComputedStyle(block).display.startsWith("inline") && block.parentElement) {
      block = block.parentElement;
    }
    const range = document.createRange();
    range.selectNodeContents(el);
    const text = range.getBoundingClientRect();
    const box = inner(block);
    const s = getComputedStyle(el);
    const clippedWithTip = s.overflow === "hidden" && s.textOverflow === "ellipsis" &&
      el.title === el.textContent;
    if ((text.right > box.right + 0.5 || text.left < box.left - 0.5) && !clippedWithTip) {
      overflowing.push(`${el.className || el.tagName}: ${el.textContent?.slice(0, 40)}`);
    }
  }
  const within = (child: Element, parent: Element, what: string) => {
    const c = child.getBoundingClientRect();
    const p = inner(parent);
    if (c.right > p.right + 0.5 || c.left < p.left - 0.5) overflowing.push(`${what} ${c.left}..${c.right}`);
  };
  for (const lane of document.querySelectorAll(".lane")) {
    if (lane.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5) {
      overflowing.push("a lane past the viewport");
    }
    for (const card of lane.querySelectorAll(".card")) {
      within(card, lane, `card ${(card as HTMLElement).dataset.cardFor}`);
      for (const b of card.querySelectorAll("button")) within(b, card, `button ${b.textContent}`);
    }
  }
  return { lanes, overflowing, measured };
}

Deno.test("the lanes sit side by side at 1440 px and stack at 390 px, none 0 px wide and no text past its box", async () => {
  await withBoard(async ({ server, page }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await openWithKey(page, server, "/");
    await hydrated(page);
    // one card's prompt open too: the open lines must wrap inside the card
    await page.locator('[data-card-for="c-plan01"] .prompt summary').click();
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const { lanes, overflowing, measured } = await page.evaluate(measureBoard);
      const widths = lanes.map((l) => Math.round(l.width));
      const line = lanes.map((l) =>
        `${l.role} ${Math.round(l.width)} px at (${Math.round(l.left)}, ${Math.round(l.top)})`
      );
      console.log(
        `${width} px: ${line.join("; ")}; ${measured} text boxes measured, ${overflowing.length} overflow`,
      );
      assert.deepEqual(lanes.map((l) => l.role), ["plan", "process", "complete"]);
      assert.equal(widths.every((w) => w > 0), true, `lane widths ${widths.join(", ")}`);
      if (width === 1440) {
        // side by side: one row, left to right, equal widths
        assert.equal(new Set(lanes.map((l) => Math.round(l.top))).size, 1);
        assert.equal(lanes[0].left < lanes[1].left && lanes[1].left < lanes[2].left, true);
        assert.equal(
          Math.max(...widths) - Math.min(...widths) <= 1,
          true,
          `lane widths ${widths.join(", ")}`,
        );
      } else {
        // stacked: one column, top to bottom, each the page's width less its margins
        assert.equal(new Set(lanes.map((l) => Math.round(l.left))).size, 1);
        assert.equal(lanes[0].top < lanes[1].top && lanes[1].top < lanes[2].top, true);
        assert.equal(widths.every((w) => w >= 390 - 40), true, `lane widths ${widths.join(", ")}`);
      }
      assert.equal(measured > 30, true, `only ${measured} text boxes measured`);
      assert.deepEqual(overflowing, []);
    }
  });
});

Deno.test("a card's status cell turns UNSURE with its reason and back on idle polls, with no render and no board fetch", async () => {
  await withBoard(async ({ server, page, requests, ids }) => {
    await openWithKey(page, server, "/?poll_ms=300");
    await hydrated(page);
    const status = page.locator(`.card [data-status-for="${ids.live}"]`);
    const reason = page.locator(`.card [data-unsure-for="${ids.live}"]`);
    assert.equal(await status.textContent(), "LIVE");
    // the card and the session's row in the table are cells of one live store
    assert.equal(await page.locator(`td[data-status-for="${ids.live}"]`).textContent(), "LIVE");
    await page.waitForTimeout(800);
    assert.equal(await page.evaluate(renders), 0);
    recordUnsure(server.ledger, new Map([[ids.live, "no process of this session could be found"]]));
    await page.waitForFunction(
      (sel) => document.querySelector(sel)?.textContent === "UNSURE",
      `.card [data-status-for="${ids.live}"]`,
    );
    assert.equal(await reason.textContent(), "no process of this session could be found");
    assert.equal(await status.getAttribute("title"), "no process of this session could be found");
    assert.equal(await page.locator(`td[data-status-for="${ids.live}"]`).textContent(), "UNSURE");
    await page.waitForTimeout(700);
    recordUnsure(server.ledger, new Map([[ids.live, null]]));
    await page.waitForFunction(
      (sel) => document.querySelector(sel)?.textContent === "LIVE",
      `.card [data-status-for="${ids.live}"]`,
    );
    assert.equal(await reason.textContent(), "");
    await page.waitForTimeout(700);
    const polls = requests.filter((r) => new URL(r.url()).pathname === "/api/live").length;
    console.log(
      `${polls} polls of /api/live: ${await page.evaluate(renders)} renders, ${
        boardFetches(requests)
      } board fetches`,
    );
    assert.equal(polls >= 6, true, `${polls} polls`);
    assert.equal(await page.evaluate(renders), 0);
    assert.equal(boardFetches(requests), 0);
  });
});

Deno.test("the board is fetched again when its digest moves and when the live ids change, not otherwise", async () => {
  await withBoard(async ({ server, page, requests, boardFile }) => {
    await openWithKey(page, server, "/?poll_ms=300");
    await hydrated(page);
    await page.waitForTimeout(700);
    assert.equal(boardFetches(requests), 0);
    // a hand edit, read by the server (its sweep would): the digest moves, the page fetches the board
    Deno.writeTextFileSync(
      boardFile,
      BOARD.replace("## IN PROCESS", "- Typed by hand in an editor #webapp ^c-hand01\n## IN PROCESS"),
    );
    await server.context.state.board.board({ fresh: true });
    await page.locator('[data-lane="plan"] [data-card-for="c-hand01"]').waitFor();
    assert.equal(boardFetches(requests), 1);
    // a session joins the live set: the digest does not hash it, the page fetches the board for it
    server.ledger.applyEvent(hookEvent({
      agent: "codex",
      agent_session_id: "new-1",
      cwd: "/home/user/webapp",
      session_name: "Started a moment ago",
      ts: "2026-11-29T22:10:00.000Z",
    }));
    await page.locator(".not-on-plan li", { hasText: "Started a moment ago" }).waitFor();
    assert.equal(boardFetches(requests), 2);
    await page.waitForTimeout(700);
    assert.equal(boardFetches(requests), 2);
  });
});

Deno.test("each button posts its card's route with the page's key; a refusal is the tooltip and the answer", async () => {
  await withBoard(async ({ server, page, requests, boardFile }) => {
    await openWithKey(page, server, "/");
    await hydrated(page);
    const card = (id: string) => page.locator(`[data-card-for="${id}"]`);
    const button = (id: string, b: string) => card(id).locator(`button[data-button="${b}"]`);
    const cardPosts = () =>
      requests.filter((r) => r.method() === "POST" && new URL(r.url()).pathname.startsWith("/api/sprint/"));
    const posts = () =>
      cardPosts().map((r) => ({
        path: new URL(r.url()).pathname,
        body: r.postData(),
        key: r.headers()["authorization"] === `Bearer ${server.token}`,
      }));
    /** Waits for the board fetch that follows the n-th POST. */
    const fetchedAfter = async (n: number) => {
      const post = cardPosts()[n - 1];
      for (let i = 0; i < 50; i++) {
        if (boardFetches(requests.slice(requests.indexOf(post) + 1)) > 0) return;
        await page.waitForTimeout(100);
      }
      assert.fail(`no board fetch after POST ${n}`);
    };

    // START on a card in IN PROCESS: the sentence on hover, then the server's same sentence after the press
    const inProcess = "this card is already in IN PROCESS";
    assert.equal(await button("c-live01", "start").getAttribute("title"), inProcess);
    await button("c-live01", "start").click();
    await card("c-live01").locator(".card-notice.error", { hasText: inProcess }).waitFor();
    await fetchedAfter(1);
    // DONE while its session is open
    const open = "its session is still open; END it first";
    assert.equal(await button("c-live01", "done").getAttribute("title"), open);
    await button("c-live01", "done").click();
    await card("c-live01").locator(".card-notice.error", { hasText: open }).waitFor();
    await fetchedAfter(2);
    // END on a card that never had a session
    await button("c-done01", "end").click();
    await card("c-done01").locator(".card-notice.error", { hasText: "this card has no session to end" })
      .waitFor();
    assert.deepEqual(posts(), [
      { path: "/api/sprint/c-live01/start", body: "{}", key: true },
      { path: "/api/sprint/c-live01/done", body: "{}", key: true },
      { path: "/api/sprint/c-done01/end", body: "{}", key: true },
    ]);

    // START, RESUME and CONTINUE WITH that would launch are answered here, not by a terminal (the live gate's)
    const launched: { path: string; body: unknown }[] = [];
    await page.route("**/api/sprint/*/{start,resume,continue}", (route) => {
      launched.push({ path: new URL(route.request().url()).pathname, body: route.request().postDataJSON() });
      return route.fulfill({ status: 503, json: { error: "no terminal here (the test answered)" } });
    });
    await button("c-plan01", "start").click();
    const dialog = page.locator(".board .dialog");
    assert.equal(await dialog.locator("select[name=agent]").inputValue(), "claude");
    await dialog.locator("select[name=agent]").selectOption("codex");
    await dialog.locator("input[name=model]").fill("gpt-5");
    await dialog.locator("button[type=submit]").click();
    await card("c-plan01").locator(".card-notice.error", { hasText: "no terminal here" }).waitFor();
    // RESUME: the agent is text with the line saying why, pointing at CONTINUE WITH; an empty model sends no key
    await button("c-drop01", "resume").click();
    assert.match(await dialog.innerText(), /Agent: Codex/);
    assert.match(await dialog.locator(".why").innerText(), /cannot change.*CONTINUE WITH/);
    assert.equal(await dialog.locator("select").count(), 0);
    await dialog.locator("button[type=submit]").click();
    await card("c-drop01").locator(".card-notice.error", { hasText: "no terminal here" }).waitFor();
    // CONTINUE WITH offers only the other agents
    await button("c-drop01", "continue").click();
    const offered = await dialog.locator("select[name=agent] option").evaluateAll((os) =>
      os.map((o) => (o as HTMLOptionElement).value)
    );
    assert.equal(offered.includes("codex"), false);
    await dialog.locator("select[name=agent]").selectOption("claude");
    await dialog.locator("button[type=submit]").click();
    await card("c-drop01").locator(".card-notice.error", { hasText: "no terminal here" }).waitFor();
    assert.deepEqual(launched, [
      { path: "/api/sprint/c-plan01/start", body: { agent: "codex", model: "gpt-5" } },
      { path: "/api/sprint/c-drop01/resume", body: {} },
      { path: "/api/sprint/c-drop01/continue", body: { agent: "claude" } },
    ]);

    // a copy a poll behind: the card was moved back to the plan by hand since the page drew it as IN PROCESS;
    // START looks again before it posts, and asks for the agent instead of launching
    assert.equal(await button("c-wait01", "start").getAttribute("title"), inProcess);
    Deno.writeTextFileSync(
      boardFile,
      Deno.readTextFileSync(boardFile).replace("- Waiting for its window #webapp #claude ^c-wait01\n", "")
        .replace("## IN PROCESS", "- Waiting for its window #webapp #claude ^c-wait01\n## IN PROCESS"),
    );
    await server.context.state.board.board({ fresh: true });
    const before = cardPosts().length;
    await button("c-wait01", "start").click();
    await dialog.locator("select[name=agent]").waitFor();
    assert.match(await dialog.locator("h2").innerText(), /Start Waiting for its window/);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    assert.equal(cardPosts().length, before);
    assert.equal(launched.length, 3);

    // DONE on a planned card acts: the board is fetched again and the card is in COMPLETE, on the page and the file
    assert.equal(await button("c-plan01", "done").getAttribute("class"), null);
    await button("c-plan01", "done").click();
    await page.locator('[data-lane="complete"] [data-card-for="c-plan01"]').waitFor();
    await card("c-plan01").locator(".card-notice", { hasText: "DONE: done." }).waitFor();
    const file = Deno.readTextFileSync(boardFile);
    assert.equal(file.indexOf("^c-plan01") > file.indexOf("## COMPLETE"), true);
  });
});
