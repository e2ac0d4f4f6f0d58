/**
 * The board's card links through `./asm rebuild`. A link (card id -> session, dropped / completed) lives only in
 * the ledger: the board file holds card ids, never session ids, and no hook event carries a card. A rebuild that
 * puts the newest snapshot in place and replays the retained events brings back the snapshot's links (none
 * without a snapshot) and loses every one made or changed after it. So the rebuild takes them, in this order:
 *
 * 1. the ledger it set aside, opened read-only and checked (`PRAGMA quick_check` of the tables read): the file
 *    the server wrote until it stopped, often intact when a person rebuilds, so its links are the newest. A link
 *    it lacks was removed on purpose (DONE, a START that failed), so the snapshot's links are not added to it;
 * 2. else the snapshot (already in place): its links as they were when it was taken, their dropped and completed
 *    marks read again from where the board now shows each card (a drop or an END after the snapshot moved it);
 * 3. the board's own card ids: a link whose card is no longer on the board is not restored;
 * 4. the launches made for cards (a launch from a card names it) and the sessions the replayed events made (a
 *    session carries its launch's token): a link still waiting for the session its START or CONTINUE launched
 *    is bound to it, as the next pass would have.
 *
 * {@link chooseCardLinks} is the pure decision; {@link restoreCardLinks} gathers the facts and writes the choice.
 * @module
 */
import { type BoardRead, DROPPED_TAG, LIST_ROLES, type ListRole, parseCard } from "../board/mod.ts";
import {
  type CardLinkSource,
  cardLinkSource,
  isoAt,
  type LaunchForCard,
  type Ledger,
  openReadOnly,
  replaceCardLinks,
  sessionsOfLaunchTokens,
  type StoredLink,
} from "../ledger/mod.ts";
import { type Clock, errorText } from "../lang/mod.ts";

/** A card on the board, as the choice needs it. */
export interface BoardCard {
  list: ListRole;
  /** it wears #dropped */
  dropped: boolean;
}

/** The facts the choice is made from. */
export interface CardLinkFacts {
  /** the board's cards by id, or why the board could not be read */
  board: ReadonlyMap<string, BoardCard> | { unreadable: string };
  /** the set-aside ledger's links and card launches, or why they cannot be used; null when none was set aside */
  aside: CardLinkSource | { unusable: string } | null;
  /** the restored snapshot's links and card launches; null when there was no snapshot */
  snapshot: CardLinkSource | null;
  /** the rebuilt ledger's sessions by the launch token they carried (the snapshot's and the replayed events') */
  sessionOfToken: ReadonlyMap<string, string>;
  /** the rebuild's time (ISO), for a dropped or completed mark the board adds */
  at: string;
}

/** What the rebuild writes, and what it says. */
export interface CardLinkChoice {
  /** where the links came from: the ledger set aside, the snapshot, or nowhere */
  source: "aside" | "snapshot" | null;
  /** the links to write: every link of the ledger after the rebuild */
  links: StoredLink[];
  /** links of the source that are not restored, and why */
  notRestored: { cardId: string; why: string }[];
  /** cards whose link waited for its launch's session, now bound to it */
  boundByLaunch: string[];
  /** cards in IN PROCESS that no restored link binds to a session */
  unlinkedInProcess: string[];
}

/** The cards of a board read, by id (a card typed by hand has no id yet, so no link either). */
export function boardCardsOf(read: BoardRead): Map<string, BoardCard> {
  const cards = new Map<string, BoardCard>();
  for (const list of LIST_ROLES) {
    for (const card of read.lists[list]) {
      if (card.id === null) continue;
      const dropped = parseCard(card.name).tags.some((t) => t.toLowerCase() === DROPPED_TAG);
      cards.set(card.id, { list, dropped });
    }
  }
  return cards;
}

/**
 * The session a waiting link's START or CONTINUE launched: the newest launch made for its card since it was
 * bound whose session is known (lib/ledger links.ts' rule, `launchedSessionOf`), or null.
 */
function launchedSession(
  link: StoredLink,
  launches: readonly LaunchForCard[],
  sessionOfToken: ReadonlyMap<string, string>,
): string | null {
  if (link.origin !== "start" && link.origin !== "continue") return null;
  if (link.boundAt === null) return null;
  const made = launches
    .filter((l) => l.cardId === link.cardId && l.requestedAt >= link.boundAt!)
    .sort((a, b) =>
      a.requestedAt < b.requestedAt ? 1 : a.requestedAt > b.requestedAt ? -1 : a.token < b.token ? -1 : 1
    );
  for (const launch of made) {
    const asmId = launch.asmId ?? sessionOfToken.get(launch.token) ?? null;
    if (asmId !== null) return asmId;
  }
  return null;
}

/**
 * A snapshot's link with its marks as the board shows the card now: in SPRINT PLAN it is dropped when it wears
 * #dropped (or was marked so: a drop whose tag a hand edit abandoned), in COMPLETE it is completed, in IN
 * PROCESS neither; END's filing is over once the card is in COMPLETE. The planner reads the list and the tag,
 * so this changes no plan; it keeps the page's marks and the buttons' refusals true.
 */
