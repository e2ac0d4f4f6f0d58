/**
 * The board's side of the ledger: the bindings between cards and sessions (`sprint_links`; never in the card)
 * and the facts the planner is given about sessions. Written only through here, by the process holding the
 * writer lock. The planner (`lib/reconcile/plan.ts`) is pure; the sweep reads these, plans, carries the actions
 * out on the board, and records each one here after its board write succeeded.
 *
 * A START or CONTINUE binds its card before it launches, when the session does not exist yet: the link's asm id
 * stays null until {@link bindLaunchedSessions} finds the session of the launch made for that card since.
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import { DB, type Ledger } from "./ledger.ts";
import { HIDDEN_REASON_SQL } from "./hidden.ts";
import type { Status } from "./transition.ts";
import { MINT_REFUSAL_SQL, type MintRefusal } from "./mint.ts";

/** A session the live set holds, as the planner needs it. */
export interface LiveSessionFacts {
  asmId: string;
  agent: string;
  /** Its title as the list shows it (a name, else the agent's title), or null while it has none. */
  title: string | null;
  /** Its project (becomes the card's project tag), or null. */
  project: string | null;
  /**
   * Positive evidence of an interactive session a person drives (typed prompts; not a sub-agent, a headless run
   * or an automation thread): only such a session is ever given a new card (the mint rule, `mint.ts`).
   */
  mintable: boolean;
  /** asm cannot prove its process (lib/liveness `unsure_reason`): a card bound to it is left alone. */
  unsure: boolean;
}

/** A binding between a card and a session, as the ledger keeps it (`sprint_links`); never in the card. */
export interface Link {
  cardId: string;
  asmId: string | null;
  /** How the binding came to be: `start`, `create`, `adopt`, `continue`, `resume`. */
  origin: string | null;
  /**
   * The title last written to the card or read from it while the two agreed: a card whose title differs from its
   * session's is renamed only when the SESSION's title moved away from this and the CARD's did not (so a title
   * retyped by hand in the outliner survives).
   */
  syncedTitle: string | null;
  dropped: boolean;
  completed: boolean;
  /**
   * END ended the card's session and has not filed the card to COMPLETE yet (its write met a busy board): a pass
   * finishes the filing instead of dropping the card. Cleared once filed, and by any rebind or restore.
   */
  filing: boolean;
}

type Row = Record<string, SQLInputValue>;

/** How a binding came to be. */
export type LinkOrigin = "start" | "create" | "adopt" | "continue" | "resume" | "restore";

/** A live or starting session as the planner is given it, with the reasons the page shows. */
export interface LiveSession extends LiveSessionFacts {
  status: "live" | "starting";
  /** Why the mint rule gives it no card (null: it may get one). */
  mintRefusal: MintRefusal | null;
  /** Why the list hides it (null: visible). */
  hiddenReason: string | null;
}

/** A session some link points at, as the page's board shows it. */
export interface LinkedSession {
  agent: string;
  status: Status;
  unsure_reason: string | null;
}

/** A visible driven session with no card, and why (the page's "not on the plan"). */
export interface UnboundLiveSession {
  asm_id: string;
  agent: string;
  title: string | null;
  /** The mint rule's word, or null when its card is on its way. */
  reason: MintRefusal | null;
}

/** What a bind records. */
export interface CardBinding {
  cardId: string;
  /** The session, or null while a START or CONTINUE waits for its launch's session. */
  asmId: string | null;
  origin: LinkOrigin;
  /** The card's title as the binder saw it (kept for the record; the planner reads the board). */
  title?: string | null;
  /**
   * The title card and session agree on (a created card's). Left out: kept when the card stays on the same
   * session (RESUME), else none (a START's or CONTINUE's card keeps its own title until the two agree).
   */
  syncedTitle?: string | null;
  at: string;
}

function toLink(r: Row): Link {
  return {
    cardId: String(r.node_id),
    asmId: r.asm_id === null ? null : String(r.asm_id),
    origin: r.origin as string | null,
    syncedTitle: r.synced_title as string | null,
    dropped: Number(r.dropped) === 1,
    completed: Number(r.completed) === 1,
    filing: Number(r.filing) === 1,
  };
}

/** Every link, in the order the cards were bound. */
export function boardLinks(ledger: Ledger): Link[] {
  const rows = ledger[DB].prepare(
    `SELECT node_id, asm_id, origin, synced_title, dropped, completed, filing FROM sprint_links
     ORDER BY bound_at, node_id`,
  ).all() as Row[];
  return rows.map(toLink);
}

/** One card's link, or null. */
export function linkOf(ledger: Ledger, cardId: string): Link | null {
  const row = ledger[DB].prepare(
    "SELECT node_id, asm_id, origin, synced_title, dropped, completed, filing FROM sprint_links WHERE node_id = ?",
  ).get(cardId) as Row | undefined;
  return row ? toLink(row) : null;
}

