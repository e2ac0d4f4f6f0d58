import assert from "node:assert/strict";
import { join } from "node:path";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import {
  asmIdOf,
  type DerivedSession,
  type Ledger,
  recordActivity,
  writeDerived,
} from "../../lib/ledger/mod.ts";
import { startServer } from "../../lib/server/mod.ts";
import { harnessRoots } from "../../lib/config/mod.ts";
import type { TranscriptIo } from "../../lib/derive/mod.ts";
import { denoIo, ImportRunner } from "../../lib/history/mod.ts";
import { claudePromptLine } from "../../lib/history/_test_utils.ts";
import { launchChromium, measureTable, openWithKey } from "../../verify/browser.ts";
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
    assert.equal(await cell.getAttribute("data-tone"), "working", "the cell's tone follows its word");
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

Deno.test("the sessions table at every width: Title keeps 160 px to 1024, rows become two-line cards below, nothing overflows", async () => {
  await withPage(async (page, server) => {
    // a year of activity and a project of its own, so the panels have something to draw
    writeDerived(server.ledger, {
      sessions: [derivedRow("claude", "busy", { days: { "2026-01-05": 4, "2026-11-29": 9 }, turns: 13 })],
      files: [],
      now: new Date().toISOString(),
    });
    await page.setViewportSize({ width: 1920, height: 900 });
    await openWithKey(page, server, "/");
    for (const width of [1920, 1440, 1280, 1024, 768, 390]) {
      await page.setViewportSize({ width, height: 900 });
      // the panels first (their own pages), then back to the list
      for (const path of ["/projects", "/activity"]) {
        await page.goto(new URL(path, page.url()).href);
        const scroll = await page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        console.log(`${width} px ${path}: page scroll ${scroll} px`);
        assert.equal(scroll, 0, `${width} px ${path}: no horizontal scroll`);
      }
      await page.goto(new URL("/", page.url()).href);
      await page.waitForFunction(() =>
        typeof (globalThis as unknown as { __asmRenders?: number }).__asmRenders === "number"
      );
      const at = await page.evaluate(measureTable);
      const usage = await page.evaluate(() => ({
        height: document.querySelector(".usage-bar")!.getBoundingClientRect().height,
        text: (document.querySelector(".usage-bar") as HTMLElement).innerText,
      }));
      console.log(`${width} px: the usage row ${Math.round(usage.height)} px high`);
      assert.ok(usage.height <= 120, `${width} px: the usage row is compact (${usage.height} px)`);
      assert.doesNotMatch(
        usage.text,
        /\/[a-z0-9._-]+\/[a-z0-9._-]+/i,
        `${width} px: no file path in the row itself`,
      );
      const layout = at.columns === null
        ? `cards of at most ${at.rowLines} lines`
        : at.columns.map(([name, w]) => `${name} ${Math.round(w)}`).join(", ");
      console.log(
        `${width} px: ${layout}; page scroll ${at.pageScroll} px; ${at.overflowing.length} cells overflow`,
      );
      assert.equal(at.pageScroll, 0, `${width} px: no horizontal scroll (${at.sticking.join("; ")})`);
      assert.deepEqual(at.overflowing, [], `${width} px: no text overflows its cell`);
      if (width >= 1024) {
        assert.ok(at.columns !== null, `${width} px: a table`);
        const title = at.columns.find(([name]) => name.startsWith("Title"));
        assert.ok(title && title[1] >= 160, `${width} px: Title ${title?.[1]} px`);
        for (const [name, w] of at.columns) assert.ok(w >= 40, `${width} px: ${name} is ${w} px`);
      } else {
        assert.equal(at.columns, null, `${width} px: each row a card`);
        // two lines; on a phone an ended row's RESUME and CONTINUE WITH take a third of their own
        const most = width >= 600 ? 2 : 3;
        assert.ok(at.rowLines <= most, `${width} px: a row takes ${at.rowLines} lines (at most ${most})`);
      }
    }
    const wide = await page.evaluate(() => innerWidth);
    assert.equal(wide, 390);
  });
});

/** One state as the page draws it: the word, the shape before it, its colour's contrast with the page. */
function toneOf(selector: string): { word: string; tone: string; shape: string; contrast: number } {
  const el = document.querySelector<HTMLElement>(selector)!;
  const rgb = (c: string) => c.match(/[\d.]+/g)!.slice(0, 3).map(Number);
  const lum = (c: number[]) => {
    const [r, g, b] = c.map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const fg = lum(rgb(getComputedStyle(el).color));
  const bg = lum(rgb(getComputedStyle(document.body).backgroundColor));
  return {
    word: el.textContent ?? "",
    tone: el.dataset.tone ?? "",
    shape: getComputedStyle(el, "::before").content,
    contrast: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05),
  };
}

