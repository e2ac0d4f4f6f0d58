/**
 * A Codex turn retrying after API errors, from Codex's own log database `$CODEX_HOME/logs_<n>.sqlite` (observed
 * on 0.169 against a fake answering 503, then 200): the rollout says nothing while Codex retries (its turn shows
 * `task_started` until `task_complete`), but every model request of a thread leaves a `codex_http_client::client`
 * row `Request completed method=POST url=... status=<code> <reason> ...`, and a retry of the whole sampling
 * request a `codex_core::responses_retry` WARN row `stream disconnected - retrying sampling request (N/M in
 * Xms)... turn_id=<turn> retries=N max_retries=M sampling_error=<message>`. Rows carry the thread id in
 * `thread_id`, and the turn id in the body (the span's `submission.id`, or `turn_id=`). The newest of them says
 * whether the turn is retrying: an answer that was an error (429 or 5xx, the statuses Codex retries) or a
 * retry announced and not yet answered. Without this, a Codex retrying read "Working". Codex writes its rows to
 * the database in batches, about every 10 s (observed): Retrying starts, and gives way, up to that late.
 * @module
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Env } from "../protocol.ts";
import { failureText } from "../failure_text.ts";
import { codexHome } from "./home.ts";

/** One row of Codex's `logs` table, as far as a retry needs it. */
export interface CodexLogRow {
  target: string;
  body: string;
}

/** A turn retrying: how many retries so far, of how many Codex allows (null when its row does not say). */
export interface CodexRetry {
  attempt: number;
  max: number | null;
  /** The last error Codex got, as it logged it (one bounded plain line), or null. */
  error: string | null;
}

/** The log targets that speak of a model request and its retry. */
export const RETRY_TARGETS = ["codex_core::responses_retry", "codex_http_client::client"] as const;

const RETRYING = /retrying sampling request .*?\bretries=(\d+) max_retries=(\d+)(?: sampling_error=(.*))?/s;
const COMPLETED = /Request completed method=\S+ url=\S+ status=(\d{3})([^\n]*?) headers=/;

/** Codex retries these answers; any other error ends the turn at once. */
function retried(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Pure: whether the turn `turnId` is retrying, from a thread's log rows, newest first. Only rows of that turn
 * count (a row names its turn in its span or its fields).
 */
export function retryFromLog(rows: CodexLogRow[], turnId: string): CodexRetry | null {
  let failedAnswers = 0;
  for (const row of rows) {
    if (!row.body.includes(turnId)) continue;
    if (row.target === "codex_core::responses_retry") {
      const m = RETRYING.exec(row.body);
      if (!m) continue;
      // a retry announced holds until an answer is logged after it; each failed answer since asks for one more
      return {
        attempt: Number(m[1]) + failedAnswers,
        max: Number(m[2]),
        error: failureText(m[3] ?? null),
      };
    }
    if (row.target !== "codex_http_client::client") continue;
    const m = COMPLETED.exec(row.body);
    if (!m) continue;
    // an answer that was not a retried error ends the count: the turn goes on (or ends) from there
    if (!retried(Number(m[1]))) break;
    // request-level retries leave no row of their own: each failed answer is one
    failedAnswers++;
  }
  if (failedAnswers === 0) return null;
  return { attempt: failedAnswers, max: null, error: null };
}

/** The reason a person reads for a retrying turn. */
export function retryReason(retry: CodexRetry): string {
  const of = retry.max === null ? "" : ` of ${retry.max}`;
  return `the API answered with an error; retry ${retry.attempt}${of}${
    retry.error ? `: ${retry.error}` : ""
  }`;
}

/** The newest `logs_<n>.sqlite` in `$CODEX_HOME`, or null when there is none. */
export function codexLogsDb(env: Env): string | null {
  const root = codexHome(env);
  let best: { n: number; name: string } | null = null;
  try {
    for (const e of Deno.readDirSync(root)) {
      const m = e.isFile ? e.name.match(/^logs_(\d+)\.sqlite$/) : null;
      if (m && (best === null || Number(m[1]) > best.n)) best = { n: Number(m[1]), name: e.name };
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  return best ? join(root, best.name) : null;
}

/** How many of a thread's newest request and retry rows are read: a turn's retries are a handful of them. */
const ROWS = 50;

/**
 * A thread's newest request and retry rows, newest first (read-only). A database without the `logs` table or
 * its columns (another Codex) has no rows: the turn then reads as its rollout says.
 */
export function readRetryLog(dbPath: string, threadId: string): CodexLogRow[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const columns = new Set(
      (db.prepare("PRAGMA table_info(logs)").all() as { name: string }[]).map((c) => c.name),
    );
    if (!["thread_id", "target", "feedback_log_body", "ts", "ts_nanos"].every((c) => columns.has(c))) {
      return [];
    }
    const rows = db.prepare(
      `SELECT target, feedback_log_body AS body FROM logs WHERE thread_id = ? AND target IN (?, ?)
        ORDER BY ts DESC, ts_nanos DESC, id DESC LIMIT ${ROWS}`,
    ).all(threadId, ...RETRY_TARGETS) as { target: unknown; body: unknown }[];
    return rows.flatMap((r) =>
      typeof r.target === "string" && typeof r.body === "string" ? [{ target: r.target, body: r.body }] : []
    );
  } finally {
    db.close();
  }
}
