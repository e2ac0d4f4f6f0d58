/**
 * Codex's own record of its plan limits: every model response writes a rollout `event_msg` `token_count` whose
 * `rate_limits` carry `primary` / `secondary` windows `{used_percent, window_minutes, resets_at}` with an absolute
 * `resets_at` in epoch seconds (agents/codex.md section 3). Codex writes one only while a turn runs, so the figures
 * are "from the last turn at <time>", and the reset rule still applies at read time.
 * @module
 */
import { join } from "node:path";
import type { Env } from "../protocol.ts";
import { codexHome } from "./home.ts";
import {
  finite,
  isoFromEpochSeconds,
  isoFromText,
  type LastTurn,
  type RawWindow,
  readTail,
  windowNameForSeconds,
} from "../../usage/mod.ts";
import { RefusedFile } from "../../files/mod.ts";
import { isRecord } from "../../lang/mod.ts";

/** Day folders looked at, newest first; a resumed older thread appends to its own (older) folder. */
const DAY_FOLDERS = 7;
/** Rollouts looked at, newest modified first. */
const ROLLOUTS = 5;
/** The end of a rollout read for its last `token_count`. */
const TAIL_BYTES = 256 * 1024;

/** The windows of a `rate_limits` object; empty when it holds none. */
export function windowsOfRateLimits(rateLimits: unknown): RawWindow[] {
  if (!isRecord(rateLimits)) return [];
  const prefix = typeof rateLimits.limit_name === "string" && rateLimits.limit_name !== ""
    ? `${rateLimits.limit_name} `
    : "";
  const windows: RawWindow[] = [];
  for (const slot of ["primary", "secondary"] as const) {
    const w = rateLimits[slot];
    if (!isRecord(w)) continue;
    const minutes = finite(w.window_minutes);
    windows.push({
      name: prefix + (windowNameForSeconds(minutes === null ? null : minutes * 60) ?? slot),
      percent_used: finite(w.used_percent),
      resets_at: isoFromEpochSeconds(w.resets_at),
    });
  }
  return windows;
}

/** The last `token_count` with rate limits in a rollout's text, or null. */
export function lastTurnInText(text: string): LastTurn | null {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (!line.includes('"token_count"') || !line.includes('"rate_limits"')) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue; // a line still being written
    }
    if (!isRecord(record) || !isRecord(record.payload) || record.payload.type !== "token_count") continue;
    const windows = windowsOfRateLimits(record.payload.rate_limits);
    const at = isoFromText(record.timestamp);
    if (windows.length > 0 && at !== null) return { windows, at };
  }
  return null;
}

function namesDescending(path: string, isDir: boolean): string[] {
  try {
    return [...Deno.readDirSync(path)]
      .filter((e) => (isDir ? e.isDirectory : e.isFile))
      .map((e) => e.name)
      .sort()
      .reverse();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return [];
    throw err;
  }
}

/** The rollouts of the newest day folders under `$CODEX_HOME/sessions/YYYY/MM/DD`, newest modified first. */
export function newestRollouts(env: Env, max = ROLLOUTS): string[] {
  const root = join(codexHome(env), "sessions");
  const days: string[] = [];
  outer: for (const y of namesDescending(root, true)) {
    for (const m of namesDescending(join(root, y), true)) {
      for (const d of namesDescending(join(root, y, m), true)) {
        days.push(join(root, y, m, d));
        if (days.length >= DAY_FOLDERS) break outer;
      }
    }
  }
  const files: { path: string; mtime: number }[] = [];
  for (const day of days) {
    for (const name of namesDescending(day, false)) {
      if (!name.startsWith("rollout-") || !name.endsWith(".jsonl")) continue;
      const path = join(day, name);
      try {
        files.push({ path, mtime: Deno.statSync(path).mtime?.getTime() ?? 0 });
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
    }
  }
  return files.sort((a, b) => b.mtime - a.mtime).slice(0, max).map((f) => f.path);
}

/** The newest rollout's last-turn figures, or null when no recent rollout has any. */
export function codexLastTurn(env: Env): LastTurn | null {
  for (const path of newestRollouts(env)) {
    let text: string;
    try {
      text = readTail(path, TAIL_BYTES);
    } catch (err) {
      // gone meanwhile, or not a regular file (a link, a FIFO): no figures in it
      if (err instanceof Deno.errors.NotFound || err instanceof RefusedFile) continue;
      throw err;
    }
    const turn = lastTurnInText(text);
    if (turn !== null) return turn;
  }
  return null;
}
