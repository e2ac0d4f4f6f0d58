import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type CodexLogRow, codexLogsDb, readRetryLog, retryFromLog, retryReason } from "./retry_log.ts";

/** Rows Codex 0.169 wrote into `logs_2.sqlite` against a fake answering 503 three times, then 200. */
function captured(name: string): CodexLogRow[] {
  const path = join(import.meta.dirname!, "../../../verify/fixtures/turn_trouble/codex", name);
  return Deno.readTextFileSync(path).trim().split("\n").map((l) => JSON.parse(l));
}

/** What each moment of the log reads as: the rows so far, newest first, one reading per row added. */
function readings(rows: CodexLogRow[], turnId: string): (string | null)[] {
  return rows.map((_, i) => {
    const retry = retryFromLog(rows.slice(0, i + 1).reverse(), turnId);
    return retry ? retryReason(retry) : null;
  });
}

Deno.test("a Codex turn whose sampling request is retried reads each retry from its log until an answer comes", () => {
  const rows = captured("stream-retry-503x3.logs.jsonl");
  const turn = "01a2426d-0ebf-7872-b89a-784cb52f9e02";
  const error = "unexpected status 503 Service Unavailable: mock overloaded 503, url: " +
    "http://127.0.0.1:37981/v1/responses, request id: req_mock_";
  const got = readings(rows, turn);
  assert.deepEqual(got.map((r) => r?.replace(/req_mock_\d+$/, "req_mock_") ?? null), [
    // the first failed answer, before Codex logs its retry
    "the API answered with an error; retry 1",
    `the API answered with an error; retry 1 of 4: ${error}`,
    // the retry's answer failed too: the next retry is coming
    `the API answered with an error; retry 2 of 4: ${error}`,
    `the API answered with an error; retry 2 of 4: ${error}`,
    `the API answered with an error; retry 3 of 4: ${error}`,
    `the API answered with an error; retry 3 of 4: ${error}`,
    // answered 200: the turn goes on
    null,
  ]);
  // another turn's rows say nothing of this one
  assert.equal(retryFromLog([...rows].reverse().slice(1), "01a2426d-0000-7000-8000-000000000000"), null);
});

Deno.test("a Codex turn retried by its HTTP client (no retry row) reads retrying from its failed answers", () => {
  const rows = captured("request-retry-503x3.logs.jsonl");
  assert.deepEqual(readings(rows, "01a2426c-1a54-7f50-ae99-cce191a11681"), [
    "the API answered with an error; retry 1",
    "the API answered with an error; retry 2",
    "the API answered with an error; retry 3",
    null,
  ]);
});

Deno.test("an answer Codex does not retry (400) is no retry: the turn ends on it", () => {
  const body = (status: string) =>
    `submission.id="t1"}: Request completed method=POST url=http://127.0.0.1:1/v1/responses status=${status} headers={}`;
  const client = "codex_http_client::client";
  assert.equal(retryFromLog([{ target: client, body: body("400 Bad Request") }], "t1"), null);
  assert.equal(retryFromLog([{ target: client, body: body("429 Too Many Requests") }], "t1")?.attempt, 1);
  // a 400 newer than a 503: the count stops at the newest answer
  assert.equal(
    retryFromLog([
      { target: client, body: body("400 Bad Request") },
      { target: client, body: body("503 Service Unavailable") },
    ], "t1"),
    null,
  );
});

Deno.test("the newest logs database is read for one thread's request rows; another Codex's schema gives none", () => {
  const home = Deno.makeTempDirSync();
  try {
    const env = { HOME: home, CODEX_HOME: home };
    assert.equal(codexLogsDb(env), null);
    const older = new DatabaseSync(join(home, "logs_1.sqlite"));
    older.exec("CREATE TABLE logs (id INTEGER PRIMARY KEY, message TEXT)");
    older.close();
    assert.equal(codexLogsDb(env), join(home, "logs_1.sqlite"));
    assert.deepEqual(readRetryLog(join(home, "logs_1.sqlite"), "th1"), []);
    const db = new DatabaseSync(join(home, "logs_2.sqlite"));
    db.exec(
      `CREATE TABLE logs (id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL, ts_nanos INTEGER NOT NULL,
      level TEXT NOT NULL, target TEXT NOT NULL, feedback_log_body TEXT, thread_id TEXT)`,
    );
    const add = db.prepare(
      "INSERT INTO logs (ts, ts_nanos, level, target, feedback_log_body, thread_id) VALUES (?, ?, ?, ?, ?, ?)",
    );
    add.run(1, 5, "DEBUG", "codex_http_client::client", "first", "th1");
    add.run(1, 9, "WARN", "codex_core::responses_retry", "second", "th1");
    add.run(2, 0, "INFO", "feedback_tags", "not a request row", "th1");
    add.run(3, 0, "DEBUG", "codex_http_client::client", "another thread", "th2");
    db.close();
    assert.equal(codexLogsDb(env), join(home, "logs_2.sqlite"));
    assert.deepEqual(readRetryLog(join(home, "logs_2.sqlite"), "th1").map((r) => r.body), [
      "second",
      "first",
    ]);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
