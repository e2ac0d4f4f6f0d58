/**
 * A read never fails for one stored number too large to be a JavaScript number. node:sqlite throws for the WHOLE
 * statement when any cell of any row holds an integer beyond 2^53 (`ERR_OUT_OF_RANGE`), so one such value, put in
 * by an older asm or by hand, stopped every read that touched its row: the poll, the list, a session's page, each
 * transition of that session. Every value is now checked before it is stored (`bounds.ts`); this is the net
 * beneath: a SELECT that meets one is read again with 64-bit integers and each such cell read as null (no number
 * asm stores is that large, so the value means nothing), and the statement is reported once so a log line says so.
 *
 * The normal read pays one try block. Only `all` and `get` of a SELECT (or PRAGMA) are read again: a write is
 * never run twice. `iterate` is left as it is (asm iterates only over text).
 * @module
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";

/** node:sqlite's code for a stored integer beyond what a JavaScript number holds exactly. */
const TOO_LARGE = "ERR_OUT_OF_RANGE";

/** Only these are read again: they write nothing. */
const READS_ONLY = /^\s*(SELECT|PRAGMA)\b/i;

type Cell = unknown;
type RowShape = Record<string, Cell> | Cell[];

function isTooLarge(err: unknown): boolean {
  return err instanceof RangeError && (err as RangeError & { code?: string }).code === TOO_LARGE;
}

/** A row read with 64-bit integers, as numbers: one beyond 2^53 becomes null. */
function narrowed(row: RowShape): RowShape {
  const cell = (v: Cell) =>
    typeof v === "bigint"
      ? (v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : null)
      : v;
  if (Array.isArray(row)) return row.map(cell);
  for (const key of Object.keys(row)) row[key] = cell(row[key]);
  return row;
}

/** Gives `statement` the fallback; `met(sql)` is told each time a read needed it. */
function widen(statement: StatementSync, met: (sql: string) => void): StatementSync {
  const sql = statement.sourceSQL;
  if (!READS_ONLY.test(sql)) return statement;
  // the overloads (positional, or named first) taken as one: the parameters pass through untouched
  type Params = SQLInputValue[];
  const all = statement.all.bind(statement) as (...params: Params) => unknown[];
  const get = statement.get.bind(statement) as (...params: Params) => unknown;
  const wide = <T>(read: () => T): T => {
    statement.setReadBigInts(true);
    try {
      return read();
    } finally {
      // the statement is shared by every caller of its text (statement_cache.ts): back to numbers at once
      statement.setReadBigInts(false);
    }
  };
  const wideAll = (...params: Params) => {
    try {
      return all(...params);
    } catch (err) {
      if (!isTooLarge(err)) throw err;
      met(sql);
      return wide(() => all(...params).map((row) => narrowed(row as RowShape)));
    }
  };
  const wideGet = (...params: Params) => {
    try {
      return get(...params);
    } catch (err) {
      if (!isTooLarge(err)) throw err;
      met(sql);
      return wide(() => {
        const row = get(...params);
        return row === undefined ? row : narrowed(row as RowShape);
      });
    }
  };
  statement.all = wideAll as StatementSync["all"];
  statement.get = wideGet as StatementSync["get"];
  return statement;
}

/**
 * Makes every statement `db.prepare` compiles from now on read a number too large to be one as null instead of
 * failing, telling `met` the statement's SQL each time. Call it before `cacheStatements` (so a cached statement is
 * a widened one). Returns `db`.
 */
export function readWide(db: DatabaseSync, met: (sql: string) => void = () => {}): DatabaseSync {
  const compile = db.prepare.bind(db);
  db.prepare = (sql: string): StatementSync => widen(compile(sql), met);
  return db;
}
