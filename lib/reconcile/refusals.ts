/**
 * Why each of a card's five buttons would not act, as the sentence the page shows (null: it would act). Pure, one
 * definition: `GET /api/sprint` draws the buttons from it and every button checks it again at the press, so the
 * page and the press can never disagree. What only the press can find out (a process asm cannot prove, a folder
 * that is gone, an agent not on PATH) comes from the launch and END code then, as their own sentences.
 * @module
 */
import type { ListRole } from "../board/protocol.ts";

/** A session status as the ledger has it. */
export type SessionStatus = "starting" | "live" | "ended" | "lost" | "killed";

/** What the refusals are decided from, for one card. */
export interface CardFacts {
  list: ListRole;
  /** The card wears #dropped (or its link says it was dropped). */
  dropped: boolean;
  /** The bound session, or null (never started, or unbound by DONE). */
  asmId: string | null;
  /** The bound session's status, or null when the ledger has no such row. */
  status: SessionStatus | null;
  /** Why asm cannot prove the bound session's process, or null. */
  unsureReason: string | null;
  /** Some button holds a claim on the card. */
  claimed: boolean;
  /** The claim is END's, held until the killed session has left the live set. */
  ending: boolean;
  /** The bound session's agent is a shared binary: the sentence END refuses with, or null. */
  shared: string | null;
}

/** Each button's refusal (null: it would act). */
export interface Refusals {
  start: string | null;
  resume: string | null;
  continue: string | null;
  done: string | null;
  end: string | null;
}

/** The button a refusal belongs to. */
export type Button = keyof Refusals;

const BUSY =
  "asm is already acting on this card (a button was pressed a moment ago); try again in a few seconds";
const NEVER_STARTED = "this card never had a session; START it";

function running(status: SessionStatus | null): boolean {
  return status === "live" || status === "starting";
}

/** The five refusals of one card. */
export function refusalsOf(card: CardFacts): Refusals {
  const open = card.asmId !== null && running(card.status);
  return {
    start: card.list === "process"
      ? "this card is already in IN PROCESS"
      : card.asmId !== null
      ? "this card already has a session: RESUME it with the same agent, or CONTINUE WITH another one"
      : card.claimed
      ? BUSY
      : null,
    resume: card.asmId === null
      ? NEVER_STARTED
      : open
      ? "its session is still running; jump to its window instead"
      : card.claimed
      ? BUSY
      : null,
    continue: card.asmId === null
      ? NEVER_STARTED
      : open
      ? "its session is still running; END it before another agent takes over"
      : card.claimed
      ? BUSY
      : null,
    done: open
      ? "its session is still open; END it first"
      : card.ending
      ? "its session is still closing after END; DONE works once it has left the live set, in a few seconds"
      : card.list === "complete" && card.asmId === null && !card.dropped
      ? "this card is done already"
      : card.claimed
      ? BUSY
      : null,
    end: card.asmId === null
      ? "this card has no session to end"
      : !open
      ? `its session is not running (it is ${card.status ?? "unknown to asm"})`
      : card.shared !== null
      ? card.shared
      // a live session asm cannot see is ended without a signal (lib/launch `endSession`); a starting one waits
      : card.unsureReason !== null && card.status === "starting"
      ? "its session is still starting and asm cannot see its process yet; END works once it is live"
      : card.claimed
      ? BUSY
      : null,
  };
}
