/**
 * The shell around the rules: one entry per agent, the endpoint asked only when the rules say so (cache 60 s,
 * backoff after failures, a long wait after a refused token unless the credentials change), one call in flight
 * per agent however many requests arrive, and the reading presented from the clock at every read.
 * @module
 */
import type { Env } from "../config/mod.ts";
import type { AccountOutcome, LastTurn, UsageReading, UsageSource } from "./reading.ts";
import { accountDue, afterOutcome, emptyEntry, lastTurnDue, present, type UsageEntry } from "./rules.ts";
import type { Clock, Log } from "../lang/mod.ts";

/** One agent as the cache needs it. */
export interface UsageAgent {
  name: string;
  display: string;
  /** The executable's name on PATH. */
  command: string;
  /** `usage_base_url` from config; "" = the real endpoint. */
  baseUrl: string;
  /** The adapter's usage reader; null when the adapter has none. */
  source: UsageSource | null;
}

/** Options of {@link UsageCache}. */
export interface UsageCacheOptions {
  /** The clock (tests move it). */
  now?: Clock;
  /** Give up on one call after this long (default 10 s). */
  timeoutMs?: number;
  /** One line per change of an agent's outcome (never a token: messages are scrubbed by the readers). */
  log?: Log;
}

/** The usage readings of every agent, cached. */
export class UsageCache {
  #entries = new Map<string, UsageEntry>();
  #inflight = new Map<string, Promise<void>>();
  #now: Clock;
  #timeoutMs: number;
  #log: Log;

  constructor(options: UsageCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#log = options.log ?? (() => {});
  }

  /** Every agent's reading now, in the order given (each asks its endpoint only when the rules say so). */
  readAll(agents: readonly UsageAgent[], env: Env): Promise<UsageReading[]> {
    return Promise.all(agents.map((agent) => this.read(agent, env)));
  }

  /** The agent's reading now, asking its endpoint first when the rules say so. */
  async read(agent: UsageAgent, env: Env): Promise<UsageReading> {
    if (agent.source === null) {
      return {
        agent: agent.name,
        display: agent.display,
        state: "unavailable",
        message: `asm has no usage reader for ${agent.display}`,
        label: null,
        age: null,
        windows: [],
      };
    }
    let pending = this.#inflight.get(agent.name);
    if (pending === undefined) {
      pending = this.#refresh(agent, agent.source, env).finally(() => this.#inflight.delete(agent.name));
      this.#inflight.set(agent.name, pending);
    }
    await pending;
    return present(agent, this.#entries.get(agent.name) ?? emptyEntry(), this.#now());
  }

  /** The remembered entry of an agent (tests and diagnostics). */
  entry(name: string): UsageEntry | undefined {
    return this.#entries.get(name);
  }

  async #refresh(agent: UsageAgent, source: UsageSource, env: Env): Promise<void> {
    const before = this.#entries.get(agent.name) ?? emptyEntry();
    const ctx = (now: number) => ({
      env,
      baseUrl: agent.baseUrl,
      command: agent.command,
      timeoutMs: this.#timeoutMs,
      now,
    });
    let nowMs = this.#now();
    let stamp: string;
    try {
      stamp = source.credentialsStamp(ctx(nowMs));
    } catch {
      stamp = "unreadable";
    }
    let entry = before;
    if (accountDue(before, nowMs, stamp)) {
      let outcome: AccountOutcome;
      try {
        outcome = await source.account(ctx(nowMs));
      } catch (err) {
        // a reader's bug, not the endpoint's answer; its text is not trusted to be free of the token
        outcome = {
          kind: "failed",
          message: `asm's usage reader failed (${err instanceof Error ? err.name : "error"})`,
        };
      }
      nowMs = this.#now();
      entry = afterOutcome(before, outcome, nowMs, stamp);
      const was = before.failure === null ? (before.good === null ? null : "ok") : before.failure.kind;
      const is = entry.failure === null ? "ok" : entry.failure.kind;
      if (was !== is || before.failure?.message !== entry.failure?.message) {
        this.#log({ what: "usage", agent: agent.name, outcome: is, message: entry.failure?.message ?? "" });
      }
    }
    if (source.lastTurn && lastTurnDue(entry, nowMs)) {
      let turn: LastTurn | null;
      try {
        turn = await source.lastTurn(ctx(nowMs));
      } catch (err) {
        this.#log({
          what: "usage last turn unreadable",
          agent: agent.name,
          error: err instanceof Error ? err.name : "error",
        });
        turn = null;
      }
      entry = { ...entry, lastTurn: turn, lastTurnReadAtMs: nowMs };
    }
    this.#entries.set(agent.name, entry);
  }
}
