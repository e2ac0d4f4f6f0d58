/**
 * The planner: `plan(live, board, links, claims, agents) -> actions`, PURE (no I/O, no clock, no database), so
 * the whole rule set is testable offline in a second (plan_test.ts is the rule table, docs/runbook.md section 6j
 * the same table in words). The sweep gathers the facts and carries the actions out in the spec's write orders.
 *
 * The five rules:
 * 1. a driven session with no card, that has a title and the mint rule's yes -> `create` in IN PROCESS;
 * 2. a card bound to a driven session whose title or agent tag disagrees -> `rename` (never against a hand edit);
 * 3. a card in IN PROCESS whose bound session is not driven, and no END owns it -> `drop` (the binding stays);
 * 4. a card in IN PROCESS with no binding -> `adopt` when exactly one free driven session plainly matches, else
 *    `drop`;
 * 5. a #dropped or completed card whose bound session is driven again -> `restore` (never an ended one).
 *
 * And END's own write, finished: a card whose END ended its session but could not file it (the board was busy)
 * -> `file` to COMPLETE, never `drop` (only END and DONE write to COMPLETE; this is END's write, carried out late).
 *
 * Pass one (bound cards) runs before pass two (unbound cards), and creation after both, so a real binding is
 * never adopted away by a look-alike title and an adopted session is not given a second card. At most one action
 * per card per plan: the next pass sees the board the last one made.
 * @module
 */
import type { Card, ListRole } from "../board/protocol.ts";
import { LIST_ROLES } from "../board/protocol.ts";
import { cardName, DROPPED_TAG, parseCard, projectTag, withTagOf, withTitle } from "../board/grammar.ts";
import type { Action, BoardAgent, Link, LiveSessionFacts, PlanInput } from "./types.ts";

/** Statuses of a session that has finished: its card is not restored, even while a stale live set holds it. */
const FINISHED = new Set(["ended", "lost", "killed"]);

/**
 * A session's title as a card's line would read it back: one line (every run of whitespace one space), trimmed,
 * then written and read through the card grammar (whose escape keeps a tag-like last word in the title). Null
 * when nothing is left. Comparing in this form means a title the card cannot hold exactly never renames forever.
 */
export function titleOnCard(title: string | null): string | null {
  if (title === null) return null;
  const line = title.replace(/\s+/g, " ").trim();
  if (line === "") return null;
  const back = parseCard(cardName(line, [])).title;
  return back === "" ? null : back;
}

/** The form two titles are compared in for adoption ("plainly matches"): case and spacing do not count. */
export function plainTitle(title: string): string {
  return title.replace(/\s+/g, " ").trim().toLowerCase();
}

/** What the planner knows of one card while it plans. */
interface CardAt {
  card: Card & { id: string };
  list: ListRole;
  title: string;
  tags: string[];
}

/** Everything a rule asks, computed once from the input. */
class Facts {
  readonly linkOf = new Map<string, Link>();
  /** Sessions some link points at (cards on the board or not: a card deleted by hand is not re-minted). */
  readonly bound = new Set<string>();
  readonly agentTags: string[];
  readonly #tagOf = new Map<string, string>();

  constructor(readonly input: PlanInput) {
    for (const link of input.links) {
      this.linkOf.set(link.cardId, link);
      if (link.asmId !== null) this.bound.add(link.asmId);
    }
    for (const a of input.agents) this.#tagOf.set(a.name, a.tag);
    this.agentTags = input.agents.map((a: BoardAgent) => a.tag);
  }

  /** The session as a live, provable fact, or null: absent, or finished by its status (a stale live set). */
  driven(asmId: string): LiveSessionFacts | null {
    const s = this.input.live.get(asmId);
    if (!s) return null;
    const status = this.input.statuses.get(asmId);
    return status !== undefined && FINISHED.has(status) ? null : s;
  }

  claimed(cardId: string): boolean {
    return this.input.claims.claimed.has(cardId);
  }

  /** The tag the session's agent's cards wear, or null for an agent the board does not know. */
  tagOf(agent: string): string | null {
    return this.#tagOf.get(agent) ?? null;
  }

  /** The card's tags that are some agent's (any case). */
  agentTagsOn(tags: readonly string[]): string[] {
    const family = new Set(this.agentTags.map((t) => t.toLowerCase()));
    return tags.filter((t) => family.has(t.toLowerCase()));
  }
}

/** The cards of the board with ids, list by list in board order (an id-less card is identified before a plan). */
function cardsOf(board: PlanInput["board"]): CardAt[] {
  const out: CardAt[] = [];
  for (const list of LIST_ROLES) {
    for (const card of board[list] ?? []) {
      if (card.id === null) continue;
      const { title, tags } = parseCard(card.name);
      out.push({ card: card as Card & { id: string }, list, title, tags });
    }
  }
  return out;
}

function isDropped(at: CardAt, link: Link): boolean {
  return link.dropped || at.tags.some((t) => t.toLowerCase() === DROPPED_TAG);
}

/**
 * Rule 2, without fighting a hand edit. The link's `syncedTitle` is the title last written or read in sync: the
 * card follows the session only when the SESSION's title moved away from it and the CARD's did not. A card
 * retitled by hand keeps its title (the session keeps its own); both moved at once, the hand edit wins. The
 * agent tag is asm's and is always corrected; the project tag and #dropped are never touched.
 */
