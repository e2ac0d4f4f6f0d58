/**
 * The drain's health, for the server's health model: a pure judge ({@link judgePass}) takes what one pass did and
 * the memory of the passes before it, and returns the new memory; the drain (the shell) gathers the facts.
 * @module
 */
import { isoAt } from "../ledger/mod.ts";

/** Passes in a row whose backlog did not shrink while files kept failing, after which the drain is not ok. */
export const STALL_PASSES = 3;

/** How the drain is doing, as the server's health model reads it. */
export interface DrainHealth {
  /** when the last pass ended (or found it could not run), ISO UTC; null before the first */
  last_pass_at: string | null;
  /** when the last pass that ran to the end (every file handled or left for the next pass) ended */
  last_good_pass_at: string | null;
  /** files waiting in the inbox at the end of the last pass (skipped names not counted) */
  backlog: number;
  /** files moved to `rejected/` since the server started */
  rejected_total: number;
  /**
   * names skipped because they could not even be moved aside (see server.log for each): each pass tries a few of
   * them again, so this falls back to 0 by itself once their cause is fixed
   */
  remembered: number;
  /** what is wrong, as a sentence a person reads; null when nothing is */
  last_error: string | null;
  /**
   * false when the last pass could not run at all, when the backlog has not shrunk for {@link STALL_PASSES}
   * passes while files kept failing (a full disk), or while any name is skipped
   */
  ok: boolean;
}

/** What one pass did, as the judge needs it. */
export interface PassFacts {
  /** when the pass ended (epoch ms) */
  at: number;
  /** false: the pass could not run at all (the inbox could not be listed) */
  ran: boolean;
  backlog: number;
  /** files this pass moved to `rejected/` */
  rejected: number;
  /** files that failed this pass and stay in the inbox for the next (a first parse failure, a write error) */
  failing: number;
  /** names skipped, now (after this pass tried some again) */
  remembered: number;
  /** the pass's own failure or its latest write error, else a note about the skipped names, else null */
  error: string | null;
}

/** What the judge remembers between passes. */
export interface DrainMemory {
  health: DrainHealth;
  /** passes in a row whose backlog did not shrink while files failed */
  stalledPasses: number;
}

/** The memory before the first pass. */
export function newDrainMemory(): DrainMemory {
  return {
    health: {
      last_pass_at: null,
      last_good_pass_at: null,
      backlog: 0,
      rejected_total: 0,
      remembered: 0,
      last_error: null,
      ok: true,
    },
    stalledPasses: 0,
  };
}

/** The memory after one more pass. Pure. */
export function judgePass(before: DrainMemory, pass: PassFacts): DrainMemory {
  const at = isoAt(pass.at);
  const prev = before.health;
  // a pass that could not list the inbox knows nothing about the backlog: the last count stands
  const backlog = pass.ran ? pass.backlog : prev.backlog;
  const stalled = pass.ran && pass.failing > 0 && backlog > 0 && backlog >= prev.backlog;
  const stalledPasses = stalled ? before.stalledPasses + 1 : pass.ran ? 0 : before.stalledPasses;
  return {
    health: {
      last_pass_at: at,
      last_good_pass_at: pass.ran ? at : prev.last_good_pass_at,
      backlog,
      rejected_total: prev.rejected_total + pass.rejected,
      remembered: pass.remembered,
      last_error: pass.error,
      ok: pass.ran && stalledPasses < STALL_PASSES && pass.remembered === 0,
    },
    stalledPasses,
  };
}
