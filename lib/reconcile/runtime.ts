/**
 * One server's board: its outliner (from config.toml's `[board]` and the mode), the claims, the board lock, what
 * the server believes of the board (the memo `GET /api/sprint` serves and `/api/live`'s digest hashes), and the
 * cadence:
 *
 * - the FIRST pass after every start is a DRY RUN: it reads, plans and logs every action it would take, and
 *   writes nothing (`sweep.ts`); the sweep service (lib/server) runs it, again every 20 s until it succeeds;
 * - only then is the cadence armed (lib/reconcile `wake.ts`): a 20 s timer, plus wakes (a driven session arriving
 *   in or leaving the live set, seen after each liveness poll; any button succeeding; the board file changing,
 *   through lib/board's watch), coalesced into one pass;
 * - a pass after a wake reads the board fresh; the timer's may use the outliner's 60 s memo;
 * - a pass that fails (a board that keeps changing, one that cannot be read) leaves ONE sentence as the board's
 *   problem (the page shows it) and one log line when the problem starts or changes; the next pass tries again.
 * @module
 */
import { basename } from "node:path";
import {
  type BoardRead,
  type BoardWatch,
  LIST_ROLES,
  type MarkdownOutliner,
  markdownOutliner,
  type Outliner,
  projectTag,
  watchBoard,
  WorkflowyApi,
  workflowyOutliner,
} from "../board/mod.ts";
import { type AgentConfig, loadAgents } from "../agents/mod.ts";
import { boardKeyFile, boardPath, type BoardSettings, DEFAULT_LIST_IDS, type Mode } from "../config/mod.ts";
import {
  boardLinks,
  type Ledger,
  linkedSessions,
  projectCounts,
  unboundLiveSessions,
} from "../ledger/mod.ts";
import type { ActionDeps } from "../launch/mod.ts";
import { sharedRefusal } from "../launch/mod.ts";
import { errorText, type Log } from "../lang/mod.ts";
import { Claims } from "./claims.ts";
import { type BoardDeps, BoardLock, BoardMemo } from "./deps.ts";
import type { ButtonDeps } from "./buttons.ts";
import type { EndBoard } from "./end.ts";
import { type PassReport, sweepOnce } from "./sweep.ts";
import { boardDigest, type SprintPayload, sprintView } from "./view.ts";
import { REAL_TIMERS, type Timers, WakeCoalescer, type WakeStatus } from "./wake.ts";

/** Options of {@link BoardRuntime}. */
export interface BoardRuntimeOptions {
  asmHome: string;
  mode: Mode;
  board: BoardSettings;
  ledger: Ledger;
  log: Log;
  /** The agents (default: agents.toml of the data folder, read once). */
  agents?: readonly AgentConfig[];
  /** Where the agents' folders are (agents.toml's overrides are found through it). */
  env?: Record<string, string>;
  /** An outliner of the test's own (the memory one); default: the configured backend. */
  outliner?: Outliner;
  /** The cadence's clock and timers (tests: a fake clock). */
  timers?: Timers;
  /** The cadence's settle window, minimum gap and timer (ms; defaults 1 s, 3 s, 20 s). */
  cadence?: { settleMs?: number; minGapMs?: number; everyMs?: number };
  /** Watch the board file for hand edits once armed (default: a Markdown board is watched). */
  watch?: boolean;
}

/** The outliner config.toml's `[board]` names, or why there is none (a sentence). */
export function configuredOutliner(asmHome: string, mode: Mode, board: BoardSettings): Outliner | string {
  switch (board.backend) {
    case "markdown":
      return markdownOutliner(boardPath(asmHome, mode, board), { lists: board.lists });
    case "workflowy": {
      const keyFile = boardKeyFile(asmHome, board);
      if (keyFile === null) {
        return `config.toml's [board] backend is "workflowy" but no key_file names the file holding its API key`;
      }
      if (board.url === "") {
        return `config.toml's [board] url cannot be used (it must be https, or http to this machine only); ` +
          `asm sends the key nowhere else instead`;
      }
      if (LIST_ROLES.some((role) => board.lists[role] === DEFAULT_LIST_IDS[role])) {
        return `config.toml's [board] backend is "workflowy": lists must name the three lists' Workflowy node ids`;
      }
      return workflowyOutliner({
        lists: board.lists,
        api: new WorkflowyApi({ url: board.url ?? undefined, keyFile }),
      });
    }
    default:
      return `config.toml's [board] backend "${board.backend}" is not one asm has ("markdown", "workflowy")`;
  }
}

