/**
 * The reconciler's cadence: a 20 s timer (the safety net) plus wakes (the real-time path: a driven session
 * arriving in or leaving the live set, a button succeeding, the board file changing), coalesced:
 *
 * - ONE flag, however many times it is set;
 * - a short settle window from the first wake, so a burst becomes one pass;
 * - a minimum gap from the end of one pass to the start of the next, so two passes never run back to back;
 * - the flag cleared BEFORE the pass, so a wake arriving mid-pass survives it and earns exactly one follow-up,
 *   never a queue.
 *
 * Nothing runs before {@link WakeCoalescer.arm}: the server's first pass after a start is a dry run it makes
 * itself, and only after it succeeds is the cadence armed. Time comes from an injected {@link Timers}, so tests
 * drive it with a fake clock and no real sleep.
 * @module
 */

/** The clock and timers the coalescer uses (the global ones in production). */
export interface Timers {
  now(): number;
  /** Returns the timer's handle, whatever the runtime makes it. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock and timers. */
export const REAL_TIMERS: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Options of {@link WakeCoalescer}. */
export interface WakeOptions {
  /** One reconciler pass. A throw is handed to `onError` and the cadence carries on. */
  pass: () => Promise<void>;
  /** From the first wake of a burst to its pass (default 1 s). */
  settleMs?: number;
  /** From the end of a pass to the start of the next, at least (default 3 s). */
  minGapMs?: number;
  /** From the end of a pass to the next when nothing wakes it (default 20 s). */
  everyMs?: number;
  timers?: Timers;
  /** A pass that threw (the server logs one line). */
  onError?: (err: unknown) => void;
}

/** What /api/health can show of the cadence. */
export interface WakeStatus {
  armed: boolean;
  running: boolean;
  passes: number;
  /** when the next pass is due (epoch ms), or null */
  nextAt: number | null;
}

/** The coalescer: `wake()` from anywhere, as often as you like; passes run one at a time. */
export class WakeCoalescer {
  #pass: () => Promise<void>;
  #settleMs: number;
  #minGapMs: number;
  #everyMs: number;
  #timers: Timers;
  #onError: (err: unknown) => void;

  #flag = false;
  #armed = false;
  #stopped = false;
  #running: Promise<void> | null = null;
  #timer: unknown = null;
  #nextAt: number | null = null;
  #lastEnd: number | null = null;
  #passes = 0;

  constructor(options: WakeOptions) {
    this.#pass = options.pass;
    this.#settleMs = options.settleMs ?? 1_000;
    this.#minGapMs = options.minGapMs ?? 3_000;
    this.#everyMs = options.everyMs ?? 20_000;
    this.#timers = options.timers ?? REAL_TIMERS;
    this.#onError = options.onError ?? (() => {});
  }

  /** Something changed: a pass soon (after the settle window and the minimum gap), one however many wakes. */
  wake(): void {
    if (this.#stopped) return;
    this.#flag = true;
    // mid-pass, the flag alone is enough: the pass's end schedules the one follow-up
    if (!this.#armed || this.#running !== null) return;
    const at = this.#earliest();
    // a pass already due sooner (the first wake of this burst) is not pushed back by the later ones
    if (this.#nextAt === null || at < this.#nextAt) this.#schedule(at);
  }

  /** Starts the cadence (after the dry run succeeded): the timer, and a pass for any wake that came before. */
  arm(): void {
    if (this.#stopped || this.#armed) return;
    this.#armed = true;
    this.#schedule(this.#flag ? this.#earliest() : this.#timers.now() + this.#everyMs);
  }

  /** Stops the cadence; a pass under way finishes first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clear();
    await this.#running;
  }

  /** A copy of the cadence's state. */
  status(): WakeStatus {
    return {
      armed: this.#armed,
      running: this.#running !== null,
      passes: this.#passes,
      nextAt: this.#nextAt,
    };
  }

  #earliest(): number {
    const now = this.#timers.now();
    const afterGap = this.#lastEnd === null ? now : this.#lastEnd + this.#minGapMs;
    return Math.max(now + this.#settleMs, afterGap);
  }

  #clear(): void {
    if (this.#timer !== null) this.#timers.clearTimeout(this.#timer);
    this.#timer = null;
    this.#nextAt = null;
  }

  #schedule(at: number): void {
    this.#clear();
    this.#nextAt = at;
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = null;
      this.#nextAt = null;
      this.#running = this.#run();
    }, Math.max(0, at - this.#timers.now()));
  }

  async #run(): Promise<void> {
    // cleared BEFORE the pass: a wake arriving while it runs sets it again and earns exactly one follow-up
    this.#flag = false;
    try {
      await this.#pass();
    } catch (err) {
      this.#onError(err);
    } finally {
      this.#passes++;
      this.#lastEnd = this.#timers.now();
      this.#running = null;
      if (!this.#stopped) {
        this.#schedule(this.#flag ? this.#earliest() : this.#lastEnd + this.#everyMs);
      }
    }
  }
}

/**
 * A clock and timers that move only when told: the cadence's tests, and the board bench, which runs the server's
 * cadence against a real outliner over real I/O on it.
 */
export class ManualTimers {
  #now: number;
  #next = 1;
  readonly #due = new Map<number, { at: number; fn: () => void }>();
  /** The {@link Timers} to hand the cadence (and the clock to hand anything else). */
  readonly timers: Timers = {
    now: () => this.#now,
    setTimeout: (fn, ms) => (this.#due.set(this.#next, { at: this.#now + ms, fn }), this.#next++),
    clearTimeout: (id) => void this.#due.delete(id as number),
  };

  constructor(start = 0) {
    this.#now = start;
  }

  /** The clock now. */
  now = (): number => this.#now;

  /** Moves the clock to the first timer due and runs it, and whatever it started on promises alone; the time. */
  async fireNext(): Promise<number> {
    const first = this.#first();
    if (!first) throw new Error("no timer is due");
    this.#fire(first);
    for (let i = 0; i < 100; i++) await Promise.resolve();
    return this.#now;
  }

  /**
   * Fires the timers due up to `until`, in order; after each, waits (in real time) while `busy()` says what it
   * started is still running (a pass doing real I/O), so the clock never moves under it. Ends at `until`.
   */
  async runUntil(until: number, busy: () => boolean): Promise<void> {
    for (;;) {
      while (busy()) await new Promise((r) => setTimeout(r, 1));
      const first = this.#first();
      if (!first || first[1].at > until) break;
      this.#fire(first);
      await new Promise((r) => setTimeout(r, 0));
    }
    this.#now = until;
  }

  #first(): [number, { at: number; fn: () => void }] | undefined {
    return [...this.#due.entries()].sort((a, b) => a[1].at - b[1].at)[0];
  }

  #fire([id, timer]: [number, { at: number; fn: () => void }]): void {
    this.#due.delete(id);
    this.#now = timer.at;
    timer.fn();
  }
}
