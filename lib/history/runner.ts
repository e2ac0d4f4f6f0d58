/**
 * The server's import: one at a time, its progress readable while it runs (`GET /api/import`), started by the
 * import service (at start and every 15 minutes), by `POST /api/import` (what `./asm import` asks a running
 * server to do), and the refresh path: every few seconds, the transcripts still being written (modified in the
 * last hours, or of open and recently seen sessions, live or not) are re-derived when they grew.
 * @module
 */
import { type AgentConfig, loadAgents } from "../agents/mod.ts";
import type { Env } from "../config/mod.ts";
import type { TranscriptIo } from "../derive/mod.ts";
import { isLedgerOpen, isoAt, type Ledger, refreshCandidates } from "../ledger/mod.ts";
import { projectRules } from "./config.ts";
import { importOnce, type ImportReport } from "./import.ts";
import type { ImportProgress } from "./progress.ts";
import { type Clock, errorText, type LogLine } from "../lang/mod.ts";

/** What the runner needs (a subset of the server's context). */
export interface RunnerDeps {
  ledger: Ledger;
  asmHome: string;
  env: Env;
  log(line: LogLine): void;
  harnessRoots: readonly string[];
  /** The agents (default: the registry, read at each run so an edited agents.toml takes effect). */
  agents?: () => AgentConfig[];
  /** How often a long import lets the server answer requests (default 50 ms). */
  yieldEveryMs?: number;
  /** The reads (tests hand in failing ones). */
  io?: TranscriptIo;
  /** A full import lists first (`ImportOptions.list`); default: on a first run, from 500 new files. */
  list?: boolean;
  /** How far back "still being written" reaches for the refresh (default 6 hours). */
  refreshWindowMs?: number;
  now?: Clock;
}

/** What `GET /api/import` reports. */
export interface ImportStatus {
  running: boolean;
  kind: "full" | "refresh" | null;
  progress: ImportProgress | null;
  /** the last full import */
  last: ImportReport | null;
  /** the last refresh that read anything */
  last_refresh: ImportReport | null;
  last_error: string | null;
  /** full imports finished since the server started */
  runs: number;
}

/** One server's import, serialised. */
export class ImportRunner {
  #deps: RunnerDeps;
  #running: Promise<ImportReport | null> | null = null;
  #kind: "full" | "refresh" | null = null;
  #progress: ImportProgress | null = null;
  #last: ImportReport | null = null;
  #lastRefresh: ImportReport | null = null;
  #lastError: string | null = null;
  #runs = 0;
  // files that failed to read, so the refresh does not retry (and log) them until they change
  #failed = new Map<string, string>();
  // paths the watch saw change, waiting for the import that runs now
  #changed = new Set<string>();

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
  }

  /** A copy of the runner's state. */
  status(): ImportStatus {
    return {
      running: this.#running !== null,
      kind: this.#kind,
      progress: this.#progress,
      last: this.#last,
      last_refresh: this.#lastRefresh,
      last_error: this.#lastError,
      runs: this.#runs,
    };
  }

  /** Starts a full import unless one is running; true when it started one. */
  start(): boolean {
    if (this.#running !== null && this.#kind === "full") return false;
    this.full().catch(() => {/* recorded in last_error */});
    return true;
  }

  /** A full import; joins the one running. A refresh in progress is waited for first. */
  async full(): Promise<ImportReport | null> {
    while (this.#running !== null) {
      if (this.#kind === "full") return await this.#running;
      await this.#running.catch(() => null);
    }
    return await this.#run("full");
  }

  /** Re-derives the transcripts still being written that grew; skipped while another import runs. */
  async refresh(): Promise<ImportReport | null> {
    if (this.#running !== null) return null;
    return await this.#run("refresh");
  }

  /**
   * Reads the files the watch saw change (any change: grown, shrunk, new), each by the agent whose store shapes
   * it (other paths are nobody's and skipped). While another import runs they wait, and are read right after it.
   */
  async refreshFiles(paths: readonly string[]): Promise<ImportReport | null> {
    for (const path of paths) this.#changed.add(path);
    while (this.#running !== null) await this.#running.catch(() => null);
    if (this.#changed.size === 0) return null; // another caller read them meanwhile
    const changed = [...this.#changed];
    this.#changed.clear();
    return await this.#run("refresh", changed);
  }

  #run(kind: "full" | "refresh", changed?: string[]): Promise<ImportReport | null> {
    const d = this.#deps;
    const now = d.now ?? Date.now;
    this.#kind = kind;
    this.#progress = null;
    // a server closing closes its ledger: from then on the import stops and says nothing more (its folder may
    // already be being removed)
    const stopped = () => !isLedgerOpen(d.ledger);
    const work = (async () => {
      if (stopped()) return null;
      const { rules, problem } = projectRules(d.asmHome);
      if (problem !== null && kind === "full") d.log({ what: "project rules", error: problem });
      const agents = (d.agents ?? (() => loadAgents({ asmHome: d.asmHome, env: d.env })))();
      // a changed path is offered to every agent: each one's store shape takes its own and no other
      const only = changed !== undefined
        ? agents.flatMap((a) => changed.map((path) => ({ agent: a.name, path })))
        : kind === "refresh"
        ? refreshCandidates(d.ledger, isoAt(now() - (d.refreshWindowMs ?? 6 * 3600_000)))
        : undefined;
      if (only !== undefined && only.length === 0) return null;
      const report = await importOnce({
        ledger: d.ledger,
        agents,
        anyChange: changed !== undefined,
        env: d.env,
        asmHome: d.asmHome,
        harnessRoots: d.harnessRoots,
        log: (line) => {
          if (!stopped()) d.log({ task: kind === "full" ? "import" : "refresh", ...line });
        },
        onProgress: kind === "full" ? (p) => (this.#progress = p) : undefined,
        rules,
        yieldEveryMs: d.yieldEveryMs ?? 50,
        only,
        failed: kind === "refresh" ? this.#failed : undefined,
        now,
        shouldStop: stopped,
        io: d.io,
        list: kind === "full" ? d.list : undefined,
      });
      if (report.stopped) return null;
      if (kind === "full") {
        this.#last = report;
        this.#runs++;
        d.log({ what: "import", ...report });
      } else if (report.files_read + report.files_failed > 0) this.#lastRefresh = report;
      return report;
    })();
    const tracked = work.then(
      (report) => {
        this.#lastError = null;
        return report;
      },
      (err) => {
        if (stopped()) return null; // the server closed under it: nothing to report to anyone
        this.#lastError = errorText(err);
        throw err;
      },
    ).finally(() => {
      this.#running = null;
      this.#kind = null;
    });
    this.#running = tracked;
    return tracked;
  }
}