function renameOrSync(f: Facts, at: CardAt, link: Link, s: LiveSessionFacts): Action | null {
  const sessionTitle = titleOnCard(s.title);
  let name = at.card.name;
  let synced: string | null = null;

  if (sessionTitle !== null && sessionTitle !== at.title) {
    const sessionMoved = link.syncedTitle !== sessionTitle;
    const cardMoved = link.syncedTitle !== at.title;
    if (sessionMoved && !cardMoved) {
      name = withTitle(name, sessionTitle);
      synced = sessionTitle;
    }
  }

  const want = f.tagOf(s.agent);
  const onCard = f.agentTagsOn(at.tags);
  const agentAgrees = want === null ||
    (onCard.length === 1 && onCard[0].toLowerCase() === want.toLowerCase());
  if (!agentAgrees) name = withTagOf(name, f.agentTags, want!);

  if (name !== at.card.name) {
    // a rename that keeps the card's title leaves the link on the session's title when it has one: from there a
    // later hand edit, even back to an older title, still reads as the card's own move and is kept
    const syncedTitle = synced ?? sessionTitle ?? link.syncedTitle ?? at.title;
    return { kind: "rename", cardId: at.card.id, asmId: s.asmId, name, syncedTitle };
  }
  if (sessionTitle !== null && sessionTitle === at.title && link.syncedTitle !== at.title) {
    return { kind: "synced", cardId: at.card.id, title: at.title };
  }
  return null;
}

/** Pass one: a bound card. */
function boundCard(f: Facts, at: CardAt, link: Link & { asmId: string }): Action | null {
  const present = f.input.live.get(link.asmId);
  // asm cannot prove the process: neither keep nor drop nor rename on a guess
  if (present?.unsure) return null;
  const s = f.driven(link.asmId);
  const cardId = at.card.id;
  if (link.filing && s === null && at.list !== "complete") return { kind: "file", cardId };
  switch (at.list) {
    case "process":
      if (s === null) return f.input.claims.ending.has(cardId) ? null : { kind: "drop", cardId }; // rule 3
      return renameOrSync(f, at, link, s); // rule 2 (present is kept, whatever the mint rule thinks)
    case "plan":
      if (s === null) return null;
      if (isDropped(at, link)) return { kind: "restore", cardId, asmId: s.asmId }; // rule 5
      return renameOrSync(f, at, link, s); // a card moved back to the plan by hand stays there
    case "complete":
      // rule 5, never for a finished session: `driven` already refuses an ended / lost / killed status, which is
      // the defence that survives a restart (the END claim is the other one, and memory only)
      if (s === null) return null;
      return { kind: "restore", cardId, asmId: s.asmId };
  }
}

/** True when the card's agent tags (if it wears any) are all the session's agent's. */
function agentTagsAgree(f: Facts, at: CardAt, s: LiveSessionFacts): boolean {
  const onCard = f.agentTagsOn(at.tags);
  if (onCard.length === 0) return true;
  const want = f.tagOf(s.agent);
  return want !== null && onCard.every((t) => t.toLowerCase() === want.toLowerCase());
}

/** A session a new card or an adoption may take: driven, provable, the mint rule's yes, titled, not bound. */
function free(f: Facts, s: LiveSessionFacts, taken: ReadonlySet<string>): string | null {
  if (taken.has(s.asmId) || f.bound.has(s.asmId) || s.unsure || !s.mintable) return null;
  if (f.driven(s.asmId) === null) return null;
  return titleOnCard(s.title);
}

/** The plan: every action the board needs to follow the live set, in the order the sweep carries them out. */
export function plan(input: PlanInput): Action[] {
  const f = new Facts(input);
  const cards = cardsOf(input.board);
  const actions: Action[] = [];

  // pass one: bound cards
  for (const at of cards) {
    const link = f.linkOf.get(at.card.id);
    if (!link || link.asmId === null) continue;
    if (f.claimed(at.card.id)) continue;
    const action = boundCard(f, at, link as Link & { asmId: string });
    if (action) actions.push(action);
  }

  // sessions held for a card a button is acting on: an unbound claimed card in IN PROCESS is waiting for the
  // session its START or CONTINUE launched, which may register before its binding is written, under a title of
  // its own (often its first prompt). While the claim lasts, a free session of the agent the card wears (of its
  // title, for a card wearing none) is neither adopted by another card nor given one of its own
  const taken = new Set<string>();
  const waiting = cards.filter((at) =>
    at.list === "process" && f.claimed(at.card.id) && (f.linkOf.get(at.card.id)?.asmId ?? null) === null
  );
  for (const s of input.live.values()) {
    const title = free(f, s, taken);
    if (title === null) continue;
    const held = waiting.some((at) =>
      f.agentTagsOn(at.tags).length > 0
        ? agentTagsAgree(f, at, s)
        : plainTitle(at.title) === plainTitle(title)
    );
    if (held) taken.add(s.asmId);
  }

  // pass two: unbound cards in IN PROCESS (rule 4)
  for (const at of cards) {
    if (at.list !== "process" || f.claimed(at.card.id)) continue;
    const link = f.linkOf.get(at.card.id);
    if (link && link.asmId !== null) continue;
    const matches = [...input.live.values()].filter((s) => {
      const title = free(f, s, taken);
      return title !== null && plainTitle(title) === plainTitle(at.title) && agentTagsAgree(f, at, s);
    });
    if (matches.length === 1) {
      taken.add(matches[0].asmId);
      actions.push({ kind: "adopt", cardId: at.card.id, asmId: matches[0].asmId });
    } else {
      actions.push({ kind: "drop", cardId: at.card.id });
    }
  }

  // rule 1: a driven session with no card. Any link counts as its card: one in COMPLETE it cannot get back, or
  // one deleted from the board by hand (re-minting it would fight that edit)
  for (const s of input.live.values()) {
    const title = free(f, s, taken);
    if (title === null) continue;
    const tags = [s.project === null ? null : projectTag(s.project), f.tagOf(s.agent)]
      .filter((t): t is string => t !== null);
    actions.push({ kind: "create", asmId: s.asmId, name: cardName(title, tags) });
  }
  return actions;
}
