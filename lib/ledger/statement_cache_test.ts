import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { cacheStatements } from "./statement_cache.ts";

function counted(limit?: number): { db: DatabaseSync; compiled: () => number } {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (x INTEGER)");
  let compiled = 0;
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => {
    compiled++;
    return prepare(sql);
  };
  cacheStatements(db, limit);
  return { db, compiled: () => compiled };
}

Deno.test("the same SQL text is compiled once and answers every call", () => {
  const { db, compiled } = counted();
  db.prepare("INSERT INTO t VALUES (?)").run(1);
  db.prepare("INSERT INTO t VALUES (?)").run(2);
  assert.equal(db.prepare("SELECT COUNT(*) AS n FROM t").get()?.n, 2);
  assert.equal(db.prepare("SELECT COUNT(*) AS n FROM t").get()?.n, 2);
  assert.equal(compiled(), 2);
  assert.equal(db.prepare("SELECT x FROM t"), db.prepare("SELECT x FROM t"));
  db.close();
});

Deno.test("a shared statement's get holds no read open: another connection's write is seen at once", () => {
  const path = Deno.makeTempFileSync({ suffix: ".sqlite" });
  const db = cacheStatements(new DatabaseSync(path));
  db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3)");
  const other = new DatabaseSync(path);
  try {
    // get() reads one row of three: a statement left stepping would pin this connection's snapshot
    assert.equal(db.prepare("SELECT x FROM t ORDER BY x").get()?.x, 1);
    other.exec("INSERT INTO t VALUES (4)");
    assert.equal(db.prepare("SELECT COUNT(*) AS n FROM t").get()?.n, 4);
    assert.equal(db.prepare("SELECT x FROM t ORDER BY x").get()?.x, 1);
  } finally {
    other.close();
    db.close();
    Deno.removeSync(path);
  }
});

Deno.test("past the limit the least recently used text is dropped and compiled again when asked", () => {
  const { db, compiled } = counted(2);
  db.prepare("SELECT 1");
  db.prepare("SELECT 2");
  db.prepare("SELECT 1"); // now "SELECT 2" is the least recently used
  db.prepare("SELECT 3"); // drops "SELECT 2"
  assert.equal(compiled(), 3);
  db.prepare("SELECT 1");
  db.prepare("SELECT 3");
  assert.equal(compiled(), 3);
  db.prepare("SELECT 2");
  assert.equal(compiled(), 4);
  db.close();
});