Deno.test("states across the room: each a word, a shape and a colour of its own, readable; needs me first sorts them", async () => {
  await withPage(async (page, server) => {
    const a = asmIdOf("claude", "a");
    const c = asmIdOf("gemini", "c");
    const b = asmIdOf("codex", "b");
    const at = new Date().toISOString();
    recordActivity(server.ledger, [
      { asm_id: a, activity: "waiting", activity_reason: "permission", activity_at: at },
      { asm_id: c, activity: "stalled", activity_reason: "no new evidence for 9 min", activity_at: at },
    ]);
    await page.setViewportSize({ width: 1440, height: 900 });
    await openWithKey(page, server, "/?poll_ms=300");
    const cells = [
      [`[data-activity-for="${a}"]`, "waiting"],
      [`[data-activity-for="${c}"]`, "attention"],
      [`[data-status-for="${a}"]`, "live"],
      [`[data-status-for="${b}"]`, "ended"],
    ] as const;
    const seen = [];
    for (const [selector, tone] of cells) {
      const got = await page.evaluate(toneOf, selector);
      console.log(`${got.word}: tone ${got.tone}, shape ${got.shape}, contrast ${got.contrast.toFixed(1)}:1`);
      assert.equal(got.tone, tone, selector);
      assert.notEqual(got.shape, "none", `${got.word} has a shape`);
      assert.ok(got.contrast >= 4.5, `${got.word} contrast ${got.contrast}`);
      seen.push(got);
    }
    assert.equal(new Set(seen.map((x) => x.shape)).size, seen.length, "every state its own shape");
    // the same fact moves: the waiting session's turn ends, and its cell turns Idle without a render
    const before = await page.evaluate(renders);
    recordActivity(server.ledger, [{ asm_id: a, activity: "idle", activity_reason: null, activity_at: at }]);
    await page.waitForFunction(
      (sel) => document.querySelector<HTMLElement>(sel)?.dataset.tone === "idle",
      cells[0][0],
    );
    assert.equal((await page.evaluate(toneOf, cells[0][0])).word, "Idle");
    assert.equal(await page.evaluate(renders), before, "patched in place");
    // needs me first: the session in trouble, then the idle one, then the ended one
    await page.getByLabel("needs me first").check();
    const order = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("tbody tr")].map((tr) => tr.dataset.rowFor)
    );
    assert.deepEqual(order, [c, a, b]);
  });
});

/** A session as the import derives it (lib/ledger writeDerived): the import's door into the list. */
function derivedRow(agent: string, sid: string, over: Partial<DerivedSession> = {}): DerivedSession {
  return {
    asm_id: asmIdOf(agent, sid),
    agent,
    agent_session_id: sid,
    parent_asm_id: null,
    cleared_from_asm_id: null,
    source: "interactive",
    thread_source: null,
    cwd: "/home/user/website",
    transcript_path: `/nowhere/${sid}.jsonl`,
    transcript_copy: null,
    started_at: "2026-11-29T22:00:00.000Z",
    last_seen: new Date().toISOString(),
    turns: 1,
    first_message: "hello",
    name: null,
    title: `Imported ${sid}`,
    summary: null,
    model: null,
    context_tokens: null,
    context_window: null,
    agent_version: null,
    closeout_state: null,
    project: "website",
    primary_folder: "/home/user/website",
    harness: false,
    days: {},
    folders: {},
    skills: {},
    ...over,
  };
}

