import assert from "node:assert/strict";
import type { CardView, SprintPayload } from "../reconcile/view.ts";
import {
  boardExample,
  boardIsEmpty,
  boundSessions,
  cardButtonPath,
  cardButtons,
  cardStatus,
  liveKey,
  notOnPlanWhy,
  promptView,
  sameBoard,
} from "./board_view.ts";

const NO_REFUSALS = { start: null, resume: null, continue: null, done: null, end: null };

function card(overrides: Partial<CardView> = {}): CardView {
  return {
    id: "c-1",
    title: "Fix login",
    project: "webapp",
    agent: "claude",
    dropped: false,
    tags: ["webapp", "claude"],
    prompt: [],
    asm_id: null,
    status: null,
    unsure_reason: null,
    claimed: false,
    refusals: NO_REFUSALS,
    ...overrides,
  };
}

function payload(cards: CardView[] = []): SprintPayload {
  return {
    board: {
      backend: "markdown",
      location: "/home/me/.asm/board.md",
      mode: "live",
      read_at: "2026-11-29T22:00:00.000Z",
      problem: null,
      stale: false,
      lists: [
        { role: "plan", id: "p-1", cards },
        { role: "process", id: "p-2", cards: [] },
        { role: "complete", id: "p-3", cards: [] },
      ],
    },
    digest: "0123456789abcdef",
    not_on_plan: [],
    agents: [{ name: "codex", display: "Codex", tag: "codex" }],
  };
}

Deno.test("a card's status: none without a session, the table's words with one, UNSURE with its reason", () => {
  const rows: [Partial<CardView>, string | null, string][] = [
    [{ asm_id: null }, null, ""],
    [{ asm_id: "a", status: null }, "UNKNOWN", ""],
    [{ asm_id: "a", status: "live" }, "LIVE", ""],
    [{ asm_id: "a", status: "starting" }, "STARTING", ""],
    [{ asm_id: "a", status: "live", unsure_reason: "no run recorded" }, "UNSURE", "no run recorded"],
    [{ asm_id: "a", status: "killed" }, "ENDED", ""],
    [{ asm_id: "a", status: "lost" }, "ENDED", ""],
    // a reason left on an ended session is not a doubt about a running process
    [{ asm_id: "a", status: "ended", unsure_reason: "stale" }, "ENDED", ""],
  ];
  for (const [facts, word, unsure] of rows) {
    const status = cardStatus(card(facts));
    assert.equal(status?.word ?? null, word, JSON.stringify(facts));
    assert.equal(status?.unsure ?? "", unsure, JSON.stringify(facts));
  }
  assert.equal(cardStatus(card({ asm_id: "a", status: "live", unsure_reason: "why" }))?.tip, "why");
});

Deno.test("the five buttons come in order, each refusal its tooltip, and a button that acts says what it does", () => {
  const buttons = cardButtons(
    card({ refusals: { ...NO_REFUSALS, start: "this card is already in IN PROCESS" } }),
  );
  assert.deepEqual(buttons.map((b) => b.label), ["START", "RESUME", "CONTINUE WITH", "DONE", "END"]);
  assert.equal(buttons[0].refusal, "this card is already in IN PROCESS");
  assert.equal(buttons[0].tip, "this card is already in IN PROCESS");
  assert.equal(buttons[1].refusal, null);
  assert.match(buttons[1].tip, /same agent/);
  assert.equal(cardButtonPath("c-7f3a2b", "continue"), "/api/sprint/c-7f3a2b/continue");
});

Deno.test("a prompt folds to its first line with text; the rest keeps its blank lines but not trailing ones", () => {
  assert.deepEqual(promptView([]), { first: "", rest: [] });
  assert.deepEqual(promptView(["", "  "]), { first: "", rest: [] });
  assert.deepEqual(promptView(["one"]), { first: "one", rest: [] });
  assert.deepEqual(promptView(["", " one ", "two", "", "three", "", ""]), {
    first: "one",
    rest: ["two", "", "three"],
  });
});

Deno.test("every mint refusal reads as a sentence, and a session whose card is coming says so", () => {
  for (
    const reason of [
      "sub-agent",
      "automation thread",
      "headless",
      "not known to be interactive",
      "harness folder",
      "no typed prompt",
      "no title",
    ] as const
  ) {
    assert.notEqual(notOnPlanWhy(reason), reason);
  }
  assert.match(notOnPlanWhy(null), /next pass/);
  assert.match(notOnPlanWhy("no title"), /named/);
});

Deno.test("the empty board's example uses this board's list ids and an agent's tag", () => {
  assert.equal(boardIsEmpty(payload()), true);
  assert.equal(boardIsEmpty(payload([card()])), false);
  assert.equal(
    boardExample(payload()),
    [
      "## SPRINT PLAN ^p-1",
      "- Fix the login redirect #webapp #codex",
      "  - The prompt: one or more lines, indented under the card.",
      "## IN PROCESS ^p-2",
      "## COMPLETE ^p-3",
    ].join("\n"),
  );
});

Deno.test("a refetch that differs only in when it was read or its digest draws the same board", () => {
  const a = payload([card()]);
  const later = {
    ...a,
    digest: "ffffffffffffffff",
    board: { ...a.board, read_at: "2026-11-29T23:00:00.000Z" },
  };
  assert.equal(sameBoard(a, later), true);
  assert.equal(sameBoard(a, payload([card({ title: "Fix logout" })])), false);
  assert.equal(sameBoard(a, { ...a, board: { ...a.board, problem: "the board changed 4 times" } }), false);
});

Deno.test("live ids compare as a set, and the bound sessions are every card's", () => {
  assert.equal(liveKey(["b", "a"]), liveKey(["a", "b"]));
  assert.notEqual(liveKey(["a"]), liveKey(["a", "b"]));
  assert.deepEqual([...boundSessions(payload([card({ asm_id: "x" }), card({ id: "c-2" })]))], ["x"]);
});
