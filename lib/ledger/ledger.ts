/**
 * The Ledger: EVERY write to SQLite goes through this class, and only the process holding the writer lock opens
 * it for writing. It gathers facts from the database, asks the pure `transition()` what to do, and writes the
 * result in one transaction per input.
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { eventRangeProblem, type HookEvent } from "./event.ts";
import { pidProblem, RUN_IN_RANGE_SQL, ticksProblem } from "./bounds.ts";
import { HIDDEN_REASON_SQL, underHarnessRoot } from "./hidden.ts";
import { asmIdOf } from "./identity.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "./schema.ts";
import { isoAt } from "./time.ts";
import {
  type LedgerInput,
  type LedgerState,
  type ProcessKey,
  processOfEvent,
  type RunState,
  type SessionState,
  type Status,
  transition,
} from "./transition.ts";
import { type Clock, errorText } from "../lang/mod.ts";
import { type FileIdentity, fileIdentity, identityProblem, LedgerUnwritableError } from "./ledger_file.ts";
import { cacheStatements } from "./statement_cache.ts";
import { readWide } from "./wide_reads.ts";

/** Options of `Ledger.open`. */
export interface LedgerOptions {
  /** folders whose sessions are harness runs (system temp, asm's data folder, the hooks folder) */
  harnessRoots?: readonly string[];
  /** the clock, for ingested_at; tests pass a fixed one */
  now?: Clock;
}

/** What became of one event handed to the ledger. */
export type ApplyOutcome = "applied" | "duplicate" | "ignored";

/** A session row as the list shows it, with its hidden reason (null when visible). */
export interface SessionRow {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  status: Status;
  name: string | null;
  cwd: string | null;
  transcript_path: string | null;
  source: string | null;
  thread_source: string | null;
  nested: number;
  pid_shared: number;
  harness: number;
  started_at: string | null;
  last_seen: string | null;
  ended_at: string | null;
  end_reason: string | null;
  turns: number | null;
  prompts: number;
  cleared_from_asm_id: string | null;
  launch_token: string | null;
  /** the latest start's skipped standing rules, null when none was skipped */
  rules_note: string | null;
  hidden: boolean;
  hidden_reason: string | null;
}

/** A run row. */
export interface RunRow extends RunState {
  run_id: number;
  asm_id: string;
}

/** Row counts for /api/health. */
export interface LedgerCounts {
  sessions: number;
  visible: number;
  live: number;
  runs: number;
  open_runs: number;
  events: number;
}

/** The ledger was given something it refuses to store. */
export class LedgerError extends Error {
  override name = "LedgerError";
}

type Row = Record<string, SQLInputValue>;

/**
 * The key to the database for modules INSIDE lib/ledger/ (derived.ts, launches.ts, ...). It is not re-exported by
 * lib/ledger/mod.ts, so code elsewhere cannot write the database: it calls the functions those modules export.
 */
export const DB = Symbol("ledger database");

/** What lib/ledger modules get through `ledger[DB]`. */
export interface LedgerDb {
  /** runs `fn` in one write transaction (BEGIN IMMEDIATE ... COMMIT; ROLLBACK on a throw) */
  write<T>(fn: (db: DatabaseSync) => T): T;
  /** the database, for reads */
  db: DatabaseSync;
  /** a read statement, compiled once per ledger (a statement compiled per call holds native memory until GC) */
  prepare(sql: string): StatementSync;
}

/** The SQLite ledger. */
export class Ledger {
  readonly path: string;
  #db: DatabaseSync;
  #harnessRoots: readonly string[];
  #now: Clock;
  #version = 0;
  #statements = new Map<string, StatementSync>();
  /** the file SQLite opened (null for ":memory:"): a write goes only into the file still at `path` */
  #opened: FileIdentity | null;
  /** why writes are held (the server's watch found the file or its folder read-only), or null */
  #held: string | null = null;
  /** reads that met a number too large to be one, not yet taken (wide_reads.ts) */
  #wideReads: string[];

