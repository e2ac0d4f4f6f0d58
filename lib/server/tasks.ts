/**
 * A background task on a timer: never overlapping itself, its health visible in /api/health (when it last
 * ran, how long it took, its last error). An error is logged once per failure and the timer carries on.
 * @module
 */
import { isoAt } from "../ledger/mod.ts";
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
}

/** A task run every `everyMs` after the previous run finished. */
export class BackgroundTask {
  #status: TaskStatus;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = true;

  constructor(
    readonly name: string,
    readonly everyMs: number,
    readonly work: () => void | Promise<void>,
    readonly log: Log,
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
    };
  }

  /** Runs once now, then every `everyMs`. */
  start(): void {
    this.#stopped = false;
    this.#schedule(0);
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
    this.#timer = setTimeout(() => this.#tick(), delay);
  }

  async #tick(): Promise<void> {
    const started = performance.now();
    this.#status.running = true;
    this.#status.last_started_at = isoAt();
    try {
      await this.work();
      this.#status.last_error = null;
    } catch (err) {
      this.#status.errors++;
      this.#status.last_error = errorText(err);
      this.log({ what: "task failed", task: this.name, error: this.#status.last_error });
    } finally {
      this.#status.running = false;
      this.#status.runs++;
      this.#status.last_finished_at = isoAt();
      this.#status.last_ms = Math.round(performance.now() - started);
      this.#schedule(this.everyMs);
    }
  }
}
