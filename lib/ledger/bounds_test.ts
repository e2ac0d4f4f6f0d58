import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  bootIdProblem,
  EARLIEST_TS,
  hookMsProblem,
  idProblem,
  launchTokenProblem,
  pathProblem,
  PID_MAX,
  pidProblem,
  RUN_IN_RANGE_SQL,
  runInRange,
  shown,
  textProblem,
  ticksProblem,
  timeProblem,
  tokensProblem,
  wordProblem,
} from "./bounds.ts";
import { mintToken } from "../launch/token.ts";

const NOW = Date.parse("2026-11-29T22:00:00.000Z");

/** Each check, with values it lets in and values it keeps out. */
const TABLE: [string, (value: unknown) => string | null, unknown[], unknown[]][] = [
  ["pid", pidProblem, [1, 4242, PID_MAX], [0, -1, PID_MAX + 1, 2 ** 62, 1.5, "4242", null, NaN, Infinity]],
  ["start ticks", ticksProblem, [0, 51082, Number.MAX_SAFE_INTEGER], [-1, 2 ** 53, 2 ** 62, 0.5, "1", NaN]],
  [
    "boot id",
    bootIdProblem,
    ["0b3c6f3e-1e0b-4c5e-9d8e-2f5b6c7d8e9f", "boot-1", "b"],
    ["", "../../etc", "a".repeat(65), "boot id", "b\n", 7],
  ],
  ["launch token", launchTokenProblem, ["asmlt_abc123", mintToken()], [
    "asmlt_",
    "asmlt_ABC",
    "x",
    "asmlt_a b",
  ]],
  [
    "path",
    pathProblem,
    ["/", "/home/user/project", `/${"é".repeat(2047)}`],
    ["relative/x", "", "/a\0b", `/${"a".repeat(4096)}`, `/${"é".repeat(2048)}`, 7],
  ],
  ["id", idProblem, ["e1", "a".repeat(256)], ["", "a".repeat(257), "a\nb", "a\u007fb", 12]],
  ["word", wordProblem, ["SessionStart", "a".repeat(128)], ["", "a".repeat(129), "Stop\r", null]],
  ["text", textProblem, ["", "a title\nwith a line", "a".repeat(4096)], ["a".repeat(4097), "a\0", 3]],
  ["tokens", tokensProblem, [0, 1_000_000, 1e9], [-1, 1e9 + 1, 2 ** 62, 1.5, "10"]],
  ["hook ms", hookMsProblem, [0, 12.5, 86_400_000], [-1, 86_400_001, Infinity, NaN, "12"]],
];

Deno.test("each range lets in what the kernel and the agents write, and keeps out the rest", () => {
  for (const [name, problem, inside, outside] of TABLE) {
    for (const value of inside) assert.equal(problem(value), null, `${name}: ${shown(value)} is in range`);
    for (const value of outside) {
      assert.equal(typeof problem(value), "string", `${name}: ${shown(value)} is out of range`);
    }
  }
});

Deno.test("a moment is believed from 2000 to a day after the clock", () => {
  const rows: [string, boolean][] = [
    [EARLIEST_TS, true],
    ["1999-12-31T23:59:59.999Z", false],
    ["1970-01-01T00:00:00.000Z", false],
    ["2026-11-29T22:00:00.000Z", true],
    ["2026-11-30T22:00:00.000Z", true],
    ["2026-11-30T22:00:00.001Z", false],
    ["2099-01-01T00:00:00.000Z", false],
    ["not a time", false],
  ];
  for (const [iso, inside] of rows) assert.equal(timeProblem(iso, NOW) === null, inside, iso);
});

Deno.test("a reason names the value shortly: a huge text by its length, 2^62 by its digits", () => {
  assert.equal(pidProblem(2 ** 62), "4611686018427387904 is not a pid (1 to 4194304)");
  assert.match(pathProblem(`/${"a".repeat(5000)}`)!, /^a path of 5001 bytes, more than 4096$/);
  assert.match(idProblem("a".repeat(1_000_000))!, /^a text of 1000000 characters, longer than an id/);
  assert.equal(shown(10n ** 30n), "1000000000000000000000000000000");
});

Deno.test("a run's range in SQL answers as its twin in TypeScript, whatever SQLite was given", () => {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, proc_start INTEGER NOT NULL)");
  const values: [unknown, unknown][] = [
    [4242, 51082],
    [1, 0],
    [PID_MAX, Number.MAX_SAFE_INTEGER],
    [0, 1],
    [-5, 1],
    [PID_MAX + 1, 1],
    [2n ** 62n, 1],
    [4242, -1],
    [4242, 2n ** 62n],
    [4242.5, 1],
    ["abc", 1],
    [4242, "later"],
  ];
  const insert = db.prepare("INSERT INTO runs (id, pid, proc_start) VALUES (?, ?, ?)");
  values.forEach(([pid, start], i) => insert.run(i, pid as number, start as number));
  const inSql = new Set(
    (db.prepare(`SELECT id FROM runs WHERE ${RUN_IN_RANGE_SQL}`).all() as { id: number }[]).map((r) => r.id),
  );
  values.forEach(([pid, start], i) => {
    const asNumber = (v: unknown) => (typeof v === "bigint" ? Number(v) : v);
    assert.equal(
      runInRange({ pid: asNumber(pid), proc_start: asNumber(start) }),
      inSql.has(i),
      `${shown(pid)}, ${shown(start)}`,
    );
  });
  assert.deepEqual([...inSql].sort(), [0, 1, 2]);
  db.close();
});
