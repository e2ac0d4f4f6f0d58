/**
 * The 5-second payload of `GET /api/live`: the live ids, each one's status, activity word, reason, freshness and
 * context tokens, the board's digest, and a revision that moves only when one of those displayed facts changed, so
 * a page that polls it repaints nothing on a quiet tick. Null stays null: no activity reading and no context
 * reading are states.
 * @module
 */
import { type Ledger, type LiveRow, pendingLaunches, type Status } from "../ledger/mod.ts";
import { activityWord } from "./words.ts";

/** One live session as the page shows it. */
export interface LiveSessionView {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  status: Status;
  name: string | null;
  /** The stored key (`working`, `stalled`, ...), or null when there is no reading. */
  activity: string | null;
  /** The word a person reads (`Working`, `Needs attention`, ...), or null. */
  activity_word: string | null;
  activity_reason: string | null;
  /** When the evidence behind the activity last changed (the page shows how fresh it is). */
  activity_at: string | null;
  context_tokens: number | null;
  /** Why the row is hidden from the default list; only present in `?all=1` answers. */
  hidden_reason: string | null;
  /** Why asm cannot prove the session's process (the page reads UNSURE, not LIVE); null when it can. */
  unsure_reason: string | null;
  /** A pane proven to hold its process: the list offers Jump and Send (asm refuses them otherwise). */
  pane: boolean;
  /** The list's cells of this session, patched in place as they move (context as a share of this window). */
  context_window: number | null;
  turns: number | null;
  last_seen: string | null;
  project: string | null;
  closeout: string | null;
  /** Turns, project and closeout are being derived (null above): the page writes "deriving" into their cells. */
  deriving: boolean;
}

/** A launch still waiting for its session (its window is open; the agent may be showing its own dialog). */
export interface PendingLaunchView {
  token: string;
  agent: string;
  folder: string;
  name: string | null;
  /** The agent's own dialog the person must answer in the window first (trust, onboarding), or null. */
  waiting_reason: string | null;
  requested_at: string;
}

/** The body of `GET /api/live`. */
export interface LivePayload {
  /** Moves only when a displayed fact of these sessions changed. */
  revision: number;
  /** The server's clock, for ages computed at paint time. */
  now: string;
  /** The asm ids that are live or starting, in the order of `sessions`. */
  live: string[];
  sessions: LiveSessionView[];
  /** Launches not yet matched to a session: "Starting", or "Waiting on you" with the dialog they wait on. */
  launches: PendingLaunchView[];
  /**
   * A hash of the board as the server believes it (lists, positions, links, claims, its problem; no read of the
   * outliner): the page refetches `GET /api/sprint` when it moves. Null while the board is off.
   */
  board_digest: string | null;
  /**
   * What the list shows of the sessions that are not live, as a key (lib/ledger `listDigest`): the page fetches
   * the list again when it moves (a row the import or a hook added, one that ended or changed).
   */
  list_digest: string | null;
}

/** Pure: the rows as the page shows them. */
export function liveViews(
  rows: readonly LiveRow[],
  panes: ReadonlySet<string> = new Set(),
): LiveSessionView[] {
  return rows.map((r) => ({
    pane: panes.has(r.asm_id),
    asm_id: r.asm_id,
    agent: r.agent,
    agent_session_id: r.agent_session_id,
    status: r.status,
    name: r.name,
    activity: r.activity,
    activity_word: activityWord(r.activity),
    activity_reason: r.activity_reason,
    activity_at: r.activity_at,
    context_tokens: r.context_tokens,
    hidden_reason: r.hidden_reason,
    unsure_reason: r.unsure_reason,
    context_window: r.context_window,
    turns: r.turns,
    last_seen: r.last_seen,
    project: r.project,
    closeout: r.closeout,
    deriving: r.deriving,
  }));
}

/** A revision counter: it moves when, and only when, the displayed facts differ from the last ones seen. */
export class LiveRevision {
  #facts: string | null = null;
  #revision = 0;

  /** The revision for these facts (the first call is revision 1). */
  observe(
    views: readonly LiveSessionView[],
    launches: readonly PendingLaunchView[] = [],
    boardDigest: string | null = null,
    listDigest: string | null = null,
  ): number {
    const facts = JSON.stringify([views, launches, boardDigest, listDigest]);
    if (facts !== this.#facts) {
      this.#facts = facts;
      this.#revision++;
    }
    return this.#revision;
  }
}

/**
 * The payload for these rows (and pending launches, and the board's digest) at `now`, with the revision
 * `revision` gives it.
 */
export function livePayload(
  rows: readonly LiveRow[],
  now: string,
  revision: LiveRevision,
  launches: readonly PendingLaunchView[] = [],
  boardDigest: string | null = null,
  listDigest: string | null = null,
  panes: ReadonlySet<string> = new Set(),
): LivePayload {
  const sessions = liveViews(rows, panes);
  return {
    revision: revision.observe(sessions, launches, boardDigest, listDigest),
    now,
    live: sessions.map((s) => s.asm_id),
    sessions,
    launches: [...launches],
    board_digest: boardDigest,
    list_digest: listDigest,
  };
}

/** The launches still waiting for their session, as the page shows them. */
export function pendingLaunchViews(ledger: Ledger): PendingLaunchView[] {
  return pendingLaunches(ledger).map((l) => ({
    token: l.token,
    agent: l.agent,
    folder: l.cwd,
    name: l.name,
    waiting_reason: l.waiting_reason,
    requested_at: l.requested_at,
  }));
}
