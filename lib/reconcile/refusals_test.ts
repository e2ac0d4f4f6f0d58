import assert from "node:assert/strict";
import { type CardFacts, type Refusals, refusalsOf } from "./refusals.ts";

const BASE: CardFacts = {
  list: "plan",
  dropped: false,
  asmId: null,
  status: null,
  unsureReason: null,
  claimed: false,
  ending: false,
  shared: null,
};

const NEVER = "this card never had a session; START it";
const BUSY = /already acting on this card/;

/** One row per situation: the card, then which buttons act (null) and which refuse (a pattern). */
const ROWS: [string, Partial<CardFacts>, Record<keyof Refusals, RegExp | null>][] = [
  ["a new card in the plan", {}, {
    start: null,
    resume: new RegExp(NEVER),
    continue: new RegExp(NEVER),
    done: null,
    end: /no session to end/,
  }],
  ["a card in IN PROCESS whose session runs", { list: "process", asmId: "s", status: "live" }, {
    start: /^this card is already in IN PROCESS$/,
    resume: /still running; jump to its window/,
    continue: /still running; END it before another agent/,
    done: /^its session is still open; END it first$/,
    end: null,
  }],
  ["a dropped card whose session ended (offer resume, not start)", {
    dropped: true,
    asmId: "s",
    status: "lost",
  }, {
    start: /already has a session: RESUME it .* or CONTINUE WITH/,
    resume: null,
    continue: null,
    done: null,
    end: /not running \(it is lost\)/,
  }],
  ["a card filed by END, its claim still held (the seconds right after)", {
    list: "complete",
    asmId: "s",
    status: "killed",
    claimed: true,
    ending: true,
  }, {
    start: /already has a session/,
    resume: BUSY,
    continue: BUSY,
    done: /still closing after END/,
    end: /not running \(it is killed\)/,
  }],
  ["a card DONE took off its session", { list: "complete" }, {
    start: null,
    resume: new RegExp(NEVER),
    continue: new RegExp(NEVER),
    done: /done already/,
    end: /no session to end/,
  }],
  ["a card some button is acting on", { claimed: true }, {
    start: BUSY,
    resume: new RegExp(NEVER),
    continue: new RegExp(NEVER),
    done: BUSY,
    end: /no session to end/,
  }],
  ["a running session on a shared binary", {
    list: "process",
    asmId: "s",
    status: "live",
    shared: "its program is shared",
  }, {
    start: /already in IN PROCESS/,
    resume: /still running/,
    continue: /still running/,
    done: /still open/,
    end: /^its program is shared$/,
  }],
  ["a live session asm cannot see: END acts (it records the session ended without a signal)", {
    list: "process",
    asmId: "s",
    status: "live",
    unsureReason: "no pid",
  }, {
    start: /already in IN PROCESS/,
    resume: /still running/,
    continue: /still running/,
    done: /still open/,
    end: null,
  }],
  ["a starting session asm cannot see yet", {
    list: "process",
    asmId: "s",
    status: "starting",
    unsureReason: "no pid",
  }, {
    start: /already in IN PROCESS/,
    resume: /still running/,
    continue: /still running/,
    done: /still open/,
    end: /still starting and asm cannot see its process yet/,
  }],
];

Deno.test("each button acts or refuses with its sentence, one row per situation", () => {
  for (const [situation, facts, want] of ROWS) {
    const got = refusalsOf({ ...BASE, ...facts });
    for (const button of Object.keys(want) as (keyof Refusals)[]) {
      const pattern = want[button];
      if (pattern === null) assert.equal(got[button], null, `${situation}: ${button}`);
      else assert.match(got[button] ?? "(acts)", pattern, `${situation}: ${button}`);
    }
  }
});
