/**
 * A snapshot of the ledger file through a connection of its own, read-only (the server's snapshot Worker uses
 * it, so a large ledger is copied off the event loop). SQLite's `VACUUM INTO` writes one consistent copy of what a
 * reader sees, the WAL's committed frames included, into a plain database file.
 * @module
 */
import { DatabaseSync } from "node:sqlite";

/**
 * Copies the ledger at `source` into `target`: an empty file the caller created (with the mode it wants) or
 * none. Throws SQLite's error when either cannot be opened or written.
 */
export function snapshotLedgerFile(source: string, target: string): void {
  const db = new DatabaseSync(source, { readOnly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.prepare("VACUUM INTO ?").run(target);
  } finally {
    db.close();
  }
}
