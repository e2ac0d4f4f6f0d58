import assert from "node:assert/strict";
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { startServer } from "../../lib/server/mod.ts";
import { ROUTES } from "../mod.ts";

/** A testing-mode server over a fresh data folder with this config.toml; the page's HTML as a document. */
async function frontPage(config: string, prepare: (home: string) => void = () => {}) {
  const home = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-sprint-page-" }));
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  Deno.writeTextFileSync(join(home, "config.toml"), `mode = "testing"\n${config}`);
  prepare(home);
  const server = startServer({ asmHome: home, port: 0, services: [], env, mode: "testing", routes: ROUTES });
  try {
    const page = async (path: string) =>
      parseHTML(await (await fetch(`${server.url}${path}`)).text()).document;
    return { home, front: await page("/"), projects: await page("/projects") };
  } finally {
    await server.close();
  }
}

function tabs(document: Document): string[] {
  return [...document.querySelectorAll("nav a")].map((a) =>
    `${a.textContent}${a.getAttribute("aria-current") ? "*" : ""}`
  );
}

Deno.test("a new person's front page is the board: its tab, the file's path, the three headings and a card to copy", async () => {
  const { home, front, projects } = await frontPage("");
  try {
    const location = join(home, "board.testing.md");
    assert.deepEqual(tabs(front), ["Board*", "Sessions", "Projects", "Activity", "Doctor"]);
    assert.deepEqual(tabs(projects), ["Board", "Sessions", "Projects*", "Activity", "Doctor"]);
    // asm made the file with the three headings the first time it read the board
    assert.match(Deno.readTextFileSync(location), /## SPRINT PLAN \^asm-plan/);
    const empty = front.querySelector(".board-empty")!;
    assert.ok(empty, "the empty board's explanation");
    assert.equal(empty.querySelector("code")?.textContent, location);
    assert.match(empty.textContent!, /any editor/);
    assert.match(empty.textContent!, /Obsidian/);
    assert.match(empty.textContent!, /#claude/);
    assert.deepEqual(empty.querySelector("pre")?.textContent?.split("\n"), [
      "## SPRINT PLAN ^asm-plan",
      "- Fix the login redirect #webapp #claude",
      "  - The prompt: one or more lines, indented under the card.",
      "## IN PROCESS ^asm-process",
      "## COMPLETE ^asm-complete",
    ]);
    assert.deepEqual(
      [...front.querySelectorAll(".lane")].map((l) => l.querySelector("h2 span")?.textContent),
      ["SPRINT PLAN", "IN PROCESS", "COMPLETE"],
    );
    assert.equal(front.querySelector(".board-problem"), null);
    // the board comes first, the full session list underneath
    const main = front.querySelector("main")!.innerHTML;
    assert.equal(
      main.indexOf('data-island="SprintBoard"') < main.indexOf('data-island="SessionsTable"'),
      true,
    );
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a board asm cannot use shows its sentence where the lanes would be, and no example to copy", async () => {
  const { home, front } = await frontPage("", (h) => Deno.mkdirSync(join(h, "board.testing.md")));
  try {
    assert.deepEqual(tabs(front), ["Board*", "Sessions", "Projects", "Activity", "Doctor"]);
    assert.match(front.querySelector(".board-problem")?.textContent ?? "", /board\.testing\.md/);
    assert.equal(front.querySelector(".lanes"), null);
    assert.equal(front.querySelector(".board-empty"), null);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("with the board off, the front tab is Sessions and the page says why there is no board", async () => {
  const { home, front, projects } = await frontPage(`[board]\nbackend = "notion"\n`);
  try {
    assert.deepEqual(tabs(front), ["Sessions*", "Projects", "Activity", "Doctor"]);
    assert.deepEqual(tabs(projects), ["Sessions", "Projects*", "Activity", "Doctor"]);
    assert.match(
      front.querySelector(".board-problem")?.textContent ?? "",
      /the board is off: config.toml.s \[board\] backend "notion" is not one asm has/,
    );
    assert.equal(front.querySelector(".lanes"), null);
    assert.equal(front.querySelectorAll("table.sessions").length, 1);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
