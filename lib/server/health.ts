/**
 * The health model: each layer reports itself (the drain, the liveness poll, the history import, the ledger's
 * file) and `ok` is their conjunction, with each failing part's sentence. Pure: {@link healthModel} takes the
 * facts the shell (`health_check.ts`) gathered and returns the model `/api/health` serves, the page's banner
 * names and `./asm health` prints ({@link healthText}).
 * @module
 */
import type { DrainHealth } from "../inbox/mod.ts";
import type { ImportStatus } from "../history/mod.ts";
import { isoAt, LEDGER_MIN_FREE_BYTES, type LedgerFileFacts, ledgerFileProblem } from "../ledger/mod.ts";
import type { TaskStatus } from "./tasks.ts";
import type { Fault } from "./faults.ts";
import type { ConnectionCounts } from "./connections.ts";

/** What the shell gathered. */
export interface HealthFacts {
  /** epoch ms */
  now: number;
  /** the drain's own health (lib/inbox) and its task (null before the server started it) */
  drain: { health: DrainHealth | null; task: TaskStatus | null };
  /** the poll's task; null when this server runs no poll (a test's) */
  poll: TaskStatus | null;
  /** the import's runner, and whether this server runs the import service */
  imports: { status: ImportStatus; scheduled: boolean };
  /** the ledger's file, and the free bytes on its disk (null: unknown) */
  ledger: LedgerFileFacts & { freeBytes: number | null };
  /** the board: where it is, and the sweep's problem with it (null: none); absent where no board runs */
  board?: { location: string; problem: string | null };
  /** what the machine does to the server itself (lib/server faults.ts) and its connections; absent: nothing */
  server?: {
    log: Fault | null;
    accept: Fault | null;
    peers?: Fault | null;
    connections: ConnectionCounts | null;
  };
}

/** What every part says. */
export interface HealthPart {
  ok: boolean;
  /** what is wrong, one sentence; null when ok */
  problem: string | null;
}

/** The drain of hook events. */
export interface DrainPart extends HealthPart {
  last_pass_at: string | null;
  last_good_pass_at: string | null;
  backlog: number | null;
  rejected_total: number | null;
}

/** The liveness poll. */
export interface PollPart extends HealthPart {
  /** false: this server runs no poll (the part is then ok) */
  runs_here: boolean;
  last_tick_at: string | null;
}

/** The history import. */
export interface ImportPart extends HealthPart {
  runs_here: boolean;
  running: boolean;
  last_run_at: string | null;
}

/** The ledger's file. */
export interface LedgerPart extends HealthPart {
  path: string;
  /** something is at the path */
  exists: boolean;
  /** what is at the path is the file the server opened */
  same_file: boolean;
  writable: boolean | null;
  folder_writable: boolean | null;
  free_bytes: number | null;
  min_free_bytes: number;
}

/** The model. */
export interface HealthModel {
  ok: boolean;
  /** each failing part's sentence, led by the part's name in plain words */
  problems: string[];
  checked_at: string;
  parts: {
    drain: DrainPart;
    poll: PollPart;
    import: ImportPart;
    ledger: LedgerPart;
    board: BoardPart;
    server: ServerPart;
  };
}

/** The server itself: its own log, its connections. */
export interface ServerPart extends HealthPart {
  /** the log's fault while it lasts: since when (ISO) and how many lines were lost */
  log_failing_since: string | null;
  log_lines_lost: number;
  /** the accepts' fault while it lasts */
  accept_failing_since: string | null;
  connections: ConnectionCounts | null;
}

/** The board the sweep keeps in step. */
export interface BoardPart extends HealthPart {
  location: string | null;
}

/** The parts' names, as a person reads them. */
export const PART_LABELS: Record<keyof HealthModel["parts"], string> = {
  drain: "Hook events",
  poll: "Liveness",
  import: "History import",
  ledger: "Ledger",
  board: "Board",
  server: "Server",
};

/** A drain pass older than this (at least 30 s, or 10 of its intervals) means the drain has stopped. */
function drainStaleMs(everyMs: number): number {
  return Math.max(30_000, 10 * everyMs);
}

