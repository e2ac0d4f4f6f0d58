/**
 * One reconciler pass, the shell around the pure planner: read the board (fresh after a wake, else the memo),
 * give id-less cards their ids, bind the cards whose launches registered, settle the claims, gather the live set
 * and the links, `plan()`, then carry the actions out in the spec's write orders, each write based on the stamp
 * the previous one returned.
 *
 * - A write refused because the board changed ({@link BoardChanged}: a hand edit) abandons the pass's remaining
 *   writes; the pass plans again from a fresh read, a bounded number of times, then gives up with ONE sentence
 *   (lib/board `BoardBusy`) for the log and the page.
 * - A drop re-checks the END claims at the last moment (a pass plans seconds before it writes, and a wrongly
 *   dropped card is the one action nobody notices), then moves, then tags.
 * - A restore untags BEFORE it moves: a card arriving in IN PROCESS still wearing #dropped reads as a live session
 *   that has already died.
 * - Nothing here writes to COMPLETE: only END and DONE do (`end.ts`, `buttons.ts`).
 * - A dry run (the first pass after every start) reads and plans, logs every action it would take, and writes
 *   nothing at all: no ids, no links, no claims settled.
 * @module
 */
import {
  BoardChanged,
  type BoardRead,
  type Card,
  DEFAULT_TRIES,
  DROPPED_TAG,
  hasTag,
  LIST_ROLES,
  type ListRole,
  type Outliner,
  parseCard,
  withFreshBoard,
  withoutTag,
  withTag,
} from "../board/mod.ts";
import {
  bindCard,
  bindLaunchedSessions,
  boardLinks,
  isoAt,
  launchRegistered,
  linkedStatuses,
  liveSessionFacts,
  markCompleted,
  markDropped,
  markRestored,
  setSyncedTitle,
} from "../ledger/mod.ts";
import { plan as realPlan } from "./plan.ts";
import type { BoardDeps } from "./deps.ts";
import type { Action, PlanInput } from "./types.ts";

/** What one pass did (or, dry, would do). */
export interface PassReport {
  dryRun: boolean;
  /** The actions planned on the last try (carried out unless dry; a drop the re-check stopped is in `skipped`). */
  actions: Action[];
  /** Cards given ids (dry: cards that would be). */
  identified: number;
  /** Cards bound to the session their launch made. */
  bound: string[];
  /** Claims whose hold ended. */
  released: string[];
  /** Drops the last-moment re-check stopped (an END claimed the card meanwhile). */
  skipped: string[];
  /** Reads of the board (1 + the tries after a hand edit). */
  tries: number;
}

/** Options of {@link sweepOnce}. */
export interface PassOptions {
  /** Read the outliner now (a wake); otherwise the memo will do (the timer). */
  fresh: boolean;
  /** Plan and log, write nothing. */
  dryRun: boolean;
  /** The planner (tests may hand in another). */
  plan?: (input: PlanInput) => Action[];
}

/** A working copy of the board as this pass has read and written it. */
type Lists = Record<ListRole, Card[]>;

function copyLists(read: BoardRead): Lists {
  return Object.fromEntries(
    LIST_ROLES.map((role) => [role, read.lists[role].map((c) => ({ ...c, children: [...c.children] }))]),
  ) as Lists;
}

function locate(lists: Lists, cardId: string): { list: ListRole; index: number; card: Card } | null {
  for (const list of LIST_ROLES) {
    const index = lists[list].findIndex((c) => c.id === cardId);
    if (index >= 0) return { list, index, card: lists[list][index] };
  }
  return null;
}

/** Mirrors a move the outliner made (so later actions of the pass, and the memo, see it). */
export function movedLocally(lists: Lists, cardId: string, to: ListRole, position: "top" | "bottom"): void {
  const at = locate(lists, cardId);
  if (!at) return;
  lists[at.list].splice(at.index, 1);
  if (position === "top") lists[to].unshift(at.card);
  else lists[to].push(at.card);
}

