import assert from "node:assert/strict";
import type { Card, ListRole } from "../board/protocol.ts";
import { plainTitle, plan, titleOnCard } from "./plan.ts";
import type { Action, Link, LiveSessionFacts, PlanInput, SessionStatusFacts } from "./types.ts";

const AGENTS = [{ name: "claude", tag: "claude" }, { name: "codex", tag: "codex" }, {
  name: "gemini",
  tag: "gemini",
}];

/** A driven, mintable, provable claude session titled "Fix login" in project webapp. */
function session(asmId: string, over: Partial<LiveSessionFacts> = {}): LiveSessionFacts {
  return {
    asmId,
    agent: "claude",
    title: "Fix login",
    project: "webapp",
    mintable: true,
    unsure: false,
    ...over,
  };
}

function link(cardId: string, asmId: string | null, over: Partial<Link> = {}): Link {
  return {
    cardId,
    asmId,
    origin: "create",
    syncedTitle: null,
    dropped: false,
    completed: false,
    filing: false,
    ...over,
  };
}

interface World {
  live?: LiveSessionFacts[];
  statuses?: Record<string, SessionStatusFacts["status"]>;
  /** cards as `[id, name]` per list */
  board?: Partial<Record<ListRole, [string | null, string][]>>;
  links?: Link[];
  claimed?: string[];
  ending?: string[];
}

function input(w: World): PlanInput {
  const cards = (list: ListRole): Card[] =>
    (w.board?.[list] ?? []).map(([id, name]) => ({ id, name, children: ["the prompt"] }));
  const live = new Map((w.live ?? []).map((s) => [s.asmId, s]));
  const statuses = new Map<string, SessionStatusFacts["status"]>(
    (w.live ?? []).map((s) => [s.asmId, "live"] as const),
  );
  for (const [id, status] of Object.entries(w.statuses ?? {})) statuses.set(id, status);
  return {
    live,
    statuses,
    board: { plan: cards("plan"), process: cards("process"), complete: cards("complete") },
    links: w.links ?? [],
    claims: { claimed: new Set(w.claimed ?? []), ending: new Set(w.ending ?? []) },
    agents: AGENTS,
  };
}

