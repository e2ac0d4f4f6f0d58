import assert from "node:assert/strict";
import { BoardUnusable, type ListIds } from "./protocol.ts";
import { defaultBoard, joinLines, parseBoard, splitLines } from "./markdown_parse.ts";

const IDS: ListIds = { plan: "asm-plan", process: "asm-process", complete: "asm-complete" };

function cards(text: string) {
  const board = parseBoard(text, IDS, "board.md");
  return {
    plan: board.lists.plan.cards.map(({ id, name, children }) => ({ id, name, children })),
    process: board.lists.process.cards.map(({ id, name, children }) => ({ id, name, children })),
    complete: board.lists.complete.cards.map(({ id, name, children }) => ({ id, name, children })),
  };
}

Deno.test("the README's example reads as its three lists", () => {
  const text = [
    "## SPRINT PLAN ^asm-plan",
    "- Fix the login redirect #webapp #claude ^c-7f3a2b",
    "  - The prompt, one or more lines, as children of the card.",
    "- A card typed by hand, no id yet #webapp",
    "## IN PROCESS ^asm-process",
    "## COMPLETE ^asm-complete",
    "",
  ].join("\n");
  assert.deepEqual(cards(text), {
    plan: [
      {
        id: "c-7f3a2b",
        name: "Fix the login redirect #webapp #claude",
        children: ["The prompt, one or more lines, as children of the card."],
      },
      { id: null, name: "A card typed by hand, no id yet #webapp", children: [] },
    ],
    process: [],
    complete: [],
  });
});

Deno.test("lines keep their own endings, and put back together they are the file", () => {
  for (const text of ["", "a", "a\n", "a\r\nb\nc", "\n\n", "x\r\n\r\n", "a\rb\n"]) {
    assert.equal(joinLines(splitLines(text)), text);
  }
  assert.deepEqual(splitLines("a\r\nb"), [{ text: "a", eol: "\r\n" }, { text: "b", eol: "" }]);
});

Deno.test("a card's children are its indented lines: one level and a bullet stripped, the rest kept", () => {
  const text = [
    "## SPRINT PLAN ^asm-plan",
    "- Card one ^c-1",
    "\t- first line",
    "\t\t- a nested note",
    "",
    "\tcontinued without a bullet",
    "\t-",
    "- Card two   ^c-2   ",
    "    - four spaces",
    "  - less indented",
    "",
    "Prose after the cards.",
    "  indented prose is not a child: prose came between",
    "## IN PROCESS ^asm-process",
    "## COMPLETE ^asm-complete",
  ].join("\n");
  assert.deepEqual(cards(text).plan, [
    {
      id: "c-1",
      name: "Card one",
      children: ["first line", "\t- a nested note", "", "continued without a bullet", ""],
    },
    { id: "c-2", name: "Card two", children: ["four spaces", "less indented"] },
  ]);
});

Deno.test("only items under a list heading are cards: other headings, fences, front matter and breaks are not", () => {
  const text = [
    "---",
    "title: my board",
    "## SPRINT PLAN ^asm-plan",
    "---",
    "# Board",
    "- not a card: under a level-1 heading",
    "## SPRINT PLAN ^asm-plan",
    "- Card ^c-1",
    "### A stray heading",
    "- not a card: under the stray heading",
    "## IN PROCESS ^asm-process",
    "```md",
    "## COMPLETE ^asm-complete",
    "- not a card: inside a fence",
    "```",
    "- - -",
    "-",
    "- ",
    "* Star item ^c-2",
    "1. numbered, not a card",
    "## COMPLETE ^asm-complete ##",
    "- Done card ^c-3",
  ].join("\n");
  assert.deepEqual(cards(text), {
    plan: [{ id: "c-1", name: "Card", children: [] }],
    process: [{ id: "c-2", name: "Star item", children: [] }],
    complete: [{ id: "c-3", name: "Done card", children: [] }],
  });
});

Deno.test("an id is a block id at the end of the line after a blank; anything else stays in the name", () => {
  const text = [
    "## SPRINT PLAN ^asm-plan",
    "- Costs 2^10 bytes",
    "- Has ^not-last words ^c-9",
    "- ^c-only",
    "- Tab before id\t^c-tab",
    "- Bad id chars ^c_x",
    "## IN PROCESS ^asm-process",
    "## COMPLETE ^asm-complete",
  ].join("\n");
  assert.deepEqual(cards(text).plan.map((c) => [c.id, c.name]), [
    [null, "Costs 2^10 bytes"],
    ["c-9", "Has ^not-last words"],
    ["c-only", ""],
    ["c-tab", "Tab before id"],
    [null, "Bad id chars ^c_x"],
  ]);
});

Deno.test("a missing list and a duplicated id are unusable, with a sentence naming them and the lines", () => {
  const missing = "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n### COMPLETE ^asm-complete\n";
  assert.throws(
    () => parseBoard(missing, IDS, "/x/board.md"),
    (err: Error) =>
      err instanceof BoardUnusable &&
      /\/x\/board\.md has no list with the id \^asm-complete/.test(err.message),
  );
  const twice = defaultBoard(IDS) + "## Notes\n## SPRINT PLAN ^asm-plan\n";
  assert.throws(
    () => parseBoard(twice, IDS, "board.md"),
    (err: Error) => err instanceof BoardUnusable && /\^asm-plan is on line 1 and on line 5/.test(err.message),
  );
  const card =
    "## SPRINT PLAN ^asm-plan\n- a ^c-1\n## IN PROCESS ^asm-process\n- b ^c-1\n## COMPLETE ^asm-complete\n";
  assert.throws(
    () => parseBoard(card, IDS, "board.md"),
    (err: Error) =>
      err instanceof BoardUnusable && /the id \^c-1 is on line 2 and on line 4/.test(err.message),
  );
  assert.throws(() => parseBoard("", IDS, "board.md"), /has no list with the id \^asm-plan/);
});

Deno.test("a byte order mark, CRLF and a 100 KB line read like any other file", () => {
  const long = "x".repeat(50_000) + " ".repeat(50_000) + "y #webapp";
  const text = `\uFEFF## SPRINT PLAN ^asm-plan\r\n- ${long} ^c-long\r\n## IN PROCESS ^asm-process\r\n` +
    "## COMPLETE ^asm-complete\r\n";
  const started = performance.now();
  const board = parseBoard(text, IDS, "board.md");
  assert.ok(performance.now() - started < 500, "a long line is read in linear time");
  assert.equal(board.eol, "\r\n");
  assert.deepEqual(board.lists.plan.cards.map((c) => [c.id, c.name]), [["c-long", long]]);
});