/** A card's current line in the working copy (a write of this pass may have changed it). */
function nameOf(lists: Lists, cardId: string): string {
  const at = locate(lists, cardId);
  if (!at) throw new BoardChanged(`no card ${cardId} on the board any more; nothing was written`);
  return at.card.name;
}

/**
 * Binds the cards whose START or CONTINUE launch has registered its session (the link waits with no session),
 * then ends the claims whose hold is over, against the live set just read. Writes the ledger only: the dry run
 * skips it. END calls it too, so a session whose card is still waiting for it is found through its binding.
 */
export function settleClaims(
  deps: Pick<BoardDeps, "ledger" | "claims">,
): { bound: string[]; released: string[] } {
  const bound = bindLaunchedSessions(deps.ledger).map((b) => b.cardId);
  const live = liveSessionFacts(deps.ledger);
  // "still in the liveness snapshot": live, or a run whose process the poll has not seen go yet (END marks the
  // session killed before its signal; its claim holds until the process is gone)
  const running = new Set(deps.ledger.openRuns().map((r) => r.asm_id));
  const there = { has: (asmId: string) => live.has(asmId) || running.has(asmId) };
  const boundTo = new Map(boardLinks(deps.ledger).map((l) => [l.cardId, l.asmId]));
  const released = deps.claims.settle(
    there,
    (cardId) => boundTo.get(cardId) ?? null,
    (token) => launchRegistered(deps.ledger, token),
  );
  return { bound, released };
}

/** #dropped taken off the card if it wears it, then the card moved to the top of `to`; the stamp after both. */
async function untagThenMove(
  outliner: Outliner,
  lists: BoardRead["lists"],
  cardId: string,
  to: ListRole,
  stamp: string,
): Promise<string> {
  let next = stamp;
  const name = nameOf(lists, cardId);
  if (hasTag(name, DROPPED_TAG)) {
    const untagged = withoutTag(name, DROPPED_TAG);
    next = (await outliner.rename(cardId, untagged, next)).stamp;
    locate(lists, cardId)!.card.name = untagged;
  }
  next = (await outliner.move(cardId, to, "top", next)).stamp;
  movedLocally(lists, cardId, to, "top");
  return next;
}

/** Carries out one action in its write order; returns the board's stamp after it. */
async function carry(
  deps: BoardDeps,
  action: Action,
  lists: Lists,
  stamp: string,
  skipped: string[],
): Promise<string> {
  const { outliner, ledger } = deps;
  const at = () => isoAt(deps.now?.());
  switch (action.kind) {
    case "create": {
      const made = await outliner.create("process", { name: action.name, children: [] }, "top", stamp);
      lists.process.unshift({ id: made.id, name: action.name, children: [] });
      const title = parseCard(action.name).title;
      bindCard(ledger, {
        cardId: made.id,
        asmId: action.asmId,
        origin: "create",
        title,
        syncedTitle: title,
        at: at(),
      });
      return made.stamp;
    }
    case "adopt":
      bindCard(ledger, { cardId: action.cardId, asmId: action.asmId, origin: "adopt", at: at() });
      return stamp;
    case "rename": {
      const written = await outliner.rename(action.cardId, action.name, stamp);
      locate(lists, action.cardId)!.card.name = action.name;
      setSyncedTitle(ledger, action.cardId, action.syncedTitle);
      return written.stamp;
    }
    case "synced":
      setSyncedTitle(ledger, action.cardId, action.title);
      return stamp;
    case "drop": {
      // the last moment: an END (or any button) that claimed the card since the plan owns it now
      const claims = deps.claims.view();
      if (claims.ending.has(action.cardId) || claims.claimed.has(action.cardId)) {
        skipped.push(action.cardId);
        deps.log({ what: "board: drop skipped, the card was claimed meanwhile", card: action.cardId });
        return stamp;
      }
      let next = (await outliner.move(action.cardId, "plan", "top", stamp)).stamp;
      movedLocally(lists, action.cardId, "plan", "top");
      // marked as soon as the move is written, the binding kept (what makes RESUME possible): a hand edit that
      // abandons the tag's write must not leave a dropped card the planner would never restore
      markDropped(ledger, action.cardId, at());
      const name = nameOf(lists, action.cardId);
      if (!hasTag(name, DROPPED_TAG)) {
        const tagged = withTag(name, DROPPED_TAG);
        next = (await outliner.rename(action.cardId, tagged, next)).stamp;
        locate(lists, action.cardId)!.card.name = tagged;
      }
      return next;
    }
    case "restore": {
      // untag BEFORE moving: a card arriving in IN PROCESS wearing #dropped reads as a session already dead
      const next = await untagThenMove(outliner, lists, action.cardId, "process", stamp);
      markRestored(ledger, action.cardId); // bound to the same session still: no longer dropped or completed
      return next;
    }
    case "file": {
      // END's write, finished: untagged (a card filed while dropped is done, not dead), then to COMPLETE
      const next = await untagThenMove(outliner, lists, action.cardId, "complete", stamp);
      markCompleted(ledger, action.cardId, at());
      return next;
    }
  }
}

