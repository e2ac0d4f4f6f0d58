import assert from "node:assert/strict";
import { type UsageAgent, UsageCache } from "./cache.ts";
import type { AccountOutcome, LastTurn, UsageSource } from "./reading.ts";

const T0 = Date.parse("2026-11-29T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const ENV = { HOME: "/nonexistent" };

/** A reader that answers from a script and counts its calls. */
function scripted(
  outcomes: AccountOutcome[],
  options: { lastTurn?: LastTurn | null; delayMs?: number } = {},
) {
  const state = { calls: 0, lastTurnReads: 0, stamp: "s1" };
  const source: UsageSource = {
    async account() {
      state.calls++;
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      return outcomes[Math.min(state.calls - 1, outcomes.length - 1)];
    },
    credentialsStamp: () => state.stamp,
    ...(options.lastTurn === undefined ? {} : {
      lastTurn: () => {
        state.lastTurnReads++;
        return Promise.resolve(options.lastTurn ?? null);
      },
    }),
  };
  return { source, state };
}

function agent(source: UsageSource | null): UsageAgent {
  return { name: "a", display: "Agent A", command: "a", baseUrl: "", source };
}

const OK: AccountOutcome = {
  kind: "ok",
  windows: [{ name: "5-hour", percent_used: 24, resets_at: iso(T0 + 7_200_000) }],
};

function clock() {
  const c = { now: T0 };
  return { c, now: () => c.now };
}

Deno.test("two reads within a minute make one call, and a read after the minute makes another", async () => {
  const { source, state } = scripted([OK]);
  const { c, now } = clock();
  const cache = new UsageCache({ now });
  assert.equal((await cache.read(agent(source), ENV)).state, "ok");
  c.now += 59_000;
  const second = await cache.read(agent(source), ENV);
  assert.equal(state.calls, 1);
  assert.equal(second.age, 59);
  assert.equal(second.windows[0].resets_in_seconds, 7_200 - 59, "the countdown is computed at read time");
  c.now += 1_000;
  await cache.read(agent(source), ENV);
  assert.equal(state.calls, 2);
});

Deno.test("after a failure the last good reading is served marked stale with its age, and no call is made during the backoff", async () => {
  const { source, state } = scripted([OK, {
    kind: "failed",
    message: "the usage endpoint answered HTTP 500",
  }]);
  const { c, now } = clock();
  const cache = new UsageCache({ now });
  await cache.read(agent(source), ENV);
  c.now += 60_000;
  const stale = await cache.read(agent(source), ENV);
  assert.equal(state.calls, 2);
  assert.equal(stale.state, "stale");
  assert.equal(stale.age, 60);
  assert.deepEqual(stale.windows.map((w) => w.percent_used), [24]);
  assert.match(stale.message, /HTTP 500/);
  for (let i = 0; i < 20; i++) {
    c.now += 1_000;
    await cache.read(agent(source), ENV);
  }
  assert.equal(state.calls, 2, "20 reads during the 30 s backoff made no call");
  c.now += 10_000;
  const later = await cache.read(agent(source), ENV);
  assert.equal(state.calls, 3);
  assert.equal(later.age, 90);
  c.now += 3 * 3_600_000;
  const passed = await cache.read(agent(source), ENV);
  assert.equal(passed.state, "stale");
  assert.equal(passed.windows[0].percent_used, 0, "a stale window whose reset passed reads 0");
  assert.equal(passed.windows[0].resets_at, null);
});

Deno.test("a refused token is not asked again for 15 minutes, unless the credentials change (no retry storm)", async () => {
  const { source, state } = scripted([{ kind: "signed-out", message: "signed out or token expired" }, OK]);
  const { c, now } = clock();
  const cache = new UsageCache({ now });
  for (let i = 0; i < 100; i++) {
    const r = await cache.read(agent(source), ENV);
    assert.equal(r.state, "signed-out");
    assert.equal(r.message, "signed out or token expired");
    c.now += 5_000;
  }
  assert.equal(state.calls, 1, "100 reads over 8 minutes made one call");
  state.stamp = "s2"; // the user signed in again: the credentials file changed
  assert.equal((await cache.read(agent(source), ENV)).state, "ok");
  assert.equal(state.calls, 2);
});

Deno.test("reads that arrive together share one call", async () => {
  const { source, state } = scripted([OK], { delayMs: 50 });
  const cache = new UsageCache();
  const readings = await Promise.all([1, 2, 3, 4, 5].map(() => cache.read(agent(source), ENV)));
  assert.equal(state.calls, 1);
  assert.ok(readings.every((r) => r.state === "ok"));
});

Deno.test("a reader that throws reads as an error whose message carries nothing the reader held", async () => {
  const source: UsageSource = {
    account: () => Promise.reject(new Error("boom sk-ant-oat01-SECRET")),
    credentialsStamp: () => "s",
  };
  const lines: Record<string, unknown>[] = [];
  const reading = await new UsageCache({ log: (l) => lines.push(l) }).read(agent(source), ENV);
  assert.equal(reading.state, "error");
  assert.match(reading.message, /asm's usage reader failed \(Error\)/);
  assert.ok(!JSON.stringify([reading, lines]).includes("SECRET"));
});

Deno.test("an agent whose adapter has no usage reader reads as unavailable", async () => {
  const reading = await new UsageCache().read(agent(null), ENV);
  assert.equal(reading.state, "unavailable");
  assert.equal(reading.message, "asm has no usage reader for Agent A");
  assert.deepEqual(reading.windows, []);
});

Deno.test("the log gets one line per change of outcome, not one per read", async () => {
  const { source } = scripted([
    { kind: "failed", message: "HTTP 500" },
    { kind: "failed", message: "HTTP 500" },
    OK,
  ]);
  const { c, now } = clock();
  const lines: Record<string, unknown>[] = [];
  const cache = new UsageCache({ now, log: (l) => lines.push(l) });
  for (let i = 0; i < 10; i++) {
    await cache.read(agent(source), ENV);
    c.now += 31_000;
  }
  assert.deepEqual(lines.map((l) => l.outcome), ["failed", "ok"]);
});

Deno.test("without an account reading the agent's last turn is shown, labelled, and read again each minute", async () => {
  const turn: LastTurn = {
    windows: [{ name: "5-hour", percent_used: 12.5, resets_at: iso(T0 + 3_600_000) }],
    at: iso(T0 - 30_000),
  };
  const { source, state } = scripted([{ kind: "unavailable", message: "no ChatGPT sign-in" }], {
    lastTurn: turn,
  });
  const { c, now } = clock();
  const cache = new UsageCache({ now });
  const r = await cache.read(agent(source), ENV);
  assert.equal(r.state, "unavailable");
  assert.equal(r.label, `from the last turn at ${turn.at}`);
  assert.equal(r.age, 30);
  assert.deepEqual(r.windows.map((w) => [w.percent_used, w.source]), [[12.5, "last-turn"]]);
  c.now += 30_000;
  await cache.read(agent(source), ENV);
  assert.equal(state.lastTurnReads, 1);
  c.now += 30_000;
  await cache.read(agent(source), ENV);
  assert.equal(state.lastTurnReads, 2);
  c.now += 3_600_000;
  const passed = await cache.read(agent(source), ENV);
  assert.equal(passed.windows[0].percent_used, 0, "the last turn's window whose reset passed reads 0");
  assert.equal(passed.windows[0].resets_at, null);
});