/**
 * Binds (or rebinds) a card: START, RESUME, CONTINUE, a created card, an adoption. A rebind clears the card's
 * dropped, completed and filing marks (it is back in IN PROCESS).
 */
export function bindCard(ledger: Ledger, binding: CardBinding): void {
  ledger[DB].write((db) => {
    const before = db.prepare("SELECT asm_id, synced_title FROM sprint_links WHERE node_id = ?").get(
      binding.cardId,
    ) as Row | undefined;
    // the title in sync belongs to a pair: the same session keeps it, another session starts without one (a
    // title kept from the predecessor would make a CONTINUE's card follow its successor's first prompt)
    const synced = binding.syncedTitle !== undefined
      ? binding.syncedTitle
      : before !== undefined && binding.asmId !== null && before.asm_id === binding.asmId
      ? before.synced_title as string | null
      : null;
    db.prepare(
      `INSERT INTO sprint_links (node_id, asm_id, origin, title, bound_at, dropped, completed, synced_title)
       VALUES ($node_id, $asm_id, $origin, $title, $at, 0, 0, $synced)
       ON CONFLICT (node_id) DO UPDATE SET asm_id = excluded.asm_id, origin = excluded.origin,
         title = COALESCE(excluded.title, sprint_links.title), bound_at = excluded.bound_at, dropped = 0,
         completed = 0, filing = 0, synced_title = excluded.synced_title`,
    ).run({
      node_id: binding.cardId,
      asm_id: binding.asmId,
      origin: binding.origin,
      title: binding.title ?? null,
      at: binding.at,
      synced,
    });
  });
}

/** Unbinds a card (DONE, or a START that failed): the link is gone. Returns whether there was one. */
export function unbindCard(ledger: Ledger, cardId: string): boolean {
  return ledger[DB].write((db) =>
    Number(db.prepare("DELETE FROM sprint_links WHERE node_id = ?").run(cardId).changes) > 0
  );
}

function update(ledger: Ledger, sql: string, params: Record<string, SQLInputValue>): boolean {
  return ledger[DB].write((db) => Number(db.prepare(sql).run(params).changes) > 0);
}

/** The card was dropped to the plan (rule 3 or 4): the binding stays, so RESUME can find its session. */
export function markDropped(ledger: Ledger, cardId: string, at: string): boolean {
  return update(
    ledger,
    "UPDATE sprint_links SET dropped = 1, dropped_at = $at WHERE node_id = $id",
    { id: cardId, at },
  );
}

/** The card was restored to IN PROCESS (rule 5): neither dropped nor completed any more. */
export function markRestored(ledger: Ledger, cardId: string): boolean {
  return update(
    ledger,
    "UPDATE sprint_links SET dropped = 0, completed = 0, filing = 0 WHERE node_id = $id",
    { id: cardId },
  );
}

/**
 * END ended the card's session and is about to file the card: should the filing not be written, a pass finishes
 * it (the card goes to COMPLETE, never dropped to the plan).
 */
export function markFiling(ledger: Ledger, cardId: string): boolean {
  return update(ledger, "UPDATE sprint_links SET filing = 1 WHERE node_id = $id", { id: cardId });
}

/** END filed the card to COMPLETE: the binding stays (a resumed session brings it back; an ended one never). */
export function markCompleted(ledger: Ledger, cardId: string, at: string): boolean {
  return update(
    ledger,
    "UPDATE sprint_links SET completed = 1, completed_at = $at, dropped = 0, filing = 0 WHERE node_id = $id",
    { id: cardId, at },
  );
}

/** The title card and session agree on (a rename written, or a `synced` action). */
export function setSyncedTitle(ledger: Ledger, cardId: string, title: string | null): boolean {
  return update(
    ledger,
    "UPDATE sprint_links SET synced_title = $title WHERE node_id = $id AND synced_title IS NOT $title",
    { id: cardId, title },
  );
}

// the session of the newest launch made for link `k`'s card since it was bound (a START's or a CONTINUE's):
// matched, or named by the token a hook event carried (the drain stores it on the session before the poll
// matches the launch); NULL while none has registered
const LAUNCHED_SESSION_SQL = `(SELECT COALESCE(l.matched_asm_id,
      (SELECT s.asm_id FROM sessions s WHERE s.launch_token = l.token ORDER BY s.started_at, s.asm_id LIMIT 1))
    FROM launches l
    WHERE l.sprint_node = k.node_id AND l.requested_at >= k.bound_at AND l.error IS NULL
      AND (l.matched_asm_id IS NOT NULL OR EXISTS (SELECT 1 FROM sessions s WHERE s.launch_token = l.token))
    ORDER BY l.requested_at DESC, l.token LIMIT 1)`;

/**
 * The session a card's START or CONTINUE launched, once it has registered: the newest launch made for the card
 * since its binding (an older launch, a predecessor's, is not it). Null while none has, or for a card not
 * waiting for one.
 */
