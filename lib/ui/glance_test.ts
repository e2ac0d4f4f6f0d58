import assert from "node:assert/strict";
import { glance, type GlanceSession, waitingCount } from "./glance.ts";

function s(asm_id: string, agent: string, activity: string | null, status = "live"): GlanceSession {
  return { asm_id, agent, title: `session ${asm_id}`, status, activity };
}

Deno.test("each agent shows its most urgent live session: waiting beats attention beats working beats idle", () => {
  const sessions = [
    s("1", "claude", "Idle"),
    s("2", "claude", "Waiting on you"),
    s("3", "claude", "Working"),
    s("4", "codex", "Working"),
    s("5", "codex", "Needs attention"),
    s("6", "gemini", "Waiting on you", "ended"),
  ];
  const g = glance(sessions, ["claude", "codex", "gemini"]);
  assert.deepEqual(g.map((x) => [x.agent, x.word, x.asm_id, x.live]), [
    ["claude", "Waiting on you", "2", 3],
    ["codex", "Needs attention", "5", 2],
    ["gemini", "", null, 0],
  ]);
  assert.equal(g[0].title, "session 2");
});

Deno.test("an unknown or missing activity word ranks below idle, and waiting sessions are counted", () => {
  const g = glance(
    [s("1", "claude", "Shell"), s("2", "claude", "Idle"), s("3", "claude", null, "starting")],
    ["claude"],
  );
  assert.equal(g[0].word, "Idle");
  assert.equal(
    waitingCount([s("1", "claude", "Waiting on you"), s("2", "codex", "Waiting on you", "lost")]),
    1,
  );
});

Deno.test(
  "the top bar ranks Waiting on you, Turn failed, Needs attention, Retrying, Working, Idle, then the rest",
  () => {
    const order = [
      "Waiting on you",
      "Turn failed",
      "Needs attention",
      "Retrying",
      "Working",
      "Idle",
      "Shell",
    ];
    // every pair: the more urgent word speaks for the agent, whichever session id comes first
    for (let i = 0; i < order.length; i++) {
      for (let j = i + 1; j < order.length; j++) {
        const g = glance([s("1", "codex", order[j]), s("2", "codex", order[i])], ["codex"]);
        assert.equal(g[0].word, order[i], `${order[i]} outranks ${order[j]}`);
      }
    }
  },
);

Deno.test("a failed turn waits on the person: the page title and favicon badge count it with Waiting on you", () => {
  assert.equal(
    waitingCount([
      s("1", "claude", "Waiting on you"),
      s("2", "codex", "Turn failed"),
      s("3", "gemini", "Retrying"),
      s("4", "gemini", "Turn failed", "ended"),
    ]),
    2,
  );
});
