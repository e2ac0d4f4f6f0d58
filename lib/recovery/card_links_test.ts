import assert from "node:assert/strict";
import type { CardLinkSource, LaunchForCard, StoredLink } from "../ledger/mod.ts";
import { type BoardCard, type CardLinkChoice, type CardLinkFacts, chooseCardLinks } from "./card_links.ts";

const AT = "2026-12-04T12:00:00.000Z";

function link(cardId: string, asmId: string | null, more: Partial<StoredLink> = {}): StoredLink {
  return {
    cardId,
    asmId,
    origin: "start",
    title: null,
    boundAt: "2026-12-04T10:00:00.000Z",
    dropped: false,
    droppedAt: null,
    completed: false,
    completedAt: null,
    syncedTitle: null,
    filing: false,
    ...more,
  };
}

function source(links: StoredLink[], launches: LaunchForCard[] = []): CardLinkSource {
  return { links, launches };
}

function board(cards: Record<string, BoardCard["list"] | [BoardCard["list"], "#dropped"]>) {
  return new Map(
    Object.entries(cards).map(([id, at]) => [id, {
      list: Array.isArray(at) ? at[0] : at,
      dropped: Array.isArray(at),
    }]),
  );
}

function facts(overrides: Partial<CardLinkFacts>): CardLinkFacts {
  return { board: board({}), aside: null, snapshot: null, sessionOfToken: new Map(), at: AT, ...overrides };
}

/** Each link as `card->session` with its marks, in order. */
function words(choice: CardLinkChoice): string[] {
  return choice.links.map((l) =>
    `${l.cardId}->${l.asmId ?? "(launch)"}${l.dropped ? " dropped" : ""}${l.completed ? " completed" : ""}${
      l.filing ? " filing" : ""
    }`
  );
}

const rows: { situation: string; facts: CardLinkFacts; check: (c: CardLinkChoice) => void }[] = [
  {
    situation: "the set-aside ledger's links win over the snapshot's, even where it has fewer",
    facts: facts({
      board: board({ a: "process", b: ["plan", "#dropped"], c: "complete", done: "complete" }),
      aside: source([
        link("a", "s-a"),
        link("b", "s-b", { dropped: true }),
        link("c", "s-c", { completed: true }),
      ]),
      // `done` was unbound by DONE after the snapshot: the set-aside ledger has no link for it any more
      snapshot: source([link("a", "s-a"), link("done", "s-done")]),
    }),
    check: (c) => {
      assert.equal(c.source, "aside");
      assert.deepEqual(words(c), ["a->s-a", "b->s-b dropped", "c->s-c completed"]);
      assert.deepEqual(c.notRestored, []);
    },
  },
  {
    situation:
      "a set-aside ledger that cannot be used leaves the snapshot's links, marked as the board shows now",
    facts: facts({
      board: board({ a: "process", b: ["plan", "#dropped"], c: "complete", d: "plan" }),
      aside: { unusable: "file is not a database" },
      snapshot: source([
        link("a", "s-a", { dropped: true, droppedAt: "2026-12-04T09:00:00.000Z" }),
        link("b", "s-b"),
        link("c", "s-c", { filing: true }),
        // dropped, then its #dropped tag's write abandoned by a hand edit: still dropped
        link("d", "s-d", { dropped: true, droppedAt: "2026-12-04T09:30:00.000Z" }),
      ]),
    }),
    check: (c) => {
      assert.equal(c.source, "snapshot");
      assert.deepEqual(words(c), ["a->s-a", "b->s-b dropped", "c->s-c completed", "d->s-d dropped"]);
      const [a, b, cc, d] = c.links;
      assert.equal(a.droppedAt, "2026-12-04T09:00:00.000Z", "a restore leaves the time of the last drop");
      assert.equal(b.droppedAt, AT);
      assert.equal(cc.completedAt, AT);
      assert.equal(d.droppedAt, "2026-12-04T09:30:00.000Z");
    },
  },
  {
    situation: "a link whose card is no longer on the board is not restored, and says why",
    facts: facts({
      board: board({ a: "process" }),
      aside: source([link("a", "s-a"), link("gone", "s-gone")]),
    }),
    check: (c) => {
      assert.deepEqual(words(c), ["a->s-a"]);
      assert.deepEqual(c.notRestored, [{ cardId: "gone", why: "its card is no longer on the board" }]);
    },
  },
  {
    situation: "a board that cannot be read restores every link unchecked, and the marks as they were",
    facts: facts({
      board: { unreadable: "there is no board file at /x/board.md" },
      aside: { unusable: "it cannot be opened" },
      snapshot: source([link("a", "s-a"), link("b", "s-b", { dropped: true })]),
    }),
    check: (c) => {
      assert.deepEqual(words(c), ["a->s-a", "b->s-b dropped"]);
      assert.deepEqual([c.notRestored, c.unlinkedInProcess], [[], []]);
    },
  },
  {
    situation: "a link waiting for its START's session is bound to the session the replayed events name",
    facts: facts({
      board: board({ a: "process" }),
      aside: { unusable: "it cannot be opened" },
      snapshot: source([link("a", null)], [
        { token: "asmlt_old", cardId: "a", requestedAt: "2026-12-04T09:00:00.000Z", asmId: "s-before" },
        { token: "asmlt_new", cardId: "a", requestedAt: "2026-12-04T10:00:01.000Z", asmId: null },
      ]),
      sessionOfToken: new Map([["asmlt_new", "s-new"]]),
    }),
    check: (c) => {
      assert.deepEqual(words(c), ["a->s-new"], "the launch made since the binding, not an older one");
      assert.deepEqual(c.boundByLaunch, ["a"]);
      assert.deepEqual(c.unlinkedInProcess, []);
    },
  },
  {
    situation:
      "a waiting link whose launch made no session yet stays waiting, and its card counts as unlinked",
    facts: facts({
      board: board({ a: "process" }),
      aside: source([link("a", null, { origin: "continue" })], [
        { token: "asmlt_x", cardId: "a", requestedAt: "2026-12-04T10:00:01.000Z", asmId: null },
      ]),
    }),
    check: (c) => {
      assert.deepEqual(words(c), ["a->(launch)"]);
      assert.deepEqual([c.boundByLaunch, c.unlinkedInProcess], [[], ["a"]]);
    },
  },
  {
    situation:
      "without a snapshot or a usable set-aside ledger nothing is restored; the cards in IN PROCESS say so",
    facts: facts({
      board: board({ a: "process", b: "plan", c: "complete" }),
      aside: { unusable: "file is not a database" },
    }),
    check: (c) => {
      assert.equal(c.source, null);
      assert.deepEqual([c.links, c.unlinkedInProcess], [[], ["a"]]);
    },
  },
];

for (const row of rows) {
  Deno.test(`card links through a rebuild: ${row.situation}`, () => row.check(chooseCardLinks(row.facts)));
}