const table: { rule: string; situation: string; world: World; want: Action[] }[] = [
  // rule 1: create
  {
    rule: "1",
    situation: "a driven, titled session with no card gets one in IN PROCESS: title, project tag, agent tag",
    world: { live: [session("s1")] },
    want: [{ kind: "create", asmId: "s1", name: "Fix login #webapp #claude" }],
  },
  {
    rule: "1",
    situation: "an unnamed session gets no card (the page shows it as not on the plan)",
    world: { live: [session("s1", { title: null }), session("s2", { title: " \n " })] },
    want: [],
  },
  {
    rule: "1",
    situation: "a session the mint rule refuses gets no card",
    world: { live: [session("s1", { mintable: false })] },
    want: [],
  },
  {
    rule: "1",
    situation: "a session asm cannot prove (unsure) gets no card",
    world: { live: [session("s1", { unsure: true })] },
    want: [],
  },
  {
    rule: "1",
    situation: "a session whose status is already finished (a stale live set) gets no card",
    world: { live: [session("s1")], statuses: { s1: "killed" } },
    want: [],
  },
  {
    rule: "1",
    situation: "a session whose card was deleted from the board by hand is not given another",
    world: { live: [session("s1")], links: [link("gone", "s1")] },
    want: [],
  },
  {
    rule: "1",
    situation: "no project: no project tag; an agent the board does not know: no agent tag",
    world: { live: [session("s1", { project: null }), session("s2", { agent: "aider", title: "Other" })] },
    want: [
      { kind: "create", asmId: "s1", name: "Fix login #claude" },
      { kind: "create", asmId: "s2", name: "Other #webapp" },
    ],
  },
  {
    rule: "1",
    situation: "a title on several lines becomes one; a tag-like last word is escaped so it stays the title",
    world: {
      live: [session("s1", { title: "Fix\n  the login\t#webapp", project: "My App", agent: "codex" })],
    },
    want: [{ kind: "create", asmId: "s1", name: "Fix the login \\#webapp #my-app #codex" }],
  },
  // rule 2: rename, never against a hand edit
  {
    rule: "2",
    situation:
      "the session's title moved and the card's did not: the card follows (project and #dropped kept)",
    world: {
      live: [session("s1", { title: "Fix the login redirect" })],
      board: { process: [["c1", "Fix login #webapp #claude #dropped"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [{
      kind: "rename",
      cardId: "c1",
      asmId: "s1",
      name: "Fix the login redirect #webapp #claude #dropped",
      syncedTitle: "Fix the login redirect",
    }],
  },
  {
    rule: "2",
    situation: "the card was retitled by hand and the session's title did not move: the card keeps its title",
    world: {
      live: [session("s1")],
      board: { process: [["c1", "My own words #webapp #claude"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [],
  },
  {
    rule: "2",
    situation: "both moved at once: the hand edit wins",
    world: {
      live: [session("s1", { title: "The agent's new title" })],
      board: { process: [["c1", "My own words #webapp #claude"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [],
  },
  {
    rule: "2",
    situation: "never in sync yet (a START's own card title): both count as moved, the card keeps its title",
    world: {
      live: [session("s1", { title: "the whole prompt, as the first message" })],
      board: { process: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { origin: "start" })],
    },
    want: [],
  },
  {
    rule: "2",
    situation: "card and session agree on a title the link does not hold: the link learns it (store only)",
    world: {
      live: [session("s1")],
      board: { process: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { syncedTitle: "Old" })],
    },
    want: [{ kind: "synced", cardId: "c1", title: "Fix login" }],
  },
  {
    rule: "2",
    situation: "card, session and link agree: nothing",
    world: {
      live: [session("s1")],
      board: { process: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [],
  },
  {
    rule: "2",
    situation: "the wrong agent tag is always corrected, in place; project and #dropped kept",
    world: {
      live: [session("s1")],
      board: { process: [["c1", "Fix login #webapp #codex #dropped"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [{
      kind: "rename",
      cardId: "c1",
      asmId: "s1",
      name: "Fix login #webapp #claude #dropped",
      syncedTitle: "Fix login",
    }],
  },
  {
    rule: "2",
    situation: "a missing agent tag is added; two agent tags become the right one",
    world: {
      live: [session("s1"), session("s2", { agent: "gemini" })],
      board: { process: [["c1", "Fix login #webapp"], ["c2", "Fix login #claude #gemini"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" }), link("c2", "s2", { syncedTitle: "Fix login" })],
    },
    want: [
      {
        kind: "rename",
        cardId: "c1",
        asmId: "s1",
        name: "Fix login #webapp #claude",
        syncedTitle: "Fix login",
      },
      { kind: "rename", cardId: "c2", asmId: "s2", name: "Fix login #gemini", syncedTitle: "Fix login" },
    ],
  },
  {
    rule: "2",
    situation: "a hand-edited title with a wrong agent tag: the tag is fixed, the title kept",
    world: {
      live: [session("s1")],
      board: { process: [["c1", "My own words #webapp #codex"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [{
      kind: "rename",
      cardId: "c1",
      asmId: "s1",
      name: "My own words #webapp #claude",
      syncedTitle: "Fix login",
    }],
  },
  {
    rule: "2",
    situation: "the session moved and the agent tag is wrong: one rename does both",
    world: {
      live: [session("s1", { title: "New title" })],
      board: { process: [["c1", "Fix login  #webapp #codex"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [{
      kind: "rename",
      cardId: "c1",
      asmId: "s1",
      name: "New title  #webapp #claude",
      syncedTitle: "New title",
    }],
  },
  {
    rule: "2",
    situation: "a session with no title yet: only the agent tag counts",
    world: {
      live: [session("s1", { title: null })],
      board: { process: [["c1", "Fix login #webapp"], ["c2", "Fine #claude"]] },
      links: [link("c1", "s1"), link("c2", "s1")],
    },
    want: [{
      kind: "rename",
      cardId: "c1",
      asmId: "s1",
      name: "Fix login #webapp #claude",
      syncedTitle: "Fix login",
    }],
  },
  {
    rule: "2",
    situation: "a bound card moved back to the plan by hand is not moved, only renamed",
    world: {
      live: [session("s1", { title: "New title" })],
      board: { plan: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [{
      kind: "rename",
      cardId: "c1",
      asmId: "s1",
      name: "New title #webapp #claude",
      syncedTitle: "New title",
    }],
  },
  {
    rule: "2",
    situation: "a card whose bound session is present is kept even where the mint rule would not create it",
    world: {
      live: [session("s1", { mintable: false, title: null })],
      board: { process: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [],
  },
  // rule 3: drop, binding stays
  {
    rule: "3",
    situation: "a card in IN PROCESS whose bound session is gone is dropped",
    world: { board: { process: [["c1", "Fix login #webapp #claude"]] }, links: [link("c1", "s1")] },
    want: [{ kind: "drop", cardId: "c1" }],
  },
  {
    rule: "3",
    situation: "a bound session whose status is finished is not driven, even in a stale live set",
    world: {
      live: [session("s1")],
      statuses: { s1: "lost" },
      board: { process: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1")],
    },
    want: [{ kind: "drop", cardId: "c1" }],
  },
  {
    rule: "3",
    situation: "no drop while an END owns the card",
    world: { board: { process: [["c1", "Fix login #claude"]] }, links: [link("c1", "s1")], ending: ["c1"] },
    want: [],
  },
  {
    rule: "3",
    situation: "a card bound to an unsure session is left alone entirely (no drop, no rename)",
    world: {
      live: [session("s1", { unsure: true, title: "Other title", agent: "codex" })],
      board: { process: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { syncedTitle: "Fix login" })],
    },
    want: [],
  },
  // rule 4: adopt or drop an unbound card in IN PROCESS
  {
    rule: "4",
    situation: "exactly one free driven session plainly matches (case and spacing aside): adopt",
    world: { live: [session("s1")], board: { process: [["c1", "fix   LOGIN #webapp #claude"]] } },
    want: [{ kind: "adopt", cardId: "c1", asmId: "s1" }],
  },
  {
    rule: "4",
    situation: "a card with no agent tag does not disagree: adopt",
    world: { live: [session("s1")], board: { process: [["c1", "Fix login"]] }, links: [link("c1", null)] },
    want: [{ kind: "adopt", cardId: "c1", asmId: "s1" }],
  },
  {
    rule: "4",
    situation: "two sessions match: drop (and each session gets its own card)",
    world: { live: [session("s1"), session("s2")], board: { process: [["c1", "Fix login #claude"]] } },
    want: [
      { kind: "drop", cardId: "c1" },
      { kind: "create", asmId: "s1", name: "Fix login #webapp #claude" },
      { kind: "create", asmId: "s2", name: "Fix login #webapp #claude" },
    ],
  },
  {
    rule: "4",
    situation: "no session matches: drop",
    world: { live: [session("s1", { title: "Other" })], board: { process: [["c1", "Fix login #claude"]] } },
    want: [{ kind: "drop", cardId: "c1" }, { kind: "create", asmId: "s1", name: "Other #webapp #claude" }],
  },
  {
    rule: "4",
    situation: "the agent tags disagree: drop (and the session gets its own card)",
    world: { live: [session("s1")], board: { process: [["c1", "Fix login #codex"]] } },
    want: [{ kind: "drop", cardId: "c1" }, {
      kind: "create",
      asmId: "s1",
      name: "Fix login #webapp #claude",
    }],
  },
  {
    rule: "4",
    situation: "a session the mint rule refuses, or an unsure one, is no plain match: drop",
    world: {
      live: [session("s1", { mintable: false }), session("s2", { unsure: true })],
      board: { process: [["c1", "Fix login #claude"]] },
    },
    want: [{ kind: "drop", cardId: "c1" }],
  },
  {
    rule: "4",
    situation: "a look-alike title never adopts away a real binding (pass one before pass two)",
    world: {
      live: [session("s1")],
      board: { process: [["look", "Fix login #webapp #claude"], ["real", "Fix login #webapp #claude"]] },
      links: [link("real", "s1", { syncedTitle: "Fix login" })],
    },
    want: [{ kind: "drop", cardId: "look" }],
  },
  {
    rule: "4",
    situation: "two look-alike cards, one session: the first adopts, the second drops",
    world: { live: [session("s1")], board: { process: [["a", "Fix login"], ["b", "Fix login"]] } },
    want: [{ kind: "adopt", cardId: "a", asmId: "s1" }, { kind: "drop", cardId: "b" }],
  },
  {
    rule: "4",
    situation: "unbound cards outside IN PROCESS are left alone",
    world: { board: { plan: [["p", "Later #webapp"]], complete: [["d", "Done #dropped"]] } },
    want: [],
  },
  // rule 5: restore
  {
    rule: "5",
    situation: "a #dropped card whose bound session is driven again is restored",
    world: {
      live: [session("s1")],
      board: { plan: [["c1", "Fix login #webapp #claude #dropped"]] },
      links: [link("c1", "s1", { dropped: true })],
    },
    want: [{ kind: "restore", cardId: "c1", asmId: "s1" }],
  },
  {
    rule: "5",
    situation: "a restore cut short after its untag (the link still says dropped) is restored again",
    world: {
      live: [session("s1")],
      board: { plan: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { dropped: true })],
    },
    want: [{ kind: "restore", cardId: "c1", asmId: "s1" }],
  },
  {
    rule: "5",
    situation: "a completed card whose session was resumed is restored",
    world: {
      live: [session("s1")],
      board: { complete: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { completed: true })],
    },
    want: [{ kind: "restore", cardId: "c1", asmId: "s1" }],
  },
  ...(["ended", "lost", "killed"] as const).map((status) => ({
    rule: "5",
    situation:
      `a completed card of a ${status} session still in the live set is never restored (no claims: a restart)`,
    world: {
      live: [session("s1")],
      statuses: { s1: status },
      board: { complete: [["c1", "Fix login #webapp #claude"]] as [string, string][] },
      links: [link("c1", "s1", { completed: true })],
    },
    want: [],
  })),
  {
    rule: "5",
    situation: "a #dropped or completed card whose session is not driven stays where it is",
    world: {
      board: { plan: [["c1", "Fix login #dropped"]], complete: [["c2", "Done"]] },
      links: [link("c1", "s1", { dropped: true }), link("c2", "s2", { completed: true })],
      statuses: { s1: "lost", s2: "killed" },
    },
    want: [],
  },
  {
    rule: "5",
    situation: "a #dropped card whose session is unsure is left alone",
    world: {
      live: [session("s1", { unsure: true })],
      board: { plan: [["c1", "Fix login #dropped"]] },
      links: [link("c1", "s1", { dropped: true })],
    },
    want: [],
  },
  // claims
  {
    rule: "claims",
    situation: "a claimed card is skipped in pass one (no drop, no restore, no rename)",
    world: {
      live: [session("s1", { title: "New" }), session("s2")],
      board: {
        process: [["gone", "Fix login #claude"], ["ren", "Fix login #claude"]],
        complete: [["back", "Fix login #claude"]],
      },
      links: [link("gone", "s9"), link("ren", "s1", { syncedTitle: "Fix login" }), link("back", "s2")],
      claimed: ["gone", "ren", "back"],
    },
    want: [],
  },
  {
    rule: "claims",
    situation: "between START's move and its session registering, the claimed card is not dropped",
    world: {
      board: { process: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", null, { origin: "start" })],
      claimed: ["c1"],
    },
    want: [],
  },
  {
    rule: "claims",
    situation: "START's session registered but not yet bound: not adopted by a look-alike, not given a card",
    world: {
      live: [session("s1")],
      board: { process: [["c1", "Fix login #webapp #claude"], ["look", "Fix login #claude"]] },
      links: [link("c1", null, { origin: "start" })],
      claimed: ["c1"],
    },
    want: [{ kind: "drop", cardId: "look" }],
  },
  {
    rule: "claims",
    situation:
      "START's session registered under its first prompt: no card of its own; another agent's session gets one",
    world: {
      live: [
        session("s1", { title: "Please fix the login redirect, it loops" }),
        session("s2", { agent: "codex", title: "Other work" }),
      ],
      board: { process: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", null, { origin: "start" })],
      claimed: ["c1"],
    },
    want: [{ kind: "create", asmId: "s2", name: "Other work #webapp #codex" }],
  },
  {
    rule: "claims",
    situation: "once bound, START's card is the session's card and keeps the title the person wrote",
    world: {
      live: [session("s1", { title: "Please fix the login redirect, it loops" })],
      board: { process: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { origin: "start" })],
    },
    want: [],
  },
  {
    rule: "claims",
    situation: "right after END, the claimed completed card of a session still live is not restored",
    world: {
      live: [session("s1")],
      board: { complete: [["c1", "Fix login #webapp #claude"]] },
      links: [link("c1", "s1", { completed: true })],
      claimed: ["c1"],
      ending: ["c1"],
    },
    want: [],
  },
  // END's filing, finished by a pass
  {
    rule: "END",
    situation:
      "a card whose END could not file it goes to COMPLETE, from IN PROCESS or the plan, never dropped",
    world: {
      board: { process: [["c1", "Fix login #claude"]], plan: [["c2", "Other #claude #dropped"]] },
      links: [link("c1", "s1", { filing: true }), link("c2", "s2", { filing: true, dropped: true })],
      statuses: { s1: "killed", s2: "killed" },
    },
    want: [{ kind: "file", cardId: "c2" }, { kind: "file", cardId: "c1" }],
  },
  {
    rule: "END",
    situation:
      "END's filing waits while its claim lasts, and a filed card (or one driven again) is not filed",
    world: {
      live: [session("s3")],
      board: {
        process: [["c1", "Fix login #claude"], ["c3", "Again #claude"]],
        complete: [["c2", "Done #claude"]],
      },
      links: [
        link("c1", "s1", { filing: true }),
        link("c2", "s2", { filing: true }),
        link("c3", "s3", { filing: true, syncedTitle: "Fix login" }),
      ],
      statuses: { s1: "killed", s2: "killed" },
      claimed: ["c1"],
      ending: ["c1"],
    },
    want: [],
  },
];

Deno.test("the planner's rule table", async (t) => {
  for (const row of table) {
    await t.step(`rule ${row.rule}: ${row.situation}`, () => {
      assert.deepEqual(plan(input(row.world)), row.want);
    });
  }
});

Deno.test("actions come in pass order: bound cards, then unbound cards, then new cards", () => {
  const actions = plan(input({
    live: [session("new", { title: "Brand new" }), session("s1", { title: "Renamed" })],
    board: { process: [["unbound", "Nobody"], ["bound", "Fix login #webapp #claude"]] },
    links: [link("bound", "s1", { syncedTitle: "Fix login" })],
  }));
  assert.deepEqual(actions.map((a) => a.kind), ["rename", "drop", "create"]);
});

Deno.test("an id-less card is not planned for (it is identified first)", () => {
  assert.deepEqual(plan(input({ board: { process: [[null, "Typed by hand"]] } })), []);
});

Deno.test("a created or renamed card reads back as the title it was planned from: no endless renames", () => {
  for (const title of ["Fix C# parsing #123", "Ends in a tag #webapp", "Two  spaces", "Fix issue #123 #x"]) {
    const [create] = plan(input({ live: [session("s1", { title })] }));
    assert.equal(create.kind, "create");
    const name = (create as { name: string }).name;
    const synced = titleOnCard(title);
    const again = plan(input({
      live: [session("s1", { title })],
      board: { process: [["c1", name]] },
      links: [link("c1", "s1", { syncedTitle: synced })],
    }));
    assert.deepEqual(again, [], `${title} -> ${name}`);
  }
});

Deno.test("titles are compared for adoption without case or spacing", () => {
  assert.equal(plainTitle("  Fix\tThe  LOGIN "), "fix the login");
  assert.equal(titleOnCard(" \n "), null);
  assert.equal(titleOnCard(null), null);
});
