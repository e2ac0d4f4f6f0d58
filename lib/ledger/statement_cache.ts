/**
 * One compiled statement per SQL text and connection. Deno 2.9's node:sqlite frees a statement's native memory
 * (SQLite's compiled program, a few KB to tens of KB) only when V8 collects the statement's small JavaScript
 * object, and V8 does not count that memory, so statements compiled per request pile up outside the heap between
 * collections: 20 clients on `/api/live` took the server to 2.4 GB resident with a 14 MB heap (decisions.md).
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** Statements kept per connection: asm's ledger code has well under a hundred SQL texts. */
export const STATEMENTS_KEPT = 256;

/**
 * Makes `db.prepare` answer the same compiled statement for the same SQL text, keeping at most `limit` (the least
 * recently used goes first; a text built from a varying count of `?` cannot grow it without bound). Callers of
 * one text share its statement: `all`, `get` and `run` each finish (and reset) it, but a statement's settings
 * (`setReturnArrays`) hold for every caller of that text, and an `iterate()` in progress is reset by the next use
 * of its text.
 */
export function cacheStatements(db: DatabaseSync, limit: number = STATEMENTS_KEPT): DatabaseSync {
  const compile = db.prepare.bind(db);
  const kept = new Map<string, StatementSync>();
  db.prepare = (sql: string): StatementSync => {
    const hit = kept.get(sql);
    if (hit) {
      // a Map keeps insertion order: moved to the end, the first key is always the least recently used
      kept.delete(sql);
      kept.set(sql, hit);
      return hit;
    }
    const statement = compile(sql);
    kept.set(sql, statement);
    if (kept.size > limit) kept.delete(kept.keys().next().value!);
    return statement;
  };
  return db;
}
