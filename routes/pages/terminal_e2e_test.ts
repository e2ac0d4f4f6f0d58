/**
 * The agent's window in the page, end to end: Chromium drives a real Claude Code launched in a folder it has not
 * trusted. Its trust question appears in the launch page's terminal view, keys typed in the view answer it, the
 * session goes on (the page follows it to the session's page); a prompt typed in the view starts a turn the fake
 * model streams slowly, and Interrupt from the view stops it mid-stream. Every wait is on what the pane or the page shows.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { liveWorld, testedAgents } from "../../verify/live_world.ts";
import { launchChromium, openWithKey } from "../../verify/browser.ts";

/** What the page's terminal shows, row by row (the text a person sees in it). */
function shown(page: Page): Promise<string> {
  // xterm.js draws a space as a no-break space
  return page.evaluate(() =>
    (document.querySelector<HTMLElement>(".terminal-screen .xterm-rows")?.innerText ?? "").replaceAll(
      "\u00a0",
      " ",
    )
  );
}

async function showsText(page: Page, want: RegExp, what: string): Promise<string> {
  const deadline = Date.now() + 45_000;
  let last = "";
  while (Date.now() < deadline) {
    last = await shown(page);
    if (want.test(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the view never showed ${what}; it shows:\n${last}`);
}

Deno.test({
  name:
    "a real Claude's trust question is answered in the page's view of its window, the session goes on, and " +
    "Interrupt from the view stops a turn the model is streaming slowly",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const claude = testedAgents().filter((a) => a.name === "claude");
    const world = await liveWorld(claude);
    const untrusted = join(world.root, "never seen before");
    Deno.mkdirSync(untrusted);
    const browser = await launchChromium();
    const drainer = setInterval(() => world.drain(), 250);
    const capture = async (pane: string) => (await world.tmux(["capture-pane", "-p", "-t", pane])).out;
    try {
      // launched from the page's own dialog, as a person does
      const page = await browser.newPage();
      page.on("pageerror", (e) => console.log(`page error: ${e.message}`));
      await openWithKey(page, world.server, "/?all=1");
      await page.getByRole("button", { name: "New session" }).click();
      await page.locator(".dialog select[name=agent]").selectOption("claude");
      await page.locator(".dialog input[name=folder]").fill(untrusted);
      await page.locator(".dialog textarea[name=prompt]").fill("hello from a folder it never saw");
      await page.locator(".dialog button[type=submit]").click();
      // the launch is not "done": its notice says what the window waits on, and links to it
      const notice = page.locator(".notice", { hasText: "waits on you" });
      await notice.waitFor({ timeout: 20_000 });
      console.log(`the notice: ${await notice.innerText()}`);
      assert.match(await notice.innerText(), /trust this folder/);
      const token = world.server.ledger.query(
        "SELECT token FROM launches ORDER BY requested_at DESC LIMIT 1",
      )[0]
        .token as string;
      const pane = world.server.ledger.query("SELECT pane_id FROM launches WHERE token = ?", token)[0]
        .pane_id as string;
      await world.until(
        async () => /Yes, I trust this folder/.test(await capture(pane)),
        "Claude asks whether to trust the folder",
        45_000,
      );
      await notice.getByRole("link", { name: "Answer it here" }).click();
      await page.waitForURL(new RegExp(`/launches/${token}$`));
      const question = await showsText(page, /Yes, I trust this folder/, "the trust question");
      console.log(
        `the view shows: ${
          question.split("\n").filter((l) => /trust this folder|No, exit/.test(l)).map((l) => l.trim()).join(
            " / ",
          )
        }`,
      );
      assert.equal(
        world.server.ledger.query("SELECT matched_asm_id FROM launches WHERE token = ?", token)[0]
          .matched_asm_id,
        null,
        "no session yet: the question holds it",
      );

      // the view is read-only until the switch: a key pressed before it reaches nothing
      await page.locator(".terminal-screen").click();
      await page.keyboard.press("x");
      await new Promise((r) => setTimeout(r, 500));
      assert.match(await capture(pane), /Yes, I trust this folder/, "still asking");
      await page.getByLabel("type into it").check();
      await page.locator(".terminal-screen").click();
      // "No, exit" is chosen first: the arrow moves to "Yes, I trust this folder", Enter takes it
      await page.keyboard.press("ArrowDown");
      await showsText(page, /❯ Yes, I trust this folder/, "the choice moved");
      await page.keyboard.press("Enter");

      // the session goes on: the launch is matched, and the page goes to the session's own page
      await page.waitForURL(/\/sessions\//, { timeout: 45_000 });
      const asmId = page.url().split("/sessions/")[1].split(/[?#]/)[0];
      const session = world.server.ledger.session(asmId)!;
      assert.deepEqual([session.agent, session.cwd], ["claude", untrusted]);
      const fake = world.fakes.get("claude")!;
      await world.until(
        () => fake.userTexts().some((t) => t.includes("hello from a folder it never saw")),
        "the launch's prompt reached the model",
        30_000,
      );

      // the session page's own view: a prompt typed in it starts a turn the model streams slowly (one word every
      // 400 ms, about 25 s in all); Interrupt stops it mid-stream
      await showsText(page, /hello from a folder it never saw/, "the session's window");
      await page.getByLabel("type into it").check();
      await page.locator(".terminal-screen").click();
      await page.keyboard.type("tell me slowly DRIP:400 please");
      // as a person does: the text is in the box, then Enter
      await showsText(page, /❯ tell me slowly DRIP:400 please/, "the typed prompt");
      await page.keyboard.press("Enter");
      const streaming = await showsText(page, /drip2\b/, "the reply streaming in");
      console.log(`streaming: "${streaming.split("\n").find((l) => /drip2/.test(l))?.trim().slice(0, 100)}"`);
      const interruptedAt = Date.now();
      await page.getByRole("button", { name: "Interrupt" }).click();
      // the turn stops mid-stream: its window no longer offers to interrupt it, and the reply never finishes
      const stopped = await showsText(page, /Interrupted/, "the turn interrupted");
      console.log(
        `Interrupt: "${stopped.split("\n").find((l) => /Interrupted/.test(l))?.trim()}" ` +
          `${Date.now() - interruptedAt} ms after the press`,
      );
      assert.doesNotMatch(stopped, /esc to interrupt/i, "no turn runs");
      const transcript = world.server.ledger.session(asmId)!.transcript_path!;
      await world.until(
        () => Deno.readTextFileSync(transcript).includes("[Request interrupted by user"),
        "Claude recorded the interruption",
        20_000,
      );
      assert.doesNotMatch(Deno.readTextFileSync(transcript), /drip59/, "the reply never finished");
    } finally {
      clearInterval(drainer);
      await browser.close();
      await world.close();
    }
  },
});
