/**
 * The running server's way of learning that a transcript changed: a recursive file-system watch on each agent's
 * transcript folders. The paths of a burst of events (an agent appends a line as several writes) settle for a
 * moment and are handed on once; the server then reads just those files (`ImportRunner.refreshFiles`), so a live
 * transcript's growth reaches the page within a second. The 15-minute walk stays the safety net for whatever a
 * watch cannot see (a folder made while it was down, a watch the kernel refused).
 * @module
 */
import { errorText, type Log } from "../lang/mod.ts";

/** How long a burst of events settles before its paths are handed on (ms). */
export const WATCH_SETTLE_MS = 150;
/**
 * The least time between two hand-overs' starts (ms): an agent in a turn writes many times a second, and each
 * hand-over is one small import; the paths of the meantime are gathered into the next.
 */
export const WATCH_MIN_GAP_MS = 500;
/** The longest a changed path waits for its burst to settle (ms): steady writes never hold a read back for ever. */
export const WATCH_MAX_WAIT_MS = 1000;

/** What starts a watch: Deno's own, or a test's. */
export type WatchFs = (paths: string[], options: { recursive: boolean }) => Deno.FsWatcher;

/** Options of {@link TranscriptWatch}. */
export interface TranscriptWatchOptions {
  /** Called with the paths that changed, once a burst settled; never twice at once. */
  onChange(paths: string[]): Promise<void> | void;
  log: Log;
  settleMs?: number;
  minGapMs?: number;
  watchFs?: WatchFs;
}

/** The watch of the agents' transcript folders; {@link arm} (again) whenever the folders that exist change. */
export class TranscriptWatch {
  #options: TranscriptWatchOptions;
  #watcher: Deno.FsWatcher | null = null;
  #loop: Promise<void> | null = null;
  #roots: string[] = [];
  #pending = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #handing: Promise<void> | null = null;
  #lastHanded = -Infinity;
  /** when the oldest path waiting was seen (performance.now), or null */
  #waitingSince: number | null = null;
  #closed = false;
  #lastProblem: string | null = null;

  constructor(options: TranscriptWatchOptions) {
    this.#options = options;
  }

  /** The folders watched now. */
  roots(): string[] {
    return [...this.#roots];
  }

  /**
   * Watches the folders of `roots` that exist (the others are the walk's until they do). Nothing changes when it
   * is the same set; a watch the kernel refuses (too many folders for its limit) is one log line and a sentence.
   */
  async arm(roots: readonly string[]): Promise<string | null> {
    if (this.#closed) return null;
    const there = [...new Set(roots)].filter(isFolder).sort();
    if (this.#watcher !== null && there.join("\n") === this.#roots.join("\n")) return null;
    await this.#stop();
    this.#roots = there;
    if (there.length === 0) return null;
    try {
      this.#watcher = (this.#options.watchFs ?? Deno.watchFs)(there, { recursive: true });
    } catch (err) {
      this.#roots = [];
      const problem =
        `the transcript folders cannot be watched (${errorText(err)}); changes are read by the ` +
        "refresh and the 15-minute walk instead";
      // armed again every minute: the same refusal is one log line, not one a minute
      if (problem !== this.#lastProblem) {
        this.#options.log({ what: "transcript watch failed", error: errorText(err) });
      }
      this.#lastProblem = problem;
      return problem;
    }
    this.#lastProblem = null;
    const watcher = this.#watcher;
    this.#loop = (async () => {
      try {
        for await (const event of watcher) {
          if (this.#closed) break;
          // a read (the import's own, a search's) changes nothing
          if (event.kind === "access") continue;
          for (const path of event.paths) this.#pending.add(path);
          this.#waitingSince ??= performance.now();
          // a burst settles, but a path waits no longer than the most: steady writes are read as they go
          if (performance.now() - this.#waitingSince >= WATCH_MAX_WAIT_MS && this.#timer !== undefined) {
            continue;
          }
          if (this.#timer !== undefined) clearTimeout(this.#timer);
          this.#timer = setTimeout(() => this.#settled(), this.#options.settleMs ?? WATCH_SETTLE_MS);
        }
      } catch (err) {
        if (!this.#closed) this.#options.log({ what: "transcript watch stopped", error: errorText(err) });
      }
    })();
    return null;
  }

  #settled(): void {
    this.#timer = undefined;
    if (this.#closed || this.#pending.size === 0) return;
    // one hand-over at a time, and not more often than the gap: paths that come meanwhile wait for the next
    const wait = this.#lastHanded + (this.#options.minGapMs ?? WATCH_MIN_GAP_MS) - performance.now();
    if (this.#handing !== null || wait > 0) {
      this.#timer = setTimeout(
        () => this.#settled(),
        Math.max(wait, this.#options.settleMs ?? WATCH_SETTLE_MS),
      );
      return;
    }
    this.#lastHanded = performance.now();
    const paths = [...this.#pending];
    this.#pending.clear();
    this.#waitingSince = null;
    this.#handing = (async () => {
      try {
        await this.#options.onChange(paths);
      } catch (err) {
        // a timer's throw would end the server: one line, and the next change reads again
        this.#options.log({
          what: "transcript watch: reading the changed files failed",
          error: errorText(err),
        });
      } finally {
        this.#handing = null;
      }
    })();
  }

  async #stop(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#watcher !== null) {
      try {
        this.#watcher.close();
      } catch (err) {
        if (!(err instanceof Deno.errors.BadResource)) throw err; // closed already
      }
    }
    await this.#loop;
    this.#watcher = null;
    this.#loop = null;
  }

  /** Stops watching; no hand-over starts after this resolves (one already running is waited for). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#stop();
    await this.#handing;
  }
}

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}
