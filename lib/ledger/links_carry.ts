/**
 * The board's links as whole rows, for `./asm rebuild` to carry them from one ledger file to another. A link
 * (`sprint_links`) lives only in the ledger: no hook event and no transcript holds it, and the board file holds
 * card ids, never session ids. So a rebuild, which replaces the ledger with a snapshot and replays the retained
 * events, takes the links from the ledger it set aside (opened read-only) or from the snapshot, with the launches
 * made for cards (a launch from a card names it: `launches.sprint_node`) to bind a link still waiting for its
 * session, and writes the chosen set here.
 *
 * The reads take a `DatabaseSync`, so the same SQL reads the rebuilt ledger and a set-aside file opened
 * read-only (lib/ledger `openReadOnly`); columns a ledger of an older schema lacks read as their default.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { DB, type Ledger } from "./ledger.ts";

type Row = Record<string, SQLInputValue>;

/** A link as the ledger stores it, every column. */
export interface StoredLink {
  cardId: string;
  asmId: string | null;
  origin: string | null;
  title: string | null;
  boundAt: string | null;
  dropped: boolean;
  droppedAt: string | null;
  completed: boolean;
  completedAt: string | null;
  syncedTitle: string | null;
  filing: boolean;
}

/** A launch made for a card (START, RESUME, CONTINUE WITH), as a rebuild needs it. */
export interface LaunchForCard {
  token: string;
  cardId: string;
  requestedAt: string;
  /** its session in the same ledger: matched, else the session that carried its token; null while none has */
  asmId: string | null;
}

/** What one ledger file says of the board: its links and the launches made for cards. */
export interface CardLinkSource {
  links: StoredLink[];
  launches: LaunchForCard[];
}

/** The columns of `table` (none when the table does not exist). */
function columnsOf(db: DatabaseSync, table: string): Set<string> {
  const rows = db.prepare(`PRAGMA table_info(${table})`).all() as Row[];
  return new Set(rows.map((r) => String(r.name)));
}

/** `column`, or `fallback AS column` when a ledger of an older schema does not have it yet. */
function column(have: Set<string>, column: string, fallback: string): string {
  return have.has(column) ? column : `${fallback} AS ${column}`;
}

const text = (
  v: SQLInputValue | undefined,
): string | null => (v === null || v === undefined ? null : String(v));

/**
 * The links and card launches in `db`. Throws SQLite's error when the file cannot be read, and a sentence when it
 * has no `sprint_links` table (it is not a ledger).
 */
export function cardLinkSourceOf(db: DatabaseSync): CardLinkSource {
  const have = columnsOf(db, "sprint_links");
  if (!have.has("node_id")) throw new Error("it has no sprint_links table, so it is not a ledger asm wrote");
  const linkRows = db.prepare(
    `SELECT node_id, asm_id, origin, title, bound_at, dropped, dropped_at, completed, completed_at,
       ${column(have, "synced_title", "NULL")}, ${column(have, "filing", "0")}
     FROM sprint_links ORDER BY bound_at, node_id`,
  ).all() as Row[];
  const links = linkRows.map((r): StoredLink => ({
    cardId: String(r.node_id),
    asmId: text(r.asm_id),
    origin: text(r.origin),
    title: text(r.title),
    boundAt: text(r.bound_at),
    dropped: Number(r.dropped) === 1,
    droppedAt: text(r.dropped_at),
    completed: Number(r.completed) === 1,
    completedAt: text(r.completed_at),
    syncedTitle: text(r.synced_title),
    filing: Number(r.filing) === 1,
  }));
  const launchCols = columnsOf(db, "launches");
  // a launch whose window never opened made no session; the session of one that did: matched, or named by the
  // token a hook event carried (lib/ledger links.ts' rule for a card's launched session)
  const launchRows = db.prepare(
    `SELECT l.token, l.sprint_node, l.requested_at, COALESCE(l.matched_asm_id,
       (SELECT s.asm_id FROM sessions s WHERE s.launch_token = l.token ORDER BY s.started_at, s.asm_id LIMIT 1))
       AS asm_id
     FROM launches l WHERE l.sprint_node IS NOT NULL AND ${launchCols.has("error") ? "l.error IS NULL" : "1"}
     ORDER BY l.requested_at, l.token`,
  ).all() as Row[];
  const launches = launchRows.map((r): LaunchForCard => ({
    token: String(r.token),
    cardId: String(r.sprint_node),
    requestedAt: String(r.requested_at),
    asmId: text(r.asm_id),
  }));
  return { links, launches };
}

/**
 * `PRAGMA quick_check` of each of `tables` (its b-tree and its indexes): null when all are sound, else what
 * SQLite found (the first few lines). A set-aside ledger is read only when the tables read from it pass.
 */
export function tablesProblem(db: DatabaseSync, tables: readonly string[]): string | null {
  for (const table of tables) {
    const rows = db.prepare(`PRAGMA quick_check(${table})`).all() as Row[];
    const found = rows.map((r) => String(Object.values(r)[0]));
    if (found.length !== 1 || found[0] !== "ok") return `${table}: ${found.slice(0, 3).join("; ")}`;
  }
  return null;
}

/** The links and card launches of this ledger. */
export function cardLinkSource(ledger: Ledger): CardLinkSource {
  return cardLinkSourceOf(ledger[DB].db);
}

/** The sessions this ledger knows by the launch token they carried (the oldest such session for each token). */
export function sessionsOfLaunchTokens(ledger: Ledger): Map<string, string> {
  const rows = ledger[DB].prepare(
    `SELECT launch_token, asm_id FROM sessions WHERE launch_token IS NOT NULL
     ORDER BY started_at DESC, asm_id DESC`,
  ).all() as Row[];
  // newest first, so the oldest one is set last and wins
  return new Map(rows.map((r) => [String(r.launch_token), String(r.asm_id)]));
}

/** Replaces every link with `links`, in one transaction (the rebuild's chosen set). */
export function replaceCardLinks(ledger: Ledger, links: readonly StoredLink[]): void {
  ledger[DB].write((db) => {
    db.prepare("DELETE FROM sprint_links").run();
    const insert = db.prepare(
      `INSERT INTO sprint_links (node_id, asm_id, origin, title, bound_at, dropped, dropped_at, completed,
         completed_at, synced_title, filing)
       VALUES ($node_id, $asm_id, $origin, $title, $bound_at, $dropped, $dropped_at, $completed, $completed_at,
         $synced_title, $filing)`,
    );
    for (const l of links) {
      insert.run({
        node_id: l.cardId,
        asm_id: l.asmId,
        origin: l.origin,
        title: l.title,
        bound_at: l.boundAt,
        dropped: l.dropped ? 1 : 0,
        dropped_at: l.droppedAt,
        completed: l.completed ? 1 : 0,
        completed_at: l.completedAt,
        synced_title: l.syncedTitle,
        filing: l.filing ? 1 : 0,
      });
    }
  });
}