Deno.test("every cell true without a reload: turns, last seen, project and closeout move in place; an imported row appears; the top bar is right at first paint", async () => {
  await withPage(async (page, server) => {
    const a = asmIdOf("claude", "a");
    await page.addInitScript(() => {
      const violations: string[] = [];
      (globalThis as unknown as { __csp: string[] }).__csp = violations;
      document.addEventListener(
        "securitypolicyviolation",
        (e) => violations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    recordActivity(server.ledger, [{
      asm_id: a,
      activity: "waiting",
      activity_reason: "permission",
      activity_at: new Date().toISOString(),
    }]);
    // no poll for a minute: what the top bar says now is the server's first paint
    await page.setViewportSize({ width: 1440, height: 900 });
    await openWithKey(page, server, "/?poll_ms=60000");
    const glance = await page.locator('[data-glance-for="claude"]').innerText();
    console.log(
      `first paint, before any poll: Claude Code ${JSON.stringify(glance)}; title ${await page.title()}`,
    );
    assert.match(glance, /Waiting on you \(permission\): \(no title yet\) a/);
    assert.equal(await page.title(), "(1) asm");
    await page.waitForFunction(() =>
      document.querySelector<HTMLLinkElement>("link[rel=icon]")?.href.startsWith("data:")
    );
    assert.deepEqual(
      await page.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp),
      [],
      "no CSP violation",
    );

    // now polling: the import derives the live session's turns, project and closeout, and adds an ended session
    await openWithKey(page, server, "/?poll_ms=300");
    await page.waitForFunction(() =>
      typeof (globalThis as unknown as { __asmRenders?: number }).__asmRenders === "number"
    );
    const before = await page.evaluate(renders);
    writeDerived(server.ledger, {
      sessions: [
        derivedRow("claude", "a", {
          turns: 7,
          project: "website-v2",
          closeout_state: "open",
          context_tokens: 84_000,
          context_window: 200_000,
        }),
      ],
      files: [],
      now: new Date().toISOString(),
    });
    await page.waitForFunction(
      (id) => document.querySelector(`[data-turns-for="${id}"]`)?.textContent === "7",
      a,
    );
    assert.deepEqual(
      await page.evaluate(
        (id) =>
          ["turns", "project", "closeout"].map((f) =>
            document.querySelector<HTMLElement>(`[data-${f}-for="${id}"]`)?.innerText
          ),
        a,
      ),
      // an open closeout is the Closeout button
      ["7", "website-v2", "Closeout"],
    );
    await page.waitForFunction(
      (id) => document.querySelector(`[data-context-for="${id}"]`)?.textContent === "42%",
      a,
    );
    assert.equal(
      await page.locator(`[data-context-for="${a}"]`).getAttribute("title"),
      "84k of 200k tokens in the model's window",
    );
    assert.equal(await page.evaluate(renders), before, "patched in place, no render");
    assert.match(
      await page.locator(`[data-seen-for="${a}"]`).innerText(),
      /^\d+s ago$/,
      "last seen ticks from the payload",
    );
    const imported = asmIdOf("codex", "imported");
    writeDerived(server.ledger, {
      sessions: [derivedRow("codex", "imported", { cwd: "/home/user/api", project: "api", turns: 4 })],
      files: [],
      now: new Date().toISOString(),
    });
    await page.locator(`[data-row-for="${imported}"]`).waitFor();
    console.log(
      `an imported row appeared without a reload: ${await page.locator(
        `[data-row-for="${imported}"] td.title`,
      ).innerText()}`,
    );
  });
});

Deno.test("everyday controls: filters and sort in the address, true counts, dialogs that keep their errors and close on Esc, END asks, shortcuts", async () => {
  await withPage(async (page, server) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await openWithKey(page, server, "/?agent=codex&poll_ms=60000");
    const rowsShown = () => page.evaluate(() => [...document.querySelectorAll("tbody tr")].length);
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 1);
    assert.equal(
      await page.locator(".filters .count").innerText(),
      "1 session",
      "the count is of what matches",
    );
    assert.equal(await page.locator("button.more").count(), 0, "nothing more to show");
    await page.getByLabel("Agent").selectOption("");
    await page.getByLabel("Status").selectOption("live");
    await page.waitForFunction(() =>
      location.search.includes("status=live") && !location.search.includes("agent=")
    );
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 2);
    assert.equal(await page.getByLabel("Status").inputValue(), "live", "a reload keeps the filter");
    console.log(`after a reload at ${await page.evaluate(() => location.search)}: ${await rowsShown()} rows`);

    // n opens the launch dialog, its refusal shows inside it, Esc closes it, so does a click on the backdrop
    await page.keyboard.press("n");
    const dialog = page.locator(".dialog");
    await dialog.waitFor();
    await page.getByLabel("Folder").fill("/no/such/folder/anywhere");
    await page.getByRole("button", { name: "Launch" }).click();
    const error = await page.locator(".dialog .dialog-error").innerText();
    console.log(`the launch's refusal, inside its dialog: ${error}`);
    assert.match(error, /no\/such\/folder/);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "New session" }).click();
    await page.mouse.click(5, 895);
    await dialog.waitFor({ state: "detached" });

    // END asks first; Esc keeps the session
    const live = page.locator("tbody tr").first();
    // a session asm has proven no pane for is offered no Jump or Send (asm would refuse them)
    assert.deepEqual(
      await live.evaluate((tr) =>
        [...tr.querySelectorAll("button")].filter((b) => !b.hidden).map((b) => b.textContent)
      ),
      ["END"],
    );
    await live.getByRole("button", { name: "END", exact: true }).click();
    assert.match(await page.locator(".dialog h2").innerText(), /^END .*\?$/);
    // Enter confirms: the dialog's END button takes the focus
    await page.waitForFunction(() =>
      document.activeElement?.textContent === "END" && !!document.activeElement.closest(".dialog")
    );
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    assert.equal(server.ledger.session(asmIdOf("claude", "a"))?.status, "live", "nothing ended");

    // shortcuts: j / k move the selection, ? lists them, / goes to search
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await page.keyboard.press("k");
    const selected = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("tbody tr")].findIndex((r) =>
        r.classList.contains("selected")
      )
    );
    assert.equal(selected, 0);
    await page.keyboard.press("?");
    assert.match(await page.locator("#shortcuts").innerText(), /new session/);
    await page.keyboard.press("Escape");
    await page.keyboard.press("/");
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).type), "search");
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