/** One server's board. */
export class BoardRuntime {
  readonly mode: Mode;
  readonly backend: string;
  readonly location: string;
  readonly listIds: BoardSettings["lists"];
  readonly memo = new BoardMemo();
  readonly claims: Claims;
  readonly lock = new BoardLock();
  readonly agents: readonly AgentConfig[];
  /** Null while the board is off (a backend asm does not have): `problem` says why. */
  readonly deps: BoardDeps | null;
  readonly #folders: Record<string, string>;
  readonly #log: Log;
  readonly #coalescer: WakeCoalescer;
  readonly #watchFile: boolean;
  #watch: BoardWatch | null = null;
  #off: string | null = null;
  #dryRunDone = false;
  #woken = false;
  #liveIds: string | null = null;
  #loggedProblem: string | null = null;
  #closed = false;

  constructor(options: BoardRuntimeOptions) {
    this.mode = options.mode;
    this.listIds = options.board.lists;
    this.#folders = options.board.folders;
    this.#log = options.log;
    let agents = options.agents ?? null;
    let outliner: Outliner | null = options.outliner ?? null;
    const path = boardPath(options.asmHome, options.mode, options.board);
    try {
      agents ??= loadAgents({ asmHome: options.asmHome, env: options.env });
      if (outliner === null) {
        const built = configuredOutliner(options.asmHome, options.mode, options.board);
        if (typeof built === "string") this.#off = `the board is off: ${built}`;
        else outliner = built;
      }
    } catch (err) {
      // the server still serves everything else; the page says why its board is not there
      outliner = null;
      this.#off = `the board is off: ${errorText(err)}`;
      options.log({ what: "board off", problem: this.#off });
    }
    this.agents = agents ?? [];
    this.claims = new Claims({ now: options.timers?.now });
    this.backend = outliner?.backend ?? options.board.backend;
    this.location = outliner?.location ?? path;
    this.#watchFile = options.watch ?? outliner?.backend === "markdown";
    this.deps = outliner === null ? null : {
      outliner,
      ledger: options.ledger,
      claims: this.claims,
      agents: this.agents.map((a) => ({ name: a.name, tag: a.tag })),
      lock: this.lock,
      memo: this.memo,
      log: options.log,
      now: options.timers?.now,
    };
    this.#coalescer = new WakeCoalescer({
      pass: () => this.#pass(),
      timers: options.timers ?? REAL_TIMERS,
      ...options.cadence,
    });
  }

  /** The sentence the page shows when the board is off, cannot be read, or its last pass gave up; else null. */
  get problem(): string | null {
    return this.#off ?? this.memo.problem;
  }

  /** The cadence's state (armed after the dry run). */
  cadence(): WakeStatus & { dry_run_done: boolean } {
    return { ...this.#coalescer.status(), dry_run_done: this.#dryRunDone };
  }

  /**
   * The first pass after the start: a dry run, logged action by action, writing nothing. Once it succeeds the
   * cadence is armed (and the file watch started); until then the sweep service calls it again. Returns null
   * when there is nothing to do (done already, or the board is off).
   */
  async dryRun(): Promise<PassReport | null> {
    if (this.#dryRunDone || this.deps === null || this.#closed) return null;
    let report: PassReport;
    try {
      report = await sweepOnce(this.deps, { fresh: true, dryRun: true });
    } catch (err) {
      this.#failed(err);
      throw err;
    }
    this.#succeeded();
    this.#dryRunDone = true;
    this.#arm();
    return report;
  }

  #arm(): void {
    this.#coalescer.arm();
    const outliner = this.deps?.outliner as MarkdownOutliner | undefined;
    if (this.#watchFile && outliner && "peek" in outliner && this.#watch === null) {
      this.#watch = watchBoard(outliner, () => this.wake(), { log: this.#log });
    }
  }

  async #pass(): Promise<void> {
    if (this.deps === null) return;
    // a wake means something changed: read the board itself; the timer may use the memo
    const fresh = this.#woken;
    this.#woken = false;
    try {
      await sweepOnce(this.deps, { fresh, dryRun: false });
      this.#succeeded();
    } catch (err) {
      this.#failed(err);
    }
  }