function withBoardMarks(link: StoredLink, card: BoardCard, at: string): StoredLink {
  const dropped = card.list === "plan" && (card.dropped || link.dropped);
  const completed = card.list === "complete";
  return {
    ...link,
    dropped,
    droppedAt: dropped && !link.dropped ? at : link.droppedAt,
    completed,
    completedAt: completed && !link.completed ? at : link.completedAt,
    filing: link.filing && card.list !== "complete",
  };
}

/** The links a rebuild writes, from the facts. Pure. */
export function chooseCardLinks(facts: CardLinkFacts): CardLinkChoice {
  const aside = facts.aside !== null && !("unusable" in facts.aside) ? facts.aside : null;
  const source = aside ? "aside" : facts.snapshot ? "snapshot" : null;
  const from: CardLinkSource = aside ?? facts.snapshot ?? { links: [], launches: [] };
  const cards = "unreadable" in facts.board ? null : facts.board;
  const choice: CardLinkChoice = {
    source,
    links: [],
    notRestored: [],
    boundByLaunch: [],
    unlinkedInProcess: [],
  };
  for (const stored of from.links) {
    const card = cards?.get(stored.cardId);
    if (cards && !card) {
      choice.notRestored.push({ cardId: stored.cardId, why: "its card is no longer on the board" });
      continue;
    }
    let link = stored;
    if (link.asmId === null) {
      const asmId = launchedSession(link, from.launches, facts.sessionOfToken);
      if (asmId !== null) {
        link = { ...link, asmId };
        choice.boundByLaunch.push(link.cardId);
      }
    }
    // the set-aside ledger is as new as the board (the sweep wrote both); a snapshot is up to an hour older
    if (source === "snapshot" && card) link = withBoardMarks(link, card, facts.at);
    choice.links.push(link);
  }
  if (cards) {
    const bound = new Set(choice.links.filter((l) => l.asmId !== null).map((l) => l.cardId));
    for (const [cardId, card] of cards) {
      if (card.list === "process" && !bound.has(cardId)) choice.unlinkedInProcess.push(cardId);
    }
  }
  return choice;
}

/** What {@link restoreCardLinks} needs. */
export interface CardLinkDeps {
  /** the rebuilt ledger: the snapshot (or an empty ledger) with the retained events replayed */
  ledger: Ledger;
  /** the ledger the rebuild set aside (`RestoreReport.asideAs`), or null when there was none */
  asidePath: string | null;
  /** whether the rebuilt ledger started from a snapshot */
  fromSnapshot: boolean;
  /** the board as it is now, read without writing anything; throws a sentence when it cannot be read */
  readBoard(): Promise<BoardRead>;
  now?: Clock;
}

/** What {@link restoreCardLinks} did. */
export interface CardLinkReport extends CardLinkChoice {
  /** why the set-aside ledger could not give its links, or null (it did, or there was none) */
  asideProblem: string | null;
  /** why the board could not be read (the links were restored without checking their cards), or null */
  boardProblem: string | null;
}

/** The set-aside ledger's links and card launches, read-only and checked first; or why they cannot be used. */
function asideSource(path: string): CardLinkSource | { unusable: string } {
  let aside;
  try {
    aside = openReadOnly(path);
  } catch (err) {
    return { unusable: `${path} cannot be opened: ${errorText(err)}` };
  }
  // only its -wal and -shm were there (the file itself was deleted): nothing to read
  if (aside === null) {
    return { unusable: `there was no ledger file at ${path}, only what SQLite keeps beside it` };
  }
  try {
    const problem = aside.tablesProblem(["sprint_links", "launches"]);
    if (problem !== null) return { unusable: `${path} failed SQLite's check (${problem})` };
    return aside.cardLinks();
  } catch (err) {
    return { unusable: `${path} cannot be read: ${errorText(err)}` };
  } finally {
    aside.close();
  }
}

/**
 * Chooses the rebuilt ledger's links ({@link chooseCardLinks}) from the set-aside ledger, the snapshot, the
 * board and the launches, and writes them. Call it after the replay (the replayed events carry the launch
 * tokens), while holding the writer lock.
 */
export async function restoreCardLinks(deps: CardLinkDeps): Promise<CardLinkReport> {
  const aside = deps.asidePath === null ? null : asideSource(deps.asidePath);
  let board: CardLinkFacts["board"];
  try {
    board = boardCardsOf(await deps.readBoard());
  } catch (err) {
    board = { unreadable: errorText(err) };
  }
  const choice = chooseCardLinks({
    board,
    aside,
    snapshot: deps.fromSnapshot ? cardLinkSource(deps.ledger) : null,
    sessionOfToken: sessionsOfLaunchTokens(deps.ledger),
    at: isoAt((deps.now ?? Date.now)()),
  });
  replaceCardLinks(deps.ledger, choice.links);
  return {
    ...choice,
    asideProblem: aside !== null && "unusable" in aside ? aside.unusable : null,
    boardProblem: "unreadable" in board ? board.unreadable : null,
  };
}
