import assert from "node:assert/strict";
import type { LiveRow } from "../ledger/mod.ts";
import { livePayload, LiveRevision } from "./live_payload.ts";
import { activityWord } from "./words.ts";

function row(overrides: Partial<LiveRow> = {}): LiveRow {
  return {
    asm_id: "a",
    agent: "claude",
    agent_session_id: "s",
    status: "live",
    name: null,
    cwd: "/p",
    activity: "working",
    activity_reason: null,
    activity_at: "2026-11-29T22:00:00.000Z",
    context_tokens: null,
    context_window: null,
    hidden_reason: null,
    unsure_reason: null,
    turns: 3,
    last_seen: "2026-11-29T22:00:00.000Z",
    project: "p",
    closeout: null,
    deriving: false,
    ...overrides,
  };
}

Deno.test("the revision moves when a displayed fact changes and stays on a quiet tick", () => {
  const revision = new LiveRevision();
  const now = "2026-11-29T22:00:05.000Z";
  const first = livePayload([row()], now, revision);
  assert.equal(first.revision, 1);
  assert.equal(
    livePayload([row()], "2026-11-29T22:00:10.000Z", revision).revision,
    1,
    "the clock is not a fact",
  );
  const rows: [string, LiveRow[]][] = [
    ["an activity word", [row({ activity: "idle" })]],
    ["a reason", [row({ activity: "idle", activity_reason: "x" })]],
    ["the freshness", [row({ activity: "idle", activity_reason: "x", activity_at: now })]],
    ["context tokens", [
      row({ activity: "idle", activity_reason: "x", activity_at: now, context_tokens: 9 }),
    ]],
    ["the live set", []],
  ];
  let expected = 1;
  for (const [fact, rowsNow] of rows) {
    expected++;
    assert.equal(livePayload(rowsNow, now, revision).revision, expected, fact);
  }
});

Deno.test("stored activities read as the page's words; an unknown one as the neutral word; null stays null", () => {
  const rows: [string | null, string | null][] = [
    ["working", "Working"],
    ["waiting", "Waiting on you"],
    ["idle", "Idle"],
    ["shell", "Shell"],
    ["starting", "Starting"],
    ["stalled", "Needs attention"],
    ["unknown", "Running"],
    ["from-a-newer-asm", "Running"],
    [null, null],
  ];
  for (const [stored, word] of rows) assert.equal(activityWord(stored), word, String(stored));
  assert.deepEqual(
    livePayload([row({ activity: null })], "x", new LiveRevision()).sessions[0].activity_word,
    null,
  );
});

Deno.test("a pending launch appearing, changing its waiting reason or leaving moves the revision", () => {
  const counter = new LiveRevision();
  const launch = {
    token: "asmlt_abc",
    agent: "claude",
    folder: "/home/user/web",
    name: null,
    waiting_reason: null,
    requested_at: "2026-11-29T22:00:00.000Z",
  };
  const r0 = livePayload([], "2026-11-29T22:00:01.000Z", counter).revision;
  const r1 = livePayload([], "2026-11-29T22:00:02.000Z", counter, [launch]).revision;
  const r1again = livePayload([], "2026-11-29T22:00:03.000Z", counter, [launch]).revision;
  const r2 = livePayload([], "2026-11-29T22:00:04.000Z", counter, [{
    ...launch,
    waiting_reason: "folder trust",
  }]);
  assert.equal(r1 > r0, true);
  assert.equal(r1again, r1);
  assert.equal(r2.revision > r1, true);
  assert.equal(r2.launches[0].waiting_reason, "folder trust");
});

Deno.test("the board's digest rides along and moves the revision only when it changes", () => {
  const counter = new LiveRevision();
  const r0 = livePayload([], "2026-11-29T22:00:01.000Z", counter, [], "d1");
  assert.equal(r0.board_digest, "d1");
  assert.equal(livePayload([], "2026-11-29T22:00:02.000Z", counter, [], "d1").revision, r0.revision);
  assert.equal(livePayload([], "2026-11-29T22:00:03.000Z", counter, [], "d2").revision, r0.revision + 1);
  assert.equal(livePayload([], "2026-11-29T22:00:04.000Z", counter).board_digest, null, "no board: null");
});

Deno.test("the list's cells of a live session and the list digest move the revision", () => {
  const revision = new LiveRevision();
  const now = "2026-11-29T22:00:05.000Z";
  const first = livePayload([row()], now, revision, [], null, "3|x").revision;
  assert.equal(livePayload([row()], now, revision, [], null, "3|x").revision, first, "a quiet tick");
  assert.equal(
    livePayload([row({ turns: 4 })], now, revision, [], null, "3|x").revision,
    first + 1,
    "a turn",
  );
  assert.equal(
    livePayload([row({ turns: 4 })], now, revision, [], null, "4|y").revision,
    first + 2,
    "a row added",
  );
  const payload = livePayload([row({ closeout: "open" })], now, revision, [], null, "4|y");
  assert.deepEqual(
    [
      payload.sessions[0].turns,
      payload.sessions[0].project,
      payload.sessions[0].closeout,
      payload.list_digest,
    ],
    [3, "p", "open", "4|y"],
  );
  // derived whole after the first phase listed it: the cells take their numbers, and the page must hear of it
  const listed = livePayload(
    [row({ turns: null, project: null, deriving: true })],
    now,
    revision,
    [],
    null,
    "4|y",
  );
  assert.equal(listed.sessions[0].deriving, true);
  const derived = livePayload([row({ turns: null, project: null })], now, revision, [], null, "4|y");
  assert.equal(derived.revision, listed.revision + 1, "the end of deriving alone moves the revision");
});