  private constructor(
    path: string,
    db: DatabaseSync,
    options: LedgerOptions,
    opened: FileIdentity | null,
    wideReads: string[],
  ) {
    this.path = path;
    this.#db = db;
    this.#wideReads = wideReads;
    this.#opened = opened;
    this.#harnessRoots = options.harnessRoots ?? [];
    this.#now = options.now ?? Date.now;
  }

  /** Access for modules inside lib/ledger/ only (see DB). */
  get [DB](): LedgerDb {
    return { write: (fn) => this.#tx(() => fn(this.#db)), db: this.#db, prepare: (sql) => this.#stmt(sql) };
  }

  /** Opens (creating and migrating when needed) the ledger at `path`, in WAL mode. */
  static open(path: string, options: LedgerOptions = {}): Ledger {
    // every prompt is in here: SQLite gives its -wal and -shm files the database file's own mode, so a new
    // ledger is created 0600 before SQLite opens it (":memory:" has no file)
    // (opening it for writing here also proves it writable: SQLite would quietly open a read-only file read-only,
    // and no later chmod would let that connection write; this is the last time asm opens the file itself)
    if (path !== ":memory:") {
      try {
        Deno.writeFileSync(path, new Uint8Array(0), { append: true, mode: 0o600 });
      } catch (err) {
        throw new LedgerError(
          `the ledger file ${path} cannot be opened for writing (${errorText(err)}); make it writable ` +
            `(chmod u+w ${path}) and start again`,
        );
      }
    }
    // each SQL text compiled once per connection: see statement_cache.ts (native memory V8 does not count); each
    // read survives a stored number too large to be one (wide_reads.ts), and says so once per statement
    const wideReads: string[] = [];
    const met = new Set<string>();
    const db = cacheStatements(readWide(new DatabaseSync(path), (sql) => {
      if (met.has(sql)) return;
      met.add(sql);
      wideReads.push(sql);
    }));
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA foreign_keys = ON");
    const ledger = new Ledger(path, db, options, path === ":memory:" ? null : fileIdentity(path), wideReads);
    ledger.#migrate();
    return ledger;
  }

  /**
   * Why a write would be refused now, or null: the path no longer names the file SQLite opened (deleted or
   * replaced), or writes are held (see {@link holdWrites}).
   */
  writeRefusal(): string | null {
    return identityProblem(this.fileIdentities())?.sentence ?? this.#held;
  }

  /** The identity of the file SQLite opened and of what is at the path now (for the health model). */
  fileIdentities(): { path: string; opened: FileIdentity | null; current: FileIdentity | null } {
    return {
      path: this.path,
      opened: this.#opened,
      current: this.#opened === null ? null : fileIdentity(this.path),
    };
  }

  /**
   * The reads (their SQL) that met a stored integer beyond 2^53 since the last call, each once per ledger: such a
   * value was read as null instead of failing the read (wide_reads.ts). The server's ledger watch logs them.
   */
  takeWideReads(): string[] {
    return this.#wideReads.splice(0);
  }

  /**
   * Holds every write (each throws `LedgerUnwritableError` with `reason`) until called with null: the server's
   * watch holds them while the file or its folder is read-only, so nothing is written that a restart could not
   * open for writing, and lets them go when the mode is fixed; the open connection was never closed, so no
   * restart is needed.
   */
  holdWrites(reason: string | null): void {
    this.#held = reason;
  }

  /**
   * Writes a consistent copy of the database, read through this connection, into `target` (an empty file the
   * caller created with the mode it wants, or none). Through this connection because a ledger deleted while open
   * can be read only here: this is how what it held is saved.
   */
  snapshotInto(target: string): void {
    this.#db.prepare("VACUUM INTO ?").run(target);
  }

  /**
   * A counter that moves with every committed write of this process (the only writer): a reader may cache what
   * it computed from the ledger until this moves.
   */
  version(): number {
    return this.#version;
  }

  /** The schema version recorded in `meta`. */
  schemaVersion(): number {
    const row = this.#stmt("SELECT value FROM meta WHERE key = 'schema_version'").get() as
      | Row
      | undefined;
    return row ? Number(row.value) : 0;
  }

  #migrate(): void {
    const hasMeta = this.#stmt("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
      .get();
    const current = hasMeta ? this.schemaVersion() : 0;
    if (current > SCHEMA_VERSION) {
      throw new LedgerError(
        `the ledger at ${this.path} has schema version ${current}, newer than this asm (${SCHEMA_VERSION}); ` +
          "update asm or point ASM_HOME elsewhere",
      );
    }
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      this.#tx(() => {
        this.#db.exec(m.sql);
        this.#stmt("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(
          String(m.version),
        );
      });
    }
  }

  // compiled once: a drain applies thousands of events, and compiling each statement each time doubled its cost
  #stmt(sql: string): StatementSync {
    let st = this.#statements.get(sql);
    if (!st) {
      st = this.#db.prepare(sql);
      this.#statements.set(sql, st);
    }
    return st;
  }

  #tx<T>(fn: () => T): T {
    // before every write, not on a timer: a write into a deleted ledger is lost for good (one stat, ~2 us)
    const refusal = this.writeRefusal();
    if (refusal !== null) throw new LedgerUnwritableError(refusal);
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.#db.exec("COMMIT");
      this.#version++;
      return out;
    } catch (err) {
      // SQLite rolls some failures back by itself (a full disk, an I/O error): a ROLLBACK then fails with "no
      // transaction is active", and throwing that would hide the cause a person has to act on
      try {
        if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      } catch {
        // the error that made us roll back is the one thrown below; a failed rollback is its consequence
      }
      throw err;
    }
  }

  /**
   * Applies one hook event in one transaction: a duplicate event id is discarded before anything else; the
   * event is stored with what became of it.
   */
  applyEvent(event: HookEvent): ApplyOutcome {
    const expected = asmIdOf(event.agent, event.agent_session_id);
    if (event.asm_id !== expected) {
      throw new LedgerError(
        `event ${event.event_id} carries asm_id ${event.asm_id}, but ${event.agent}:${event.agent_session_id} ` +
          `is ${expected}`,
      );
    }
    // parseEvent dropped these already; an event built elsewhere must not store a run no read could load
    const outOfRange = eventRangeProblem(event);
    if (outOfRange !== null) {
      throw new LedgerError(`event ${event.event_id} carries a value out of range, ${outOfRange}`);
    }
    return this.#tx(() => {
      if (this.#stmt("SELECT 1 FROM events WHERE id = ?").get(event.event_id)) return "duplicate";
      const state = this.#load(event.asm_id);
      const clearedFrom = event.event === "SessionStart" && event.source === "clear"
        ? this.#clearedFrom(event)
        : null;
      const next = transition(state, { kind: "hook", event, clearedFrom });
      this.#store(next);
      this.#insertEvent(event, "applied");
      return "applied";
    });
  }

  /**
   * Stores an event without applying it (kept as evidence, so a second sight of it is a duplicate), e.g. a
   * notify for a thread that never gets a transcript.
   */
  recordIgnored(event: HookEvent, why: string): ApplyOutcome {
    return this.#tx(() => {
      if (this.#stmt("SELECT 1 FROM events WHERE id = ?").get(event.event_id)) return "duplicate";
      this.#insertEvent(event, `ignored: ${why}`);
      return "ignored";
    });
  }

  #insertEvent(event: HookEvent, outcome: string): void {
    this.#stmt(
      `INSERT INTO events (id, asm_id, agent, agent_session_id, event, ts, payload, ingested_at, outcome)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      event.event_id,
      event.asm_id,
      event.agent,
      event.agent_session_id,
      event.event,
      event.ts,
      JSON.stringify(event),
      isoAt(this.#now()),
      outcome,
    );
  }

  /** The poll found these runs' processes gone; a live session with no open run left becomes lost. */
  runsGone(asmId: string, runs: ProcessKey[], at: string): Status | null {
    return this.#input(asmId, { kind: "runs_gone", runs, at });
  }

  /** END: claim `killed` BEFORE the signal, so a poll landing in between cannot overwrite it. */
  claimKilled(asmId: string, at: string, reason?: string): Status | null {
    return this.#input(asmId, { kind: "kill_claimed", at, reason });
  }

  /**
   * END of a running session with no open run (no process of it was ever seen): recorded lost with the reason,
   * nothing signalled. A session that has an open run is left as it is (END proves and signals that one).
   */
  endUnseen(asmId: string, at: string): Status | null {
    return this.#input(asmId, { kind: "ended_unseen", at });
  }

  /**
   * END failed after its claim: the session goes back to the status it had (the spec: claim before you act,
   * release on failure). A session no longer killed (a later start revived it) is left as it is.
   */
  releaseKill(
    asmId: string,
    previous: { status: Status; ended_at: string | null; end_reason: string | null },
  ): Status | null {
    return this.#input(asmId, { kind: "kill_released", previous });
  }

  /**
   * The agent's own records, verified against the process table, name the process carrying this live session
   * (whose hook events named none): it becomes the session's run, judged by pid and start ticks from then on.
   */
  adoptRun(asmId: string, run: ProcessKey & { boot_id: string | null }, at: string): Status | null {
    return this.#input(asmId, { kind: "run_evidenced", run, at });
  }

  /**
   * A RESUME launch's process holds this finished session's thread by the agent's own records (verified against
   * the process table) before any hook spoke: the session is live again with that process as the launch's run.
   */
  adoptResume(
    asmId: string,
    run: ProcessKey & { boot_id: string | null },
    launchToken: string,
    at: string,
  ): Status | null {
    return this.#input(asmId, { kind: "resume_evidenced", run, launch_token: launchToken, at });
  }

  #input(asmId: string, input: LedgerInput): Status | null {
    if (input.kind === "run_evidenced" || input.kind === "resume_evidenced") {
      const why = pidProblem(input.run.pid) ?? ticksProblem(input.run.proc_start);
      if (why !== null) throw new LedgerError(`the run of session ${asmId} is out of range: ${why}`);
    }
    return this.#tx(() => {
      const state = this.#load(asmId);
      if (!state.session) return null;
      const next = transition(state, input);
      this.#store(next);
      return next.session!.status;
    });
  }

  // a cleared context: the new session shares its process with the one that just ended with reason "clear"
  #clearedFrom(event: HookEvent): string | null {
    const process = processOfEvent(event);
    if (process === null) return null;
    const row = this.#stmt(
      `SELECT r.asm_id FROM runs r JOIN sessions s ON s.asm_id = r.asm_id
       WHERE r.pid = ? AND r.proc_start = ? AND r.asm_id <> ? AND s.end_reason = 'clear'
       ORDER BY s.ended_at DESC LIMIT 1`,
    ).get(process.pid, process.proc_start, event.asm_id) as Row | undefined;
    return row ? String(row.asm_id) : null;
  }

  #load(asmId: string): LedgerState {
    const s = this.#stmt("SELECT * FROM sessions WHERE asm_id = ?").get(asmId) as Row | undefined;
    // a run out of range names no process (an older asm stored it): it is no run, and reading it would throw
    const runs = this.#stmt(`SELECT * FROM runs WHERE asm_id = ? AND ${RUN_IN_RANGE_SQL} ORDER BY run_id`)
      .all(asmId) as Row[];
    return {
      session: s
        ? {
          asm_id: String(s.asm_id),
          agent: String(s.agent),
          agent_session_id: String(s.agent_session_id),
          status: s.status as Status,
          name: s.name as string | null,
          cwd: s.cwd as string | null,
          transcript_path: s.transcript_path as string | null,
          nested: s.nested === 1,
          pid_shared: s.pid_shared === 1,
          entrypoint: s.entrypoint as string | null,
          launch_token: s.launch_token as string | null,
          cleared_from_asm_id: s.cleared_from_asm_id as string | null,
          started_at: s.started_at as string | null,
          last_seen: s.last_seen as string | null,
          ended_at: s.ended_at as string | null,
          end_reason: s.end_reason as string | null,
          prompts: Number(s.prompts),
          rules_note: s.rules_note as string | null,
        }
        : null,
      runs: runs.map(toRunState),
    };
  }

  #store(state: LedgerState): void {
    const s = state.session as SessionState;
    const harness = underHarnessRoot(s.cwd, this.#harnessRoots) ? 1 : 0;
    this.#stmt(
      `INSERT INTO sessions (asm_id, agent, agent_session_id, status, name, cwd, transcript_path, nested, pid_shared,
         harness, entrypoint, launch_token, cleared_from_asm_id, started_at, last_seen, ended_at, end_reason, prompts,
         rules_note)
       VALUES ($asm_id, $agent, $agent_session_id, $status, $name, $cwd, $transcript_path, $nested, $pid_shared,
         $harness, $entrypoint, $launch_token, $cleared_from_asm_id, $started_at, $last_seen, $ended_at, $end_reason,
         $prompts, $rules_note)
       ON CONFLICT (asm_id) DO UPDATE SET status = excluded.status, name = excluded.name, cwd = excluded.cwd,
         transcript_path = excluded.transcript_path, nested = excluded.nested, pid_shared = excluded.pid_shared,
         harness = excluded.harness, entrypoint = excluded.entrypoint, launch_token = excluded.launch_token,
         cleared_from_asm_id = excluded.cleared_from_asm_id, started_at = excluded.started_at,
         last_seen = excluded.last_seen, ended_at = excluded.ended_at, end_reason = excluded.end_reason,
         prompts = excluded.prompts, rules_note = excluded.rules_note`,
    ).run({
      asm_id: s.asm_id,
      agent: s.agent,
      agent_session_id: s.agent_session_id,
      status: s.status,
      name: s.name,
      cwd: s.cwd,
      transcript_path: s.transcript_path,
      nested: s.nested ? 1 : 0,
      pid_shared: s.pid_shared ? 1 : 0,
      harness,
      entrypoint: s.entrypoint,
      launch_token: s.launch_token,
      cleared_from_asm_id: s.cleared_from_asm_id,
      started_at: s.started_at,
      last_seen: s.last_seen,
      ended_at: s.ended_at,
      end_reason: s.end_reason,
      prompts: s.prompts,
      rules_note: s.rules_note,
    });
    const upsertRun = this.#stmt(
      `INSERT INTO runs (asm_id, pid, proc_start, boot_id, launch_token, started_at, ended_at, start_source, end_reason)
       VALUES ($asm_id, $pid, $proc_start, $boot_id, $launch_token, $started_at, $ended_at, $start_source, $end_reason)
       ON CONFLICT (asm_id, pid, proc_start) DO UPDATE SET boot_id = excluded.boot_id,
         launch_token = excluded.launch_token, started_at = excluded.started_at, ended_at = excluded.ended_at,
         start_source = excluded.start_source, end_reason = excluded.end_reason`,
    );
    for (const r of state.runs) {
      upsertRun.run({
        asm_id: s.asm_id,
        pid: r.pid,
        proc_start: r.proc_start,
        boot_id: r.boot_id,
        launch_token: r.launch_token,
        started_at: r.started_at,
        ended_at: r.ended_at,
        start_source: r.start_source,
        end_reason: r.end_reason,
      });
    }
  }

  /** One session with its hidden reason, or null. */
  session(asmId: string): SessionRow | null {
    const row = this.#stmt(
      `SELECT *, ${HIDDEN_REASON_SQL} AS hidden_reason FROM sessions WHERE asm_id = ?`,
    )
      .get(asmId) as Row | undefined;
    return row ? toSessionRow(row) : null;
  }

  /** The sessions, newest first; hidden rows only with `all`. */
  listSessions(options: { all?: boolean } = {}): SessionRow[] {
    const where = options.all ? "" : `WHERE ${HIDDEN_REASON_SQL} IS NULL`;
    const rows = this.#stmt(
      `SELECT *, ${HIDDEN_REASON_SQL} AS hidden_reason FROM sessions ${where} ORDER BY last_seen DESC, asm_id`,
    ).all() as Row[];
    return rows.map(toSessionRow);
  }

  /** The runs of one session, oldest first (a run whose process key is out of range is none: see bounds.ts). */
  runs(asmId: string): RunRow[] {
    const rows = this.#stmt(`SELECT * FROM runs WHERE asm_id = ? AND ${RUN_IN_RANGE_SQL} ORDER BY run_id`)
      .all(asmId) as Row[];
    return rows.map((r) => ({ ...toRunState(r), run_id: Number(r.run_id), asm_id: String(r.asm_id) }));
  }

  /** Every run whose process has not been seen to end (in range: see bounds.ts). */
  openRuns(): RunRow[] {
    const rows = this.#stmt(
      `SELECT * FROM runs WHERE ended_at IS NULL AND ${RUN_IN_RANGE_SQL} ORDER BY run_id`,
    )
      .all() as Row[];
    return rows.map((r) => ({ ...toRunState(r), run_id: Number(r.run_id), asm_id: String(r.asm_id) }));
  }

  /** True when the ledger has a row for this agent session. */
  hasSession(asmId: string): boolean {
    return this.#stmt("SELECT 1 FROM sessions WHERE asm_id = ?").get(asmId) !== undefined;
  }

  /** True when an event with this id was stored. */
  hasEvent(eventId: string): boolean {
    return this.#stmt("SELECT 1 FROM events WHERE id = ?").get(eventId) !== undefined;
  }

  /** Row counts. */
  counts(): LedgerCounts {
    const one = (sql: string) => Number((this.#stmt(sql).get() as Row).n);
    return {
      sessions: one("SELECT COUNT(*) AS n FROM sessions"),
      visible: one(`SELECT COUNT(*) AS n FROM sessions WHERE ${HIDDEN_REASON_SQL} IS NULL`),
      live: one("SELECT COUNT(*) AS n FROM sessions WHERE status = 'live'"),
      runs: one("SELECT COUNT(*) AS n FROM runs"),
      open_runs: one("SELECT COUNT(*) AS n FROM runs WHERE ended_at IS NULL"),
      events: one("SELECT COUNT(*) AS n FROM events"),
    };
  }

  /** A read-only query, for tests and diagnostics. */
  query(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.#stmt(sql).all(...params) as Row[];
  }

  /** Closes the database. */
  close(): void {
    this.#db.close();
  }
}

function toRunState(r: Row): RunState {
  return {
    pid: Number(r.pid),
    proc_start: Number(r.proc_start),
    boot_id: r.boot_id as string | null,
    launch_token: r.launch_token as string | null,
    started_at: String(r.started_at),
    ended_at: r.ended_at as string | null,
    start_source: r.start_source as string | null,
    end_reason: r.end_reason as string | null,
  };
}

function toSessionRow(r: Row): SessionRow {
  return {
    asm_id: String(r.asm_id),
    agent: String(r.agent),
    agent_session_id: String(r.agent_session_id),
    status: r.status as Status,
    name: r.name as string | null,
    cwd: r.cwd as string | null,
    transcript_path: r.transcript_path as string | null,
    source: r.source as string | null,
    thread_source: r.thread_source as string | null,
    nested: Number(r.nested),
    pid_shared: Number(r.pid_shared),
    harness: Number(r.harness),
    started_at: r.started_at as string | null,
    last_seen: r.last_seen as string | null,
    ended_at: r.ended_at as string | null,
    end_reason: r.end_reason as string | null,
    turns: r.turns === null ? null : Number(r.turns),
    prompts: Number(r.prompts),
    cleared_from_asm_id: r.cleared_from_asm_id as string | null,
    launch_token: r.launch_token as string | null,
    rules_note: r.rules_note as string | null,
    hidden: r.hidden_reason !== null,
    hidden_reason: r.hidden_reason as string | null,
  };
}
