/**
 * The ledger opened read-only, for commands that only look (`./asm sessions`). A reader needs no writer lock:
 * in WAL mode it sees the last committed state while a server writes. It never creates or migrates the file.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { type SessionView, sessionViewsOf } from "./derived.ts";
import { LedgerError } from "./ledger.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import { type CardLinkSource, cardLinkSourceOf, tablesProblem } from "./links_carry.ts";
import { readWide } from "./wide_reads.ts";

/** A read-only view of a ledger file. */
export interface ReadOnlyLedger {
  schemaVersion: number;
  /** The visible sessions, or every row with `all`, newest first. */
  sessions(options?: { all?: boolean }): SessionView[];
  /** Per agent: its rows, and the newest hook event the ledger took from it (`asm doctor`). */
  agentCounts(): AgentCounts[];
  /** The board's links and the launches made for cards (`./asm rebuild`, from the ledger it set aside). */
  cardLinks(): CardLinkSource;
  /** What `PRAGMA quick_check` finds wrong in these tables, or null when they are sound. */
  tablesProblem(tables: readonly string[]): string | null;
  close(): void;
}

/** One agent's rows in the ledger and its newest hook event. */
export interface AgentCounts {
  agent: string;
  sessions: number;
  /** The newest event's name and when the hook stamped it (ISO-8601); null when none came. */
  last_event: string | null;
  last_event_at: string | null;
}

function agentCountsOf(db: DatabaseSync): AgentCounts[] {
  const counts = new Map<string, AgentCounts>();
  const rows = db.prepare("SELECT agent, count(*) AS n FROM sessions GROUP BY agent").all() as {
    agent: string;
    n: number;
  }[];
  for (const r of rows) {
    counts.set(r.agent, { agent: r.agent, sessions: r.n, last_event: null, last_event_at: null });
  }
  // SQLite gives the bare columns of the row max() picked
  const events = db.prepare("SELECT agent, event, max(ts) AS ts FROM events GROUP BY agent").all() as {
    agent: string;
    event: string;
    ts: string;
  }[];
  for (const e of events) {
    const c = counts.get(e.agent) ?? { agent: e.agent, sessions: 0, last_event: null, last_event_at: null };
    counts.set(e.agent, { ...c, last_event: e.event, last_event_at: e.ts });
  }
  return [...counts.values()];
}

/**
 * Opens `path` read-only; null when there is no ledger there yet. Throws LedgerError when the file was written by
 * an older asm (run the server or `./asm import` once to migrate it) or a newer one.
 */
export function openReadOnly(path: string): ReadOnlyLedger | null {
  try {
    if (!Deno.statSync(path).isFile) return null;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  // a stored number too large to be one is shown empty rather than failing the command (the server logs it)
  const db = readWide(new DatabaseSync(path, { readOnly: true }));
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
      | { value: string }
      | undefined;
    const version = row ? Number(row.value) : 0;
    if (version < 2) {
      throw new LedgerError(
        `the ledger at ${path} is from an older asm (schema ${version}); run asm import or asm serve once ` +
          "to update it",
      );
    }
    if (version > SCHEMA_VERSION) {
      throw new LedgerError(
        `the ledger at ${path} has schema version ${version}, newer than this asm (${SCHEMA_VERSION}); update asm`,
      );
    }
    return {
      schemaVersion: version,
      sessions: (options = {}) => sessionViewsOf(db, options),
      agentCounts: () => agentCountsOf(db),
      cardLinks: () => cardLinkSourceOf(db),
      tablesProblem: (tables) => tablesProblem(db, tables),
      close: () => db.close(),
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