/**
 * The reads of a first import, held back: a transcript the first phase listed (on record as listed) is read whole
 * one byte per 2 ms until `release()`, then at full speed; everything else reads as it is. The import yields to
 * the server every few ms, so the page is answered while it crawls: an import that runs until the test says.
 */
function heldIo(ledger: Ledger): TranscriptIo & { release(): void } {
  let held = true;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  return {
    readDir: (path) => denoIo.readDir(path),
    stat: (path) => denoIo.stat(path),
    readText: (path, max) => denoIo.readText(path, max),
    open(path, options) {
      const handle = denoIo.open(path, options);
      const listed =
        ledger.query("SELECT 1 FROM import_state WHERE path = ? AND listed = 1", path).length > 0;
      if (!listed) return handle;
      return {
        read(into, position) {
          if (!held) return handle.read(into, position);
          Atomics.wait(pause, 0, 0, 2);
          return handle.read(into.subarray(0, Math.min(1, into.length)), position);
        },
        close: () => handle.close(),
      };
    },
    release() {
      held = false;
    },
  };
}

/** A Claude transcript of `prompts` typed prompts, each answered at length (about 20 KB in all). */
function transcript(sessionId: string, prompts: number, day: number): string {
  const cwd = "/home/user/website";
  const lines: string[] = [];
  for (let p = 0; p < prompts; p++) {
    const ts = `2026-11-${String(day).padStart(2, "0")}T10:${String(p).padStart(2, "0")}:00.000Z`;
    lines.push(claudePromptLine({ sessionId, text: `question ${p} of session ${day}`, ts, cwd }));
    for (let a = 0; a < 40 / prompts; a++) {
      lines.push(JSON.stringify({
        parentUuid: null,
        isSidechain: false,
        type: "assistant",
        message: {
          role: "assistant",
          content: [{ type: "text", text: `answer ${a}: ${"word ".repeat(80)}` }],
        },
        timestamp: ts,
        cwd,
        sessionId,
      }));
    }
  }
  return lines.join("\n") + "\n";
}