/**
 * One pass. Throws lib/board `BoardBusy` (the board changed under every try) or `BoardUnusable` (it cannot be
 * read right) with the sentence to show; the caller keeps it as the board's problem (`runtime.ts`).
 */
export async function sweepOnce(deps: BoardDeps, options: PassOptions): Promise<PassReport> {
  const planOf = options.plan ?? realPlan;
  const report: PassReport = {
    dryRun: options.dryRun,
    actions: [],
    identified: 0,
    bound: [],
    released: [],
    skipped: [],
    tries: 0,
  };

  const attempt = async (read: BoardRead): Promise<PassReport> => {
    report.tries++;
    report.skipped = [];
    const lists = copyLists(read);
    let stamp = read.stamp;
    const idless = LIST_ROLES.reduce((n, role) => n + lists[role].filter((c) => c.id === null).length, 0);
    if (idless > 0 && !options.dryRun) {
      const given = await deps.outliner.identify(stamp);
      stamp = given.stamp;
      for (const g of given.given) lists[g.list][g.index].id = g.id;
    }
    report.identified = idless;

    if (!options.dryRun) {
      const settled = settleClaims(deps);
      report.bound.push(...settled.bound);
      report.released.push(...settled.released);
    }
    const links = boardLinks(deps.ledger);
    const live = liveSessionFacts(deps.ledger);
    const statuses = linkedStatuses(deps.ledger);
    const board = Object.fromEntries(
      LIST_ROLES.map((role) => [role, lists[role].filter((c) => c.id !== null)]),
    ) as Lists;
    const actions = planOf({ live, statuses, board, links, claims: deps.claims.view(), agents: deps.agents });
    report.actions = actions;

    if (options.dryRun) {
      for (const action of actions) deps.log({ what: "board dry run: would", ...action });
      deps.log({
        what: "board dry run",
        location: deps.outliner.location,
        actions: actions.length,
        would_identify: idless,
        wrote: "nothing",
      });
      deps.memo.believe(read, links);
      return report;
    }
    for (const action of actions) stamp = await carry(deps, action, lists, stamp, report.skipped);
    deps.memo.believe({ lists, stamp, readAt: read.readAt }, boardLinks(deps.ledger));
    if (actions.length > 0) {
      deps.log({
        what: "board pass",
        actions: actions.map((a) => a.kind === "create" ? `create ${a.asmId}` : `${a.kind} ${a.cardId}`),
        skipped: report.skipped,
      });
    }
    return report;
  };

  return await deps.lock.run(async () => {
    // a hand edit between the read and a write: the rest is abandoned and planned again from a fresh read
    const first = await deps.outliner.read({ fresh: options.fresh, create: !options.dryRun });
    return await withFreshBoard(deps.outliner, attempt, { tries: deps.tries ?? DEFAULT_TRIES, first });
  });
}
