/**
 * Test helpers for usage readers: one agent's reader behind its own cache with a clock the test moves, so a test
 * reads exactly as `GET /api/usage` would.
 * @module
 */
import type { Env } from "../config/mod.ts";
import { UsageCache } from "./cache.ts";
import type { UsageReading, UsageSource } from "./reading.ts";

/** A reader under test. */
export interface ReaderHarness {
  /** The reading now (asking the endpoint when the rules say so). */
  read(): Promise<UsageReading>;
  /** Moves the clock. */
  advance(ms: number): void;
  cache: UsageCache;
  /** Every line the cache logged. */
  logged: Record<string, unknown>[];
}

/** Wraps `source` for a test: its own cache, a clock starting at `startMs` (default now), a 1 s timeout by default. */
export function readerHarness(
  source: UsageSource,
  options: {
    env: Env;
    baseUrl: string;
    command?: string;
    timeoutMs?: number;
    name?: string;
    startMs?: number;
  },
): ReaderHarness {
  const clock = { now: options.startMs ?? Date.now() };
  const logged: Record<string, unknown>[] = [];
  const cache = new UsageCache({
    now: () => clock.now,
    timeoutMs: options.timeoutMs ?? 1_000,
    log: (line) => logged.push(line),
  });
  const agent = {
    name: options.name ?? "agent",
    display: options.name ?? "agent",
    command: options.command ?? "agent-command-not-on-path",
    baseUrl: options.baseUrl,
    source,
  };
  return {
    read: () => cache.read(agent, options.env),
    advance(ms) {
      clock.now += ms;
    },
    cache,
    logged,
  };
}