/** A poll tick older than this (at least 60 s, or 6 of its intervals) means the poll has stopped. */
function pollStaleMs(everyMs: number): number {
  return Math.max(60_000, 6 * everyMs);
}

/** "42 s", "7 min", "3 h". */
function span(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

function mb(bytes: number): string {
  return `${Math.round(bytes / (1 << 20))} MB`;
}

function part<T extends object>(problem: string | null, rest: T): T & HealthPart {
  return { ok: problem === null, problem, ...rest };
}

/**
 * A layer that failed only because the ledger refuses its writes says so in a few words: the ledger part carries
 * the sentence, and the banner should not repeat it for every writer.
 */
function becauseOfLedger(error: string, refusal: string | null): boolean {
  return refusal !== null && error.includes(refusal);
}

function drainPart(f: HealthFacts, refusal: string | null): DrainPart {
  const { health, task } = f.drain;
  const lastPass = health?.last_pass_at ?? task?.last_finished_at ?? null;
  let problem: string | null = null;
  if (health && !health.ok) {
    problem = health.last_error ??
      `the drain is not keeping up: ${health.backlog} event file(s) wait in the inbox`;
    if (becauseOfLedger(problem, refusal)) {
      problem = `${health.backlog} event file(s) wait in the inbox until the ledger takes writes again`;
    }
  } else if (!health && task?.last_error) {
    problem = `the drain's last pass failed: ${task.last_error}`;
  } else if (task && lastPass && f.now - Date.parse(lastPass) > drainStaleMs(task.every_ms)) {
    problem = `the drain has not finished a pass in ${span(f.now - Date.parse(lastPass))}` +
      (health ? `; ${health.backlog} event file(s) wait in the inbox` : "");
  }
  return part(problem, {
    last_pass_at: lastPass,
    last_good_pass_at: health?.last_good_pass_at ?? null,
    backlog: health?.backlog ?? null,
    rejected_total: health?.rejected_total ?? null,
  });
}

function pollPart(f: HealthFacts, refusal: string | null): PollPart {
  const task = f.poll;
  if (!task) return part(null, { runs_here: false, last_tick_at: null });
  const tick = task.last_finished_at ?? task.last_started_at;
  let problem: string | null = null;
  if (task.last_error && becauseOfLedger(task.last_error, refusal)) {
    problem = "the liveness poll cannot record what it sees until the ledger takes writes again";
  } else if (task.last_error) problem = `the liveness poll failed: ${task.last_error}`;
  else if (tick && f.now - Date.parse(tick) > pollStaleMs(task.every_ms)) {
    problem = `the liveness poll has not finished a tick in ${span(f.now - Date.parse(tick))}, so live and ` +
      "lost sessions may be shown wrong";
  }
  return part(problem, { runs_here: true, last_tick_at: tick });
}

function importPart(f: HealthFacts, refusal: string | null): ImportPart {
  const { status, scheduled } = f.imports;
  const problem = !status.last_error
    ? null
    : becauseOfLedger(status.last_error, refusal)
    ? "the history import cannot write until the ledger takes writes again"
    : `the history import failed: ${status.last_error}`;
  return part(problem, {
    runs_here: scheduled,
    running: status.running,
    last_run_at: status.last?.finished_at ?? null,
  });
}

function ledgerPart(f: HealthFacts): LedgerPart {
  const l = f.ledger;
  let problem = ledgerFileProblem(l)?.sentence ?? null;
  if (problem === null && l.freeBytes !== null && l.freeBytes < LEDGER_MIN_FREE_BYTES) {
    problem = `only ${mb(l.freeBytes)} free on the ledger's disk (asm wants at least ` +
      `${mb(LEDGER_MIN_FREE_BYTES)}); free some space before writes start failing`;
  }
  const sameFile = l.opened === null ||
    (l.current !== null && l.current.dev === l.opened.dev && l.current.ino === l.opened.ino);
  return part(problem, {
    path: l.path,
    exists: l.opened === null || l.current !== null,
    same_file: sameFile,
    writable: l.fileWritable,
    folder_writable: l.folderWritable,
    free_bytes: l.freeBytes,
    min_free_bytes: LEDGER_MIN_FREE_BYTES,
  });
}

function serverPart(f: HealthFacts): ServerPart {
  const { log = null, accept = null, peers = null, connections = null } = f.server ?? {};
  const problems: string[] = [];
  if (log) {
    problems.push(
      `asm cannot write its log (server.log) since ${isoAt(log.since)}: ${log.error}; ${log.count} line(s) ` +
        "lost so far. asm serves on and writes again by itself once the cause is gone (free some space)",
    );
  }
  if (accept) {
    problems.push(
      `asm cannot accept new connections since ${isoAt(accept.since)}: ${accept.error}; it tries again ` +
        "every second and takes them again by itself once descriptors are free",
    );
  }
  if (peers) {
    problems.push(
      `asm cannot read the kernel's socket table to tell who opened new connections since ` +
        `${isoAt(peers.since)}: ${peers.error}; they wait (at most 10 s) and are served once it can`,
    );
  }
  return part(problems.length ? problems.join("; and ") : null, {
    log_failing_since: log ? isoAt(log.since) : null,
    log_lines_lost: log?.count ?? 0,
    accept_failing_since: accept ? isoAt(accept.since) : null,
    connections,
  });
}

/** The model from the facts. Pure. */
export function healthModel(facts: HealthFacts): HealthModel {
  const ledger = ledgerPart(facts);
  const refusal = ledgerFileProblem(facts.ledger)?.sentence ?? null;
  const parts = {
    drain: drainPart(facts, refusal),
    poll: pollPart(facts, refusal),
    import: importPart(facts, refusal),
    board: part(facts.board?.problem ?? null, { location: facts.board?.location ?? null }),
    ledger,
    server: serverPart(facts),
  };
  const problems: string[] = [];
  for (const [name, p] of Object.entries(parts) as [keyof typeof parts, HealthPart][]) {
    if (p.problem !== null) problems.push(`${PART_LABELS[name]}: ${p.problem}`);
  }
  return { ok: problems.length === 0, problems, checked_at: isoAt(facts.now), parts };
}

/** One layer of the model as a person reads it: its label, and its problem or what it last did. */
export interface HealthRow {
  part: keyof HealthModel["parts"];
  label: string;
  ok: boolean;
  text: string;
}

/** Each layer's row, in the order a terminal and `asm doctor` print them. */
export function healthRows(model: HealthModel): HealthRow[] {
  const { drain, poll, import: imp, ledger, board, server } = model.parts;
  const row = (part: keyof HealthModel["parts"], p: HealthPart, detail: string): HealthRow => ({
    part,
    label: PART_LABELS[part],
    ok: p.ok,
    text: p.problem ?? detail,
  });
  return [
    row(
      "drain",
      drain,
      `last pass ${drain.last_pass_at ?? "not yet"}, ${drain.backlog ?? "?"} waiting, ` +
        `${drain.rejected_total ?? "?"} rejected since the start`,
    ),
    row(
      "poll",
      poll,
      poll.runs_here ? `last tick ${poll.last_tick_at ?? "not yet"}` : "not run by this server",
    ),
    row(
      "import",
      imp,
      imp.running
        ? "running now"
        : `last run ${imp.last_run_at ?? (imp.runs_here ? "not yet" : "none here")}`,
    ),
    row(
      "ledger",
      ledger,
      `${ledger.path}, the file asm opened, writable, ` +
        (ledger.free_bytes === null ? "free space unknown" : `${mb(ledger.free_bytes)} free`),
    ),
    row("board", board, board.location ?? "no board here"),
    row(
      "server",
      server,
      server.connections
        ? `${server.connections.open} connection(s) open (at most ${server.connections.caps.total}), ` +
          `${server.connections.refused} of other users refused since the start`
        : "log and connections ok",
    ),
  ];
}

/** The model as lines for a terminal (`./asm health`). */
export function healthText(model: HealthModel): string {
  const lines = [model.ok ? "asm is healthy" : `asm has ${model.problems.length} problem(s):`];
  for (const r of healthRows(model)) {
    lines.push(`  ${r.label.padEnd(15)} ${r.ok ? "ok     " : "PROBLEM"}  ${r.text}`);
  }
  return lines.join("\n");
}