Deno.test("a first import at every width: rows listed say deriving and still being read, counted apart; a thin bar gives files, MB and time left; when it ends the bar goes and the rows take their numbers", async () => {
  await withPage(async (page, server) => {
    const { asmHome, env } = server.context;
    // six transcripts: four where something happened (two prompts), two with one prompt (hidden once read whole)
    const ids = [1, 2, 3, 4, 5, 6].map((n) => `aaaaaaaa-0000-4000-8000-00000000000${n}`);
    ids.forEach((sid, i) => {
      const path = join(env.HOME, ".claude/projects/-home-user-website", `${sid}.jsonl`);
      Deno.mkdirSync(join(path, ".."), { recursive: true });
      Deno.writeTextFileSync(path, transcript(sid, i < 4 ? 2 : 1, 20 + i));
    });
    const busy = asmIdOf("claude", ids[0]);
    // the server's own runner, asked to list first (six files are fewer than a first run's bound), with the reads
    // held back so the page can be looked at while it derives
    const io = heldIo(server.ledger);
    const runner = new ImportRunner({
      ledger: server.ledger,
      asmHome,
      env,
      log: () => {},
      harnessRoots: harnessRoots(asmHome),
      io,
      list: true,
      yieldEveryMs: 5,
    });
    server.context.state.imports = runner;
    const imported = runner.full();
    const phase = () => runner.status().progress?.phase;
    try {
      const listedRows = () =>
        Number(server.ledger.query("SELECT COUNT(*) AS n FROM sessions WHERE derive_state = 'listed'")[0].n);
      for (let t = 0; t < 200 && (listedRows() < ids.length || phase() !== "read"); t++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(listedRows(), ids.length, "the first phase listed every transcript");
      assert.equal(phase(), "read", "the full pass is reading");

      await page.setViewportSize({ width: 1920, height: 900 });
      await openWithKey(page, server, "/?poll_ms=300");
      await page.waitForFunction(() =>
        typeof (globalThis as unknown as { __asmRenders?: number }).__asmRenders === "number"
      );
      const bar = page.locator("[data-import-bar]");
      const cellText = (field: string, id: string) =>
        page.locator(`[data-${field}-for="${id}"]`).evaluate((el) => (el as HTMLElement).innerText.trim());
      for (const width of [1920, 1440, 1024, 768, 390]) {
        await page.setViewportSize({ width, height: 900 });
        assert.ok(await bar.isVisible(), `${width} px: the import's bar shows`);
        const text = await page.locator("[data-import-text]").innerText();
        assert.match(
          text,
          /^Reading transcripts whole: \d\/6 files, \d+\.\d\/\d+\.\d MB, time left (--|\d+ s|\d+ min|\d+ h( \d+ min)?)$/,
        );
        const barBox = await bar.boundingBox();
        assert.ok(barBox && barBox.height <= 48, `${width} px: the bar is thin (${barBox?.height} px)`);
        // the project cell shows at every width, Turns and Closeout from 1280 px
        const shown = width >= 1280 ? ["turns", "project", "closeout"] : ["project"];
        for (const field of shown) {
          assert.equal(await cellText(field, busy), "deriving", `${width} px: ${field}`);
        }
        assert.equal(
          await page.locator(".filters .reading-count").innerText(),
          "6 still being read",
          `${width} px: counted apart`,
        );
        assert.equal(
          await page.locator(`td.title[data-title-for="${busy}"]`).evaluate((td) =>
            getComputedStyle(td, "::before").content
          ),
          '"still being read"',
          `${width} px: the row says so before its title`,
        );
        const at = await page.evaluate(measureTable);
        console.log(`${width} px, importing: ${text}; page scroll ${at.pageScroll} px`);
        assert.equal(at.pageScroll, 0, `${width} px: no horizontal scroll (${at.sticking.join("; ")})`);
        assert.deepEqual(at.overflowing, [], `${width} px: no text overflows its cell`);
      }
      // it moves, about once a second
      const share = () =>
        page.locator("[data-import-bar] progress").evaluate((p) => (p as HTMLProgressElement).value);
      const before = await share();
      await page.waitForFunction(
        (was) => document.querySelector<HTMLProgressElement>("[data-import-bar] progress")!.value > was,
        before,
        { timeout: 5000 },
      );

      // the full pass patches rows in the ledger as it goes, and the open page's poll sees the list move: a row
      // derived behind it (written as a batch of the full pass writes it) takes its numbers without a reload
      const patched = asmIdOf("claude", ids[1]);
      assert.equal(await cellText("project", patched), "deriving");
      writeDerived(server.ledger, {
        sessions: [
          derivedRow("claude", ids[1], {
            turns: 2,
            project: "website",
            transcript_path: join(env.HOME, ".claude/projects/-home-user-website", `${ids[1]}.jsonl`),
          }),
        ],
        files: [],
        now: new Date().toISOString(),
      });
      await page.waitForFunction(
        (id) => document.querySelector(`[data-turns-for="${id}"]`)?.textContent === "2",
        patched,
        { timeout: 5000 },
      );
      console.log(`while the full pass reads: a row derived behind the page shows project "${await cellText(
        "project",
        patched,
      )}" without a reload; the other rows still say "${await cellText("project", busy)}"`);
      assert.equal(await cellText("project", patched), "website");
      assert.equal(await cellText("project", busy), "deriving");

      await page.setViewportSize({ width: 1440, height: 900 });
      io.release();
      await imported;
      await bar.waitFor({ state: "hidden", timeout: 5000 });
      await page.waitForFunction(
        (id) => document.querySelector(`[data-turns-for="${id}"]`)?.textContent === "2",
        busy,
      );
      assert.deepEqual(
        [await cellText("turns", busy), await cellText("project", busy)].map((t) => t === "deriving"),
        [false, false],
        "derived whole: no cell says deriving",
      );
      assert.equal(await page.locator(".reading-count").count(), 0, "none still being read");
      // the two where nothing happened left for the hidden rows, and the count above the table says so
      assert.equal(await page.locator(`[data-row-for="${asmIdOf("claude", ids[5])}"]`).count(), 0);
      assert.match(
        await page.locator("a.hidden-rows").innerText(),
        /^2 hidden \(2 nothing happened\): show$/,
      );
    } finally {
      io.release();
      await imported.catch(() => {});
    }
  });
});