  #failed(err: unknown): void {
    const problem = errorText(err);
    this.memo.problem = problem;
    // one line when the problem starts or changes, not one per pass (an editor autosaving all afternoon)
    if (problem !== this.#loggedProblem) this.#log({ what: "board problem", problem });
    this.#loggedProblem = problem;
  }

  #succeeded(): void {
    if (this.#loggedProblem !== null) this.#log({ what: "board problem gone" });
    this.#loggedProblem = null;
    this.memo.problem = null;
  }

  /** Something the board follows changed: one pass soon, however many wakes (and none before the dry run). */
  wake(): void {
    this.#woken = true;
    this.#coalescer.wake();
  }

  /**
   * After each liveness poll, the driven sessions' ids: a session arriving in or leaving the set wakes a pass.
   * The first set seen is only remembered (the first pass reads the board anyway).
   */
  observeLive(asmIds: readonly string[]): void {
    const key = [...asmIds].sort().join(" ");
    const before = this.#liveIds;
    this.#liveIds = key;
    if (before !== null && before !== key) this.wake();
  }

  /** The digest of the board the server believes (no read of the outliner): `/api/live`'s `board_digest`. */
  digest(): string | null {
    if (this.deps === null) return null;
    return boardDigest(this.memo.read, this.memo.links, this.claims.view(), this.problem);
  }

  /** The board as the server believes it; a first read (or `fresh`) reads the outliner. */
  async board(options: { fresh?: boolean } = {}): Promise<BoardRead | null> {
    if (this.deps === null) return null;
    if (this.memo.read !== null && !options.fresh) return this.memo.read;
    try {
      const read = await this.deps.outliner.read({ fresh: options.fresh === true });
      this.memo.believe(read, boardLinks(this.deps.ledger));
      return read;
    } catch (err) {
      // the page shows what is wrong with the file; nothing is written from a read that failed
      this.#failed(err);
      return this.memo.read;
    }
  }

  /** `GET /api/sprint`'s body. */
  async view(ledger: Ledger, options: { fresh?: boolean } = {}): Promise<SprintPayload> {
    const read = await this.board(options);
    const links = this.deps === null ? [] : boardLinks(ledger);
    return sprintView({
      backend: this.backend,
      location: this.location,
      mode: this.mode,
      listIds: this.listIds,
      read,
      problem: this.problem,
      links,
      sessions: linkedSessions(ledger),
      unboundLive: unboundLiveSessions(ledger),
      claims: this.claims.view(),
      agents: this.agents.map((a) => ({
        name: a.name,
        display: a.display,
        tag: a.tag,
        shared: sharedRefusal(a, { pid_shared: 0 }),
      })),
    });
  }

  /** What the buttons need, with lib/launch's dependencies for this request; null while the board is off. */
  buttons(actions: ActionDeps): ButtonDeps | null {
    if (this.deps === null) return null;
    return {
      ...this.deps,
      actions,
      folderOf: (tag) => this.#folderOf(tag),
      wake: () => this.wake(),
    };
  }

  /** What END needs of the board; null while the board is off (END then ends the session alone). */
  ending(): EndBoard | null {
    return this.deps === null ? null : { ...this.deps, wake: () => this.wake() };
  }

  /** The folder of a project tag: config's `[board] folders`, else the project folder the ledger files most under it. */
  #folderOf(tag: string): string | null {
    const configured = this.#folders[tag];
    if (configured !== undefined) return configured;
    if (this.deps === null) return null;
    for (const tile of projectCounts(this.deps.ledger)) {
      if (tile.folder !== null && projectTag(basename(tile.folder)) === tag) return tile.folder;
    }
    return null;
  }

  /** Stops the cadence and the file watch (a pass under way finishes first). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#coalescer.stop();
    await this.#watch?.close();
    this.#watch = null;
  }
}
