/**
 * A background task on a timer: never overlapping itself, its health visible in /api/health (when it last
 * ran, how long it took, its last error). A failure is logged when it starts or changes (the same error again
 * every tick is counted, not logged again: a ledger that refuses writes must not fill server.log), its end is
 * logged once, and the timer carries on.
 * @module
 */
import { isoAt, LedgerUnwritableError } from "../ledger/mod.ts";
import { errorText, type Log } from "../lang/mod.ts";

/** What /api/health shows of a task. */
export interface TaskStatus {
  name: string;
  every_ms: number;
  running: boolean;
  runs: number;
  errors: number;
  last_started_at: string | null;
  last_finished_at: string | null;
  last_ms: number | null;
  last_error: string | null;
  /** when a run last finished without an error */
  last_ok_at: string | null;
}

/** A task run every `everyMs` after the previous run finished. */
export class BackgroundTask {
  #status: TaskStatus;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = true;
  /** the current failure was logged (a refused ledger write is not: the ledger watch says it once) */
  #failureLogged = false;

  constructor(
    readonly name: string,
    readonly everyMs: number,
    readonly work: () => void | Promise<void>,
    readonly log: Log,
    /** the first run's delay after `start()` (default: at once) */
    readonly startAfterMs = 0,
  ) {
    this.#status = {
      name,
      every_ms: everyMs,
      running: false,
      runs: 0,
      errors: 0,
      last_started_at: null,
      last_finished_at: null,
      last_ms: null,
      last_error: null,
      last_ok_at: null,
    };
  }

  /** Runs once after `startAfterMs` (default now), then every `everyMs`. */
  start(): void {
    this.#stopped = false;
    this.#schedule(this.startAfterMs);
  }

  /** Stops the timer; a run in progress finishes. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** A copy of the task's health. */
  status(): TaskStatus {
    return { ...this.#status };
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    // nobody awaits a tick: one that threw past its own catch (its log failing) would end the whole server
    this.#timer = setTimeout(() => {
      this.#tick().catch((err) => (this.#status.last_error = errorText(err)));
    }, delay);
  }

  async #tick(): Promise<void> {
    const started = performance.now();
    this.#status.running = true;
    this.#status.last_started_at = isoAt();
    try {
      await this.work();
      if (this.#failureLogged) this.log({ what: "task recovered", task: this.name });
      this.#failureLogged = false;
      this.#status.last_error = null;
      this.#status.last_ok_at = isoAt();
    } catch (err) {
      this.#status.errors++;
      const error = errorText(err);
      if (error !== this.#status.last_error) {
        // every writer fails on a refused ledger each tick; the ledger watch logs the cause once for them all
        this.#failureLogged = !(err instanceof LedgerUnwritableError);
        if (this.#failureLogged) this.log({ what: "task failed", task: this.name, error });
      }
      this.#status.last_error = error;
    } finally {
      this.#status.running = false;
      this.#status.runs++;
      this.#status.last_finished_at = isoAt();
      this.#status.last_ms = Math.round(performance.now() - started);
      this.#schedule(this.everyMs);
    }
  }
}
