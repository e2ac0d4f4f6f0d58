/**
 * The pure rules of usage readings: how long a reading is cached, how long to back off after a failure, and how
 * a cached reading is presented at a given moment (a passed reset is 0 with an unknown reset; countdowns and ages
 * are computed from the clock handed in, never cached). No clock, no I/O.
 * @module
 */
import type {
  AccountOutcome,
  LastTurn,
  RawWindow,
  UsageReading,
  UsageSourceKind,
  UsageWindow,
} from "./reading.ts";

/** A good reading is served from the cache this long before the endpoint is asked again. */
export const CACHE_MS = 60_000;
/** The wait after the first failure; it doubles with each failure in a row. */
export const BACKOFF_BASE_MS = 30_000;
/** The longest wait after failures, and the wait after a refused token (no retry storm on a signed-out account). */
export const BACKOFF_CAP_MS = 15 * 60_000;
/** The longest wait an endpoint's Retry-After can ask for. */
export const RETRY_AFTER_CAP_MS = 60 * 60_000;

/** What asm remembers about one agent between calls. Absolute facts only. */
export interface UsageEntry {
  /** The last good account reading. */
  good: { windows: RawWindow[]; fetched_at: string } | null;
  /** The latest call's outcome when it was not ok; null after a good call. */
  failure: { kind: Exclude<AccountOutcome["kind"], "ok">; message: string } | null;
  /** Transient failures in a row (drives the backoff). */
  failures: number;
  /** The endpoint is not asked again before this epoch ms (unless the credentials change). */
  nextAtMs: number;
  /** The credentials stamp when the endpoint was last asked. */
  stamp: string | null;
  /** The agent's last-turn figures, when read. */
  lastTurn: LastTurn | null;
  /** When the last-turn figures were last read (epoch ms). */
  lastTurnReadAtMs: number | null;
}

/** The entry of an agent that was never read. */
export function emptyEntry(): UsageEntry {
  return {
    good: null,
    failure: null,
    failures: 0,
    nextAtMs: 0,
    stamp: null,
    lastTurn: null,
    lastTurnReadAtMs: null,
  };
}

/** The wait after `failures` transient failures in a row: 30 s, 60 s, 120 s, ... capped at 15 min. */
export function backoffMs(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(failures - 1, 30));
}

/** True when the endpoint should be asked now: never asked, the wait is over, or the credentials changed. */
export function accountDue(entry: UsageEntry, nowMs: number, stamp: string): boolean {
  return entry.stamp === null || nowMs >= entry.nextAtMs || stamp !== entry.stamp;
}

/** True when the last-turn figures should be (re)read: only without a good account reading, once per cache period. */
export function lastTurnDue(entry: UsageEntry, nowMs: number): boolean {
  if (entry.failure === null) return false;
  return entry.lastTurnReadAtMs === null || nowMs - entry.lastTurnReadAtMs >= CACHE_MS;
}

/** The entry after one call of the endpoint. */
export function afterOutcome(
  entry: UsageEntry,
  outcome: AccountOutcome,
  nowMs: number,
  stamp: string,
): UsageEntry {
  const base = { ...entry, stamp };
  switch (outcome.kind) {
    case "ok":
      return {
        ...base,
        good: { windows: outcome.windows, fetched_at: new Date(nowMs).toISOString() },
        failure: null,
        failures: 0,
        nextAtMs: nowMs + CACHE_MS,
        // a good account reading replaces the fallback; a later failure reads it afresh
        lastTurn: null,
        lastTurnReadAtMs: null,
      };
    case "signed-out":
      // asking again cannot help until the user signs in, which changes the credentials stamp
      return {
        ...base,
        failure: { kind: outcome.kind, message: outcome.message },
        failures: 0,
        nextAtMs: nowMs + BACKOFF_CAP_MS,
      };
    case "unavailable":
      return {
        ...base,
        failure: { kind: outcome.kind, message: outcome.message },
        failures: 0,
        nextAtMs: nowMs + CACHE_MS,
      };
    case "failed": {
      const failures = entry.failures + 1;
      const retryAfter = Math.min(outcome.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS);
      return {
        ...base,
        failure: { kind: "failed", message: outcome.message },
        failures,
        nextAtMs: nowMs + Math.max(backoffMs(failures), retryAfter),
      };
    }
  }
}

/**
 * A window as it stands at `nowMs`: a window whose reset has passed no longer exists, so it reads 0 with an
 * unknown reset, never an old number still being spent.
 */
export function windowAt(
  window: RawWindow,
  nowMs: number,
  source: UsageSourceKind,
  fetchedAt: string,
): UsageWindow {
  const resetMs = window.resets_at === null ? NaN : Date.parse(window.resets_at);
  if (!Number.isNaN(resetMs) && resetMs <= nowMs) {
    return {
      name: window.name,
      percent_used: 0,
      resets_at: null,
      resets_in_seconds: null,
      source,
      fetched_at: fetchedAt,
    };
  }
  return {
    name: window.name,
    percent_used: window.percent_used,
    resets_at: Number.isNaN(resetMs) ? null : window.resets_at,
    resets_in_seconds: Number.isNaN(resetMs) ? null : Math.ceil((resetMs - nowMs) / 1000),
    source,
    fetched_at: fetchedAt,
  };
}

/** Whole seconds from `fetchedAt` to `nowMs` (never negative). */
export function ageSeconds(fetchedAt: string, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - Date.parse(fetchedAt)) / 1000));
}

/** The label of windows taken from the agent's last turn. */
export function lastTurnLabel(at: string): string {
  return `from the last turn at ${at}`;
}

/** The reading of one agent at `nowMs`. */
export function present(
  agent: { name: string; display: string },
  entry: UsageEntry,
  nowMs: number,
): UsageReading {
  const reading = (
    state: UsageReading["state"],
    message: string,
    shown: { windows: RawWindow[]; at: string; source: UsageSourceKind } | null,
  ): UsageReading => ({
    agent: agent.name,
    display: agent.display,
    state,
    message,
    label: shown?.source === "last-turn" ? lastTurnLabel(shown.at) : null,
    age: shown === null ? null : ageSeconds(shown.at, nowMs),
    windows: shown === null ? [] : shown.windows.map((w) => windowAt(w, nowMs, shown.source, shown.at)),
  });
  const good = entry.good === null
    ? null
    : { windows: entry.good.windows, at: entry.good.fetched_at, source: "account" as const };
  const turn = entry.lastTurn === null
    ? null
    : { windows: entry.lastTurn.windows, at: entry.lastTurn.at, source: "last-turn" as const };
  const { failure } = entry;
  if (failure === null) {
    return good === null ? reading("error", "no usage reading yet", null) : reading("ok", "", good);
  }
  // the newer of the last good account reading and the agent's last turn: an older reading marked with its age
  // (and the time rules) beats a blank
  const shown =
    [good, turn].filter((s) => s !== null).sort((a, b) => Date.parse(b.at) - Date.parse(a.at))[0] ??
      null;
  const why = shown === null
    ? failure.message
    : `${failure.message}; ${
      shown.source === "last-turn" ? "showing the last turn's figures" : "showing an older reading"
    }`;
  if (failure.kind === "failed") return reading(shown === null ? "error" : "stale", why, shown);
  return reading(failure.kind, why, shown);
}
