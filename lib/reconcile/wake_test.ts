import assert from "node:assert/strict";
import { type Timers, WakeCoalescer } from "./wake.ts";

/** A fake clock: timers run only when a test advances time, in due order, with promises settled in between. */
class FakeTimers implements Timers {
  #now = 0;
  #next = 1;
  #due = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): number {
    const id = this.#next++;
    this.#due.set(id, { at: this.#now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#due.delete(handle as number);
  }
  /** Moves time forward by `ms`, running every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      await settle();
      const [id, first] = [...this.#due.entries()].sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0] ?? [];
      if (first === undefined || first.at > end) break;
      this.#due.delete(id!);
      this.#now = first.at;
      first.fn();
    }
    this.#now = end;
    await settle();
  }
}

/** Lets every pending promise callback run (no real time passes). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** A pass the test finishes by hand, recording when each pass started. */
function passes(timers: FakeTimers) {
  const started: number[] = [];
  let finish: (() => void) | null = null;
  return {
    started,
    pass: () => {
      started.push(timers.now());
      return new Promise<void>((resolve) => (finish = resolve));
    },
    finish: () => {
      assert.ok(finish, "no pass is running");
      const f = finish;
      finish = null;
      f();
    },
  };
}

function coalescer(timers: FakeTimers, pass: () => Promise<void>, onError?: (err: unknown) => void) {
  return new WakeCoalescer({ pass, timers, settleMs: 1_000, minGapMs: 3_000, everyMs: 20_000, onError });
}

Deno.test("a burst of wakes is one pass, after the settle window from the first", async () => {
  const timers = new FakeTimers();
  const p = passes(timers);
  const c = coalescer(timers, p.pass);
  c.arm();
  for (let i = 0; i < 10; i++) {
    c.wake();
    await timers.advance(50);
  }
  // the first wake was at 0: its pass is due at 1000, not pushed back by the nine after it
  await timers.advance(499);
  assert.deepEqual(p.started, []);
  await timers.advance(1);
  assert.deepEqual(p.started, [1_000]);
  p.finish();
  await timers.advance(10_000);
  assert.deepEqual(p.started, [1_000], "one pass for the burst; nothing queued");
  await c.stop();
});

Deno.test("wakes arriving mid-pass earn exactly one follow-up, after the minimum gap", async () => {
  const timers = new FakeTimers();
  const p = passes(timers);
  const c = coalescer(timers, p.pass);
  c.arm();
  c.wake();
  await timers.advance(1_000);
  assert.deepEqual(p.started, [1_000]);
  // the pass runs for 2 s; five wakes land during it
  for (let i = 0; i < 5; i++) {
    c.wake();
    await timers.advance(400);
  }
  p.finish(); // ends at 3000
  await timers.advance(2_999);
  assert.deepEqual(p.started, [1_000], "never back to back: the gap runs from the end of the pass");
  await timers.advance(1);
  assert.deepEqual(p.started, [1_000, 6_000]);
  p.finish();
  await timers.advance(19_999);
  assert.deepEqual(p.started, [1_000, 6_000], "exactly one follow-up, never a queue");
  await c.stop();
});

Deno.test("a wake just after a pass waits for the minimum gap", async () => {
  const timers = new FakeTimers();
  const p = passes(timers);
  const c = coalescer(timers, p.pass);
  c.arm();
  c.wake();
  await timers.advance(1_000);
  p.finish();
  await timers.advance(100); // the pass ended at 1000
  c.wake();
  await timers.advance(2_899);
  assert.deepEqual(p.started, [1_000]);
  await timers.advance(1);
  assert.deepEqual(p.started, [1_000, 4_000]);
  p.finish();
  await c.stop();
});

Deno.test("the 20 s timer runs a pass when nothing wakes it, 20 s after the last one ended", async () => {
  const timers = new FakeTimers();
  const p = passes(timers);
  const c = coalescer(timers, p.pass);
  c.arm();
  await timers.advance(19_999);
  assert.deepEqual(p.started, []);
  await timers.advance(1);
  assert.deepEqual(p.started, [20_000]);
  await timers.advance(500);
  p.finish(); // ends at 20500
  await timers.advance(20_000);
  assert.deepEqual(p.started, [20_000, 40_500]);
  p.finish(); // ends at 40500
  // a wake brings the next pass forward from the timer's 60500, to the minimum gap's 43500
  await timers.advance(1_000);
  c.wake();
  await timers.advance(1_999);
  assert.deepEqual(p.started, [20_000, 40_500]);
  await timers.advance(1);
  assert.deepEqual(p.started, [20_000, 40_500, 43_500]);
  p.finish();
  await timers.advance(0);
  assert.equal(c.status().passes, 3);
  await c.stop();
});

Deno.test("nothing runs before the cadence is armed; a wake before arming is kept for the first pass", async () => {
  const timers = new FakeTimers();
  const p = passes(timers);
  const c = coalescer(timers, p.pass);
  c.wake();
  await timers.advance(60_000);
  assert.deepEqual(p.started, []);
  c.arm();
  await timers.advance(1_000);
  assert.deepEqual(p.started, [61_000]);
  p.finish();
  await c.stop();
});

Deno.test("a pass that throws is reported and the cadence carries on; stop ends it", async () => {
  const timers = new FakeTimers();
  const errors: unknown[] = [];
  let runs = 0;
  const c = coalescer(timers, () => {
    runs++;
    return Promise.reject(new Error("the board file cannot be read"));
  }, (err) => errors.push(err));
  c.arm();
  await timers.advance(40_000);
  assert.equal(runs, 2);
  assert.equal(errors.length, 2);
  await c.stop();
  c.wake();
  await timers.advance(100_000);
  assert.equal(runs, 2);
  assert.equal(c.status().nextAt, null);
});
