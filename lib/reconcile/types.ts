/**
 * The reconciler's contract: what the pure planner is given (the live set, the board as read, the links, the
 * claims, the agents) and the actions it returns. The planner (`plan.ts`) has no I/O and no clock; the sweep
 * (`sweep.ts`) gathers these facts and carries the actions out in the spec's write orders; the buttons
 * (`buttons.ts`) take claims before they move anything.
 * @module
 */
import type { Card, ListRole } from "../board/protocol.ts";
import type { Link, LiveSessionFacts } from "../ledger/mod.ts";

// the ledger keeps the links and gathers the live set; the planner takes them as they are
export type { Link, LiveSessionFacts };

/** A finished session a link points at: what restore and the ended-card rule need to know. */
export interface SessionStatusFacts {
  asmId: string;
  status: "starting" | "live" | "ended" | "lost" | "killed";
}

/** The claims outstanding (memory only): the planner skips a claimed card in every pass. */
export interface ClaimView {
  /** Every card some button holds a claim on. */
  claimed: ReadonlySet<string>;
  /** The cards whose END is under way (a drop re-checks these at the last moment). */
  ending: ReadonlySet<string>;
}

/** An agent as the board knows it: its name and the tag its cards wear. */
export interface BoardAgent {
  name: string;
  tag: string;
}

/** Everything one plan is made from. */
export interface PlanInput {
  /** The sessions live or starting, by asm id. */
  live: ReadonlyMap<string, LiveSessionFacts>;
  /** The status of every session a link points at (live ones included). */
  statuses: ReadonlyMap<string, SessionStatusFacts["status"]>;
  /** The board as read (cards with ids only: an id-less card is identified first). */
  board: Record<ListRole, Card[]>;
  links: readonly Link[];
  claims: ClaimView;
  agents: readonly BoardAgent[];
}

/** What the planner decides; the sweep carries each out in the spec's write order. */
export type Action =
  /** Rule 1: a driven session with a title and no card gets one in IN PROCESS, tagged with its agent. */
  | { kind: "create"; asmId: string; name: string }
  /** Rule 4: an unbound IN PROCESS card plainly matching exactly one unclaimed driven session: a binding only. */
  | { kind: "adopt"; cardId: string; asmId: string }
  /** Rule 2: a bound card whose title or agent tag disagrees with its driven session (project and #dropped kept). */
  | { kind: "rename"; cardId: string; asmId: string; name: string; syncedTitle: string }
  /** Rules 3 and 4: to SPRINT PLAN with #dropped; the binding (when there is one) stays. */
  | { kind: "drop"; cardId: string }
  /** Rule 5: a #dropped or completed card whose bound session is driven again: untag, move to IN PROCESS. */
  | { kind: "restore"; cardId: string; asmId: string }
  /** END's filing, finished: a card whose END could not write it (a busy board) goes to COMPLETE, untagged. */
  | { kind: "file"; cardId: string }
  /** A bound card and its session agree on a title the link does not hold yet: the link learns it (store only). */
  | { kind: "synced"; cardId: string; title: string };
