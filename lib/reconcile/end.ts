/**
 * END, one service for every door: a card's END (`POST /api/sprint/:card/end`), a sessions-list row and the
 * session page (`POST /api/sessions/:id/end`), and the command line (`./asm end`, which sends that same request).
 * Whichever door, it finds the session's card through its binding and runs the spec's order:
 *
 *   claim the card -> mark the session killed -> close its window (lib/launch `endSession`: it claims `killed`
 *   before the signal and counts the windows) -> file the card to COMPLETE.
 *
 * The END claim is then held until the killed session has left the live set (`holdUntilGone`), so a pass right
 * after END does not restore the card (and the planner refuses to restore a card whose session is ended, lost
 * or killed, the defence that survives a restart). A session with no card ends as it always did; a board that
 * is off ends sessions all the same.
 * @module
 */
import { boardLinks, cardOfSession, isoAt, linkOf, markCompleted, markFiling } from "../ledger/mod.ts";
import { type ActionDeps, ActionRefused, type EndResult, endSession } from "../launch/mod.ts";
import { errorText } from "../lang/mod.ts";
import { CardClaimed } from "./claims.ts";
import type { BoardDeps } from "./deps.ts";
import { rewriteAndMove } from "./buttons.ts";
import { settleClaims } from "./sweep.ts";

/** What END answers: lib/launch's result, and the card it filed (null: the session has no card). */
export interface CardEndResult extends EndResult {
  card: {
    id: string;
    /** The card is in COMPLETE. */
    filed: boolean;
    /** Why it could not be filed (the session ended all the same), or null. */
    problem: string | null;
  } | null;
}

/** What END needs of the board: its dependencies and the wake (null when the board is off). */
export type EndBoard = BoardDeps & { wake(): void };

/** Files the card to COMPLETE on a fresh read, under the board lock; a sentence when it cannot. */
async function fileCard(board: EndBoard, cardId: string): Promise<string | null> {
  try {
    await rewriteAndMove(board, cardId, [], "complete");
  } catch (err) {
    const problem = errorText(err);
    board.log({ what: "END could not file the card", card: cardId, problem });
    return problem;
  }
  markCompleted(board.ledger, cardId, isoAt(board.now?.()));
  return null;
}

/**
 * END of a session, through its card when it has one. Refuses (lib/launch `ActionRefused`) when the process
 * cannot be proven, the binary is shared, or another button is acting on the card; the card is untouched then.
 */
export async function endThroughCard(
  board: EndBoard | null,
  actions: ActionDeps,
  asmId: string,
): Promise<CardEndResult> {
  if (board === null) return { ...await endSession(actions, asmId), card: null };
  // a START's card waiting for this very session is bound to it first (and its hold ends), so it is found
  settleClaims(board);
  const cardId = cardOfSession(board.ledger, asmId);
  if (cardId === null) return { ...await endSession(actions, asmId), card: null };
  let held;
  try {
    held = board.claims.claim(cardId, "end");
  } catch (err) {
    if (err instanceof CardClaimed) throw new ActionRefused("conflict", err.message);
    throw err;
  }
  let result: EndResult;
  try {
    result = await endSession(actions, asmId);
  } catch (err) {
    held.release();
    throw err;
  }
  // the intent first: should the filing not be written (a busy board), a pass files the card, never drops it
  markFiling(board.ledger, cardId);
  const problem = await fileCard(board, cardId);
  // held until the killed session has left the live set: a pass in between must not restore the card
  held.holdUntilGone(asmId);
  board.memo.links = boardLinks(board.ledger);
  board.log({ what: "board: END", card: cardId, asm_id: asmId, filed: problem === null });
  board.wake();
  return { ...result, card: { id: cardId, filed: problem === null, problem } };
}

/** A card's END: the session bound to it, through {@link endThroughCard}. */
export async function endCard(board: EndBoard, actions: ActionDeps, cardId: string): Promise<CardEndResult> {
  settleClaims(board);
  const asmId = linkOf(board.ledger, cardId)?.asmId ?? null;
  if (asmId === null) throw new ActionRefused("conflict", "this card has no session to end");
  return await endThroughCard(board, actions, asmId);
}
