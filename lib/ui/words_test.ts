import assert from "node:assert/strict";
import {
  activityText,
  activityTone,
  ageText,
  closeoutText,
  contextText,
  contextTip,
  NEEDS_ME_FIRST,
  projectText,
  statusTone,
  statusWord,
  timeLeftText,
  turnsText,
} from "./words.ts";

Deno.test("killed and lost both read ENDED, and the tooltip keeps the difference", () => {
  assert.equal(statusWord("killed", null).word, "ENDED");
  assert.equal(statusWord("lost", null).word, "ENDED");
  assert.notEqual(statusWord("killed", null).tip, statusWord("lost", null).tip);
  assert.match(statusWord("ended", "prompt_input_exit").tip, /prompt_input_exit/);
  assert.equal(statusWord("live", null).word, "LIVE");
});

Deno.test("a context of null reads no reading, and 0 reads 0", () => {
  assert.equal(contextText(null), "no reading");
  assert.equal(contextText(undefined), "no reading");
  assert.equal(contextText(0), "0");
  assert.equal(contextText(5754), "6k");
  assert.equal(contextText(1_250_000), "1.3M");
});

Deno.test("activity carries its reason, and ages read in the largest whole unit", () => {
  assert.equal(activityText("Waiting on you", "permission"), "Waiting on you: permission");
  assert.equal(activityText(null, null), "");
  const now = Date.parse("2026-11-29T22:00:00.000Z");
  assert.equal(ageText("2026-11-29T21:59:30.000Z", now), "30s ago");
  assert.equal(ageText("2026-11-29T21:00:00.000Z", now), "1 h ago");
  assert.equal(ageText(null, now), "");
});

Deno.test("a live session whose process asm cannot prove reads UNSURE with the reason, never LIVE", () => {
  assert.deepEqual(statusWord("live", null, "no process is known"), {
    word: "UNSURE",
    tip: "no process is known",
  });
  assert.equal(statusWord("starting", null, "no process is known").word, "UNSURE");
  assert.equal(statusWord("live", null, null).word, "LIVE");
  // a finished session is what it is: a stale doubt does not change its word
  assert.equal(statusWord("lost", "process gone", "no process is known").word, "ENDED");
});

Deno.test("every state has one tone, whatever the agent: the words asm shows decide it", () => {
  assert.deepEqual(
    [
      "Waiting on you",
      "Turn failed",
      "Needs attention",
      "Retrying",
      "Working",
      "Starting",
      "Idle",
      "Shell",
      "Running",
      null,
    ].map(activityTone),
    ["waiting", "failed", "attention", "retrying", "working", "starting", "idle", "shell", "live", "none"],
  );
  assert.deepEqual(["LIVE", "UNSURE", "STARTING", "ENDED"].map(statusTone), [
    "live",
    "unsure",
    "starting",
    "ended",
  ]);
  assert.deepEqual(
    NEEDS_ME_FIRST.slice(0, 3),
    ["waiting", "failed", "attention"],
    "what waits on the person comes first",
  );
});

Deno.test("context reads as a share of the model's window, raw tokens in the tip; no window, no guessed share", () => {
  assert.equal(contextText(84_000, 200_000), "42%");
  assert.equal(contextTip(84_000, 200_000), "84k of 200k tokens in the model's window");
  assert.equal(contextText(84_000, null), "84k");
  assert.equal(contextTip(84_000, null), "84k tokens; the model's window is not known");
  assert.equal(contextText(null, 200_000), "no reading");
});

Deno.test("a derived cell being derived says deriving, whatever its column holds; derived, its value or a blank", () => {
  const cells = (
    turns: number | null,
    project: string | null,
    closeout: string | null,
    deriving: boolean,
  ) => [
    turnsText(turns, deriving),
    projectText(project, deriving),
    closeoutText(closeout, deriving),
  ];
  assert.deepEqual(cells(7, "web", "closed", true), ["deriving", "deriving", "deriving"]);
  assert.deepEqual(cells(null, null, null, true), ["deriving", "deriving", "deriving"]);
  assert.deepEqual(cells(7, "web", "closed", false), ["7", "web", "closed out"]);
  assert.deepEqual(cells(0, null, "open", false), ["0", "", "open"]);
  assert.deepEqual(cells(null, null, null, false), ["", "", ""]);
});

Deno.test("time left reads in the largest whole unit, rounded up, and -- when not known", () => {
  assert.deepEqual(
    [null, undefined, Infinity, 0, 0.2, 59, 60, 61, 3599, 3600, 3661, 7200].map((s) => timeLeftText(s)),
    ["--", "--", "--", "0 s", "1 s", "59 s", "1 min", "2 min", "1 h", "1 h", "1 h 2 min", "2 h"],
  );
});
