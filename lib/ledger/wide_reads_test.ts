import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { readWide } from "./wide_reads.ts";
import { cacheStatements } from "./statement_cache.ts";

function world() {
  const met: string[] = [];
  const db = cacheStatements(readWide(new DatabaseSync(":memory:"), (sql) => met.push(sql)));
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, label TEXT)");
  const insert = db.prepare("INSERT INTO t (id, n, label) VALUES (?, ?, ?)");
  insert.run(1, 7, "small");
  insert.run(2, 2n ** 62n, "huge");
  insert.run(3, -(2n ** 62n), "huge below");
  insert.run(4, Number.MAX_SAFE_INTEGER, "the largest exact");
  return { db, met, [Symbol.dispose]: () => db.close() };
}

Deno.test("a read that meets a number beyond 2^53 answers every row, that value as null, and says so", () => {
  using w = world();
  const rows = w.db.prepare("SELECT id, n, label FROM t ORDER BY id").all();
  assert.deepEqual(rows.map((r) => ({ ...r })), [
    { id: 1, n: 7, label: "small" },
    { id: 2, n: null, label: "huge" },
    { id: 3, n: null, label: "huge below" },
    { id: 4, n: Number.MAX_SAFE_INTEGER, label: "the largest exact" },
  ]);
  assert.deepEqual(w.met, ["SELECT id, n, label FROM t ORDER BY id"]);
  // get, and arrays, read the same way
  assert.deepEqual({ ...w.db.prepare("SELECT * FROM t WHERE id = ?").get(2) }, {
    id: 2,
    n: null,
    label: "huge",
  });
  assert.equal(w.met.length, 2);
});

Deno.test("the statement reads plain numbers again afterwards, for every caller of its text", () => {
  using w = world();
  const sql = "SELECT id, n FROM t WHERE id = ?";
  assert.deepEqual({ ...w.db.prepare(sql).get(2) }, { id: 2, n: null });
  const small = w.db.prepare(sql).get(1)!;
  assert.equal(typeof small.id, "number");
  assert.equal(typeof small.n, "number");
});

Deno.test("a read that meets no such number is the plain read, and nothing is said", () => {
  using w = world();
  assert.deepEqual({ ...w.db.prepare("SELECT n FROM t WHERE id = 1").get() }, { n: 7 });
  assert.deepEqual(w.met, []);
});

Deno.test("a write is never run twice: only SELECT and PRAGMA are read again", () => {
  using w = world();
  w.db.exec("CREATE TABLE log (n INTEGER)");
  // a write that returns what it wrote throws for the number, and must not be applied again
  const write = w.db.prepare("INSERT INTO log (n) SELECT n FROM t WHERE id = 2 RETURNING n");
  assert.throws(() => write.get(), RangeError);
  const count = w.db.prepare("SELECT COUNT(*) AS c FROM log").get()!;
  assert.equal(count.c, 1);
  assert.deepEqual(w.met, []);
});
