/**
 * Where Codex keeps a thread's rollout: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<thread id>.jsonl`, the
 * folders in UTC on the day the thread was created. Thread ids are UUIDv7, whose first 48 bits are that moment
 * in epoch milliseconds, so the folder can be computed instead of searched.
 * @module
 */
import { join } from "node:path";
import type { Env } from "../../config/mod.ts";
import type { OrphanEventRule } from "../protocol.ts";
import { codexHome } from "./home.ts";

/** The creation time a UUIDv7 carries, or null for any other id. */
export function uuidV7Time(id: string): number | null {
  const m = id.match(/^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i);
  return m ? parseInt(m[1] + m[2], 16) : null;
}

function dayFolder(root: string, ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return join(root, String(d.getUTCFullYear()), pad(d.getUTCMonth() + 1), pad(d.getUTCDate()));
}

function folderHas(folder: string, suffix: string): boolean {
  try {
    for (const entry of Deno.readDirSync(folder)) {
      if (entry.isFile && entry.name.startsWith("rollout-") && entry.name.endsWith(suffix)) return true;
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return false;
}

function anyFolderHas(folder: string, suffix: string, depth: number): boolean {
  if (depth === 0) return folderHas(folder, suffix);
  try {
    for (const entry of Deno.readDirSync(folder)) {
      if (entry.isDirectory && anyFolderHas(join(folder, entry.name), suffix, depth - 1)) return true;
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return false;
}

/** True when the thread has a rollout file under `$CODEX_HOME/sessions`. */
export function hasRollout(threadId: string, env: Env): boolean {
  const root = join(codexHome(env), "sessions");
  const suffix = `-${threadId}.jsonl`;
  const created = uuidV7Time(threadId);
  if (created === null) return anyFolderHas(root, suffix, 3);
  // the day before and after too: the folder is the creation day in UTC, the id's clock may differ a little
  return [created - 86_400_000, created, created + 86_400_000].some((ms) =>
    folderHas(dayFolder(root, ms), suffix)
  );
}

/**
 * Codex's TUI runs a hidden title-generation turn after each prompt (until a title is accepted), in an ephemeral
 * thread of its own: no rollout, no writer lock, no row in its index, no hook; only its notify fires (seen on
 * 0.169 with hooks trusted by flag and by record, daemon and --no-daemon, the title answered before or after the
 * person's turn ended; decision 235). A turn's end (notify, or a Stop hook should a later Codex fire one) for a
 * thread with no row and no rollout is kept as evidence, not a row: a thread a person drives has its rollout
 * before its first turn ends. (A SessionStart or a prompt may come before the rollout is written, so only a turn's
 * end is judged.)
 */
export const codexOrphanRule: OrphanEventRule = (event, env) =>
  (event.source === "notify" || event.event === "Stop") && !hasRollout(event.agent_session_id, env)
    ? `a ${
      event.source === "notify" ? "notify" : "Stop"
    } for a thread that has no rollout (Codex's hidden title turn)`
    : null;
