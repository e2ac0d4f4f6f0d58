/**
 * The shapes of plan usage: what an agent's reader reports (absolute facts only, so they can be cached) and the
 * reading `GET /api/usage` serves (with everything time-sensitive recomputed at read time). Nothing here names an
 * agent; each agent's reader lives in `lib/agents/<agent>/usage.ts` and is reached through its adapter.
 * @module
 */
import type { Env } from "../config/mod.ts";

/**
 * Why a reading looks the way it does. `ok`: a fresh account reading. `stale`: the last call failed, the windows
 * are an older reading (see `age`). `signed-out`: the endpoint refused the token (401/403) or the token has
 * expired. `unavailable`: this sign-in has no account reading (an API key, no sign-in file). `error`: the last
 * call failed and there is nothing older to show.
 */
export type UsageState = "ok" | "stale" | "signed-out" | "unavailable" | "error";

/** Where a window's figures came from: the account endpoint, or what the agent recorded at its last turn. */
export type UsageSourceKind = "account" | "last-turn";

/** One limit window as a reader found it: absolute facts, never a countdown. */
export interface RawWindow {
  /** What a person reads: `5-hour`, `weekly`, `weekly (Opus)`, `extra usage (monthly)`, a model id. */
  name: string;
  /** Percent of the window used, as the endpoint said it (0-100, above 100 once over); null when it gave none. */
  percent_used: number | null;
  /** ISO-8601 UTC with ms; null when the endpoint gave no reset time. */
  resets_at: string | null;
}

/** One window of a reading, with the time rules applied at read time. */
export interface UsageWindow extends RawWindow {
  /** Seconds until `resets_at`, computed when the reading was served; null when the reset is unknown. */
  resets_in_seconds: number | null;
  source: UsageSourceKind;
  /** When these figures were read (ISO-8601 UTC ms): the call, or the agent's last turn. */
  fetched_at: string;
}

/** What `GET /api/usage` serves for one agent. */
export interface UsageReading {
  agent: string;
  display: string;
  state: UsageState;
  /** One plain sentence for anything but a fresh reading; "" when state is ok. */
  message: string;
  /** `from the last turn at <time>` when the windows are the agent's own last-turn figures, else null. */
  label: string | null;
  /** Whole seconds since the windows were read; null when there are no windows. */
  age: number | null;
  windows: UsageWindow[];
}

/** What one call of an agent's account endpoint came to. Messages never hold a token. */
export type AccountOutcome =
  | { kind: "ok"; windows: RawWindow[] }
  | { kind: "signed-out"; message: string }
  | { kind: "unavailable"; message: string }
  | { kind: "failed"; message: string; retryAfterMs?: number };

/** The windows an agent recorded at its last turn, when it records any (a fallback, never an estimate). */
export interface LastTurn {
  windows: RawWindow[];
  /** ISO-8601 UTC ms of the turn's record. */
  at: string;
}

/** What a reader gets for one call. */
export interface UsageFetchContext {
  /** Where the agent's folders are (HOME, CODEX_HOME, GEMINI_CLI_HOME) and PATH. */
  env: Env;
  /** The agent's `usage_base_url` from config ("" = the real endpoint); tests point it at a loopback fake. */
  baseUrl: string;
  /** The agent's executable name on PATH (`command` in agents.toml). */
  command: string;
  /** Give up on a call after this long. */
  timeoutMs: number;
  /** Epoch ms of the call (expiry checks). */
  now: number;
}

/**
 * An agent's usage reader (the adapter's optional `usage` capability). It reads the credentials fresh off disk on
 * every call, holds the token in memory only for that call, and never writes, logs or refreshes it.
 */
export interface UsageSource {
  /** One call of the account endpoint. */
  account(ctx: UsageFetchContext): Promise<AccountOutcome>;
  /** The agent's own last-turn figures, read when no account reading is possible. */
  lastTurn?(ctx: UsageFetchContext): Promise<LastTurn | null>;
  /** Changes whenever the credentials file changes (never derived from its contents): a new sign-in is read at once. */
  credentialsStamp(ctx: UsageFetchContext): string;
  /** Where the agent keeps its account sign-in (`asm doctor` says whether it is there; never reads it). */
  credentialsPath?(env: Env): string;
}