export function launchedSessionOf(ledger: Ledger, cardId: string): string | null {
  const row = ledger[DB].prepare(
    `SELECT ${LAUNCHED_SESSION_SQL} AS asm_id FROM sprint_links k
     WHERE k.node_id = ? AND k.bound_at IS NOT NULL`,
  ).get(cardId) as Row | undefined;
  return row && row.asm_id !== null ? String(row.asm_id) : null;
}

/**
 * Binds each card whose START or CONTINUE is waiting (asm id still null) to the session its launch registered
 * ({@link launchedSessionOf}). Returns the bindings made.
 */
export function bindLaunchedSessions(ledger: Ledger): { cardId: string; asmId: string }[] {
  return ledger[DB].write((db) => {
    const rows = db.prepare(
      `SELECT k.node_id AS node_id, ${LAUNCHED_SESSION_SQL} AS asm_id FROM sprint_links k
       WHERE k.asm_id IS NULL AND k.origin IN ('start', 'continue') AND k.bound_at IS NOT NULL`,
    ).all() as Row[];
    const made = rows.filter((r) => r.asm_id !== null).map((r) => ({
      cardId: String(r.node_id),
      asmId: String(r.asm_id),
    }));
    const stmt = db.prepare("UPDATE sprint_links SET asm_id = ? WHERE node_id = ? AND asm_id IS NULL");
    for (const m of made) stmt.run(m.asmId, m.cardId);
    return made;
  });
}

/** The card bound to a session (END through any door files it), the newest binding first; null when none. */
export function cardOfSession(ledger: Ledger, asmId: string): string | null {
  const row = ledger[DB].prepare(
    "SELECT node_id FROM sprint_links WHERE asm_id = ? ORDER BY bound_at DESC, node_id LIMIT 1",
  ).get(asmId) as Row | undefined;
  return row ? String(row.node_id) : null;
}

const LIVE_SQL = `SELECT asm_id, agent, status, COALESCE(NULLIF(name, ''), title) AS title, project,
  unsure_reason, ${MINT_REFUSAL_SQL} AS mint_refusal, ${HIDDEN_REASON_SQL} AS hidden_reason
  FROM sessions WHERE status IN ('live', 'starting') ORDER BY started_at, asm_id`;

/**
 * The live set as the planner is given it: every live or starting session, hidden ones included (a card whose
 * bound session is present is kept whatever the rules think of it), oldest first, by asm id.
 */
export function liveSessionFacts(ledger: Ledger): Map<string, LiveSession> {
  const rows = ledger[DB].prepare(LIVE_SQL).all() as Row[];
  return new Map(rows.map((r) => {
    const refusal = r.mint_refusal as MintRefusal | null;
    const s: LiveSession = {
      asmId: String(r.asm_id),
      agent: String(r.agent),
      title: r.title as string | null,
      project: r.project as string | null,
      mintable: refusal === null,
      unsure: r.unsure_reason !== null,
      status: r.status as "live" | "starting",
      mintRefusal: refusal,
      hiddenReason: r.hidden_reason as string | null,
    };
    return [s.asmId, s];
  }));
}

/** The status of every session a link points at. */
export function linkedStatuses(ledger: Ledger): Map<string, Status> {
  return new Map([...linkedSessions(ledger)].map(([id, s]) => [id, s.status]));
}

/** Every session a link points at: its agent, status and doubt (the page's board). */
export function linkedSessions(ledger: Ledger): Map<string, LinkedSession> {
  const rows = ledger[DB].prepare(
    `SELECT s.asm_id, s.agent, s.status, s.unsure_reason FROM sessions s
     WHERE s.asm_id IN (SELECT asm_id FROM sprint_links WHERE asm_id IS NOT NULL)`,
  ).all() as Row[];
  return new Map(rows.map((r) => [String(r.asm_id), {
    agent: String(r.agent),
    status: r.status as Status,
    unsure_reason: r.unsure_reason as string | null,
  }]));
}

/**
 * The visible live sessions no link points at, each with the mint rule's reason: the page's "not on the plan"
 * (an unnamed session, a headless run, ...) and the ones whose card the next pass creates (reason null).
 */
export function unboundLiveSessions(ledger: Ledger): UnboundLiveSession[] {
  const rows = ledger[DB].prepare(
    `SELECT asm_id, agent, COALESCE(NULLIF(name, ''), title) AS title, ${MINT_REFUSAL_SQL} AS reason
     FROM sessions
     WHERE status IN ('live', 'starting') AND ${HIDDEN_REASON_SQL} IS NULL
       AND asm_id NOT IN (SELECT asm_id FROM sprint_links WHERE asm_id IS NOT NULL)
     ORDER BY started_at, asm_id`,
  ).all() as Row[];
  return rows.map((r) => ({
    asm_id: String(r.asm_id),
    agent: String(r.agent),
    title: r.title as string | null,
    reason: r.reason as MintRefusal | null,
  }));
}
