/**
 * Codex's own thread index, `$CODEX_HOME/state_<n>.sqlite` `threads` (agents/codex.md section 4), read-only: the
 * thread's generated `title`, the `name` a person gave it, and sub-agent links (`thread_spawn_edges`,
 * `attached_thread_parent_id`). The rollout stays the source of every other fact; this only adds what the
 * rollout does not carry.
 * @module
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Env } from "../../config/mod.ts";
import type { TranscriptIo } from "../../derive/mod.ts";
import { codexHome } from "./home.ts";

/** What the index says about one thread. */
export interface CodexThreadRow {
  id: string;
  title: string | null;
  name: string | null;
  source: string | null;
  thread_source: string | null;
  parent_id: string | null;
}

/** The newest `state_<n>.sqlite` in `$CODEX_HOME`, or null. */
export function codexStateDb(env: Env, io: TranscriptIo): string | null {
  const root = codexHome(env);
  let best: { n: number; name: string } | null = null;
  for (const e of io.readDir(root)) {
    const m = e.isFile ? e.name.match(/^state_(\d+)\.sqlite$/) : null;
    if (m && (best === null || Number(m[1]) > best.n)) best = { n: Number(m[1]), name: e.name };
  }
  return best ? join(root, best.name) : null;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** The rows of these thread ids (read-only; a column an older Codex lacks reads as null). */
export function readCodexThreads(dbPath: string, ids: string[]): Map<string, CodexThreadRow> {
  const out = new Map<string, CodexThreadRow>();
  if (ids.length === 0) return out;
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const columns = new Set(
      (db.prepare("PRAGMA table_info(threads)").all() as { name: string }[]).map((c) => c.name),
    );
    const col = (name: string) => (columns.has(name) ? name : `NULL AS ${name}`);
    const hasEdges =
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'thread_spawn_edges'")
        .get() !== undefined;
    const select = db.prepare(
      `SELECT id, ${col("title")}, ${col("name")}, ${col("source")}, ${col("thread_source")},
        ${col("attached_thread_parent_id")} FROM threads WHERE id = ?`,
    );
    const edge = hasEdges
      ? db.prepare("SELECT parent_thread_id FROM thread_spawn_edges WHERE child_thread_id = ?")
      : null;
    for (const id of ids) {
      const row = select.get(id) as Record<string, unknown> | undefined;
      if (!row) continue;
      const spawned = edge?.get(id) as Record<string, unknown> | undefined;
      out.set(id, {
        id,
        title: text(row.title),
        name: text(row.name),
        source: text(row.source),
        thread_source: text(row.thread_source),
        parent_id: text(spawned?.parent_thread_id) ?? text(row.attached_thread_parent_id),
      });
    }
  } finally {
    db.close();
  }
  return out;
}
