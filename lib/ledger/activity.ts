/**
 * What the liveness poll reads from the ledger and writes back: the sessions and runs it judges, the hook evidence
 * of their activity, the activity word with its reason and freshness (`sessions.activity`, `activity_reason`,
 * `activity_at`), the closing of runs whose processes are gone, and the rows `GET /api/live` serves.
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import { HIDDEN_REASON_SQL } from "./hidden.ts";
import { pidProblem, RUN_IN_RANGE_SQL, runInRangeSql, ticksProblem } from "./bounds.ts";
import { DB, type Ledger, type RunRow } from "./ledger.ts";
import type { ProcessKey, Status } from "./transition.ts";

type Row = Record<string, SQLInputValue>;

/** A session the poll looks at: live or starting, or finished with a run still open (a killed one, say). */
export interface PollSessionRow {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  status: Status;
  transcript_path: string | null;
  activity: string | null;
  activity_reason: string | null;
  activity_at: string | null;
}

/** The hook evidence of a session's activity: its latest turn event and its latest call for attention. */
export interface HookActivity {
  /** The latest SessionStart, UserPromptSubmit or Stop. */
  turn: { event: string; ts: string } | null;
  /** The latest PermissionRequest or Notification; `kind` is the notification's own type, when it has one. */
  attention: { event: string; ts: string; kind: string | null } | null;
}

/** The hook events that say where a turn is. */
export const TURN_EVENTS: readonly string[] = ["SessionStart", "UserPromptSubmit", "Stop"];
/** The hook events that may say the agent waits on the user. */
export const ATTENTION_EVENTS: readonly string[] = ["PermissionRequest", "Notification"];

/** One activity to store. */
export interface ActivityUpdate {
  asm_id: string;
  activity: string | null;
  activity_reason: string | null;
  activity_at: string | null;
}

/** A row of `GET /api/live`. */
export interface LiveRow {
  asm_id: string;
  agent: string;
  agent_session_id: string;
  status: Status;
  name: string | null;
  cwd: string | null;
  activity: string | null;
  activity_reason: string | null;
  activity_at: string | null;
  context_tokens: number | null;
  hidden_reason: string | null;
  /** why asm cannot prove the session's process; null when it can */
  unsure_reason: string | null;
  /** the list's cells, so a page patches them as they move: turns, last seen, project, closeout */
  context_window: number | null;
  turns: number | null;
  last_seen: string | null;
  project: string | null;
  closeout: string | null;
  /**
   * only the ends of its transcript were read yet (the cold import's first phase): turns, project and closeout
   * are null here and "deriving" on the page, never a number that is not yet true
   */
  deriving: boolean;
}

function runOf(r: Row): RunRow {
  return {
    run_id: Number(r.run_id),
    asm_id: String(r.asm_id),
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

/**
 * The sessions the poll judges, and every open run. A run whose process key is out of range (bounds.ts) is left
 * out: it names no process, and `closeRunsOutOfRange` closes it.
 */
export function pollRows(ledger: Ledger): { sessions: PollSessionRow[]; runs: RunRow[] } {
  const { db } = ledger[DB];
  const runs =
    (db.prepare(`SELECT * FROM runs WHERE ended_at IS NULL AND ${RUN_IN_RANGE_SQL} ORDER BY run_id`)
      .all() as Row[]).map(runOf);
  const sessions = (db.prepare(
    `SELECT asm_id, agent, agent_session_id, status, transcript_path, activity, activity_reason, activity_at
     FROM sessions s
     WHERE status IN ('live', 'starting')
        OR EXISTS (SELECT 1 FROM runs r WHERE r.asm_id = s.asm_id AND r.ended_at IS NULL AND ${
      runInRangeSql("r")
    })
     ORDER BY asm_id`,
  ).all() as Row[]).map((r) => ({
    asm_id: String(r.asm_id),
    agent: String(r.agent),
    agent_session_id: String(r.agent_session_id),
    status: r.status as Status,
    transcript_path: r.transcript_path as string | null,
    activity: r.activity as string | null,
    activity_reason: r.activity_reason as string | null,
    activity_at: r.activity_at as string | null,
  }));
  return { sessions, runs };
}

/** The latest turn event and call for attention of each session (applied events only; an ignored one is not). */
export function hookActivity(ledger: Ledger, asmIds: readonly string[]): Map<string, HookActivity> {
  const { db } = ledger[DB];
  const marks = (list: readonly string[]) => list.map(() => "?").join(", ");
  const latestTurn = db.prepare(
    `SELECT event, ts FROM events WHERE asm_id = ? AND outcome = 'applied' AND event IN (${
      marks(TURN_EVENTS)
    })
     ORDER BY ts DESC, rowid DESC LIMIT 1`,
  );
  const latestAttention = db.prepare(
    `SELECT event, ts, json_extract(payload, '$.payload.notification_type') AS kind FROM events
     WHERE asm_id = ? AND outcome = 'applied' AND event IN (${marks(ATTENTION_EVENTS)})
     ORDER BY ts DESC, rowid DESC LIMIT 1`,
  );
  const out = new Map<string, HookActivity>();
  for (const asmId of asmIds) {
    const turn = latestTurn.get(asmId, ...TURN_EVENTS) as Row | undefined;
    const attention = latestAttention.get(asmId, ...ATTENTION_EVENTS) as Row | undefined;
    out.set(asmId, {
      turn: turn ? { event: String(turn.event), ts: String(turn.ts) } : null,
      attention: attention
        ? {
          event: String(attention.event),
          ts: String(attention.ts),
          kind: typeof attention.kind === "string" ? attention.kind : null,
        }
        : null,
    });
  }
  return out;
}

/**
 * Stores activities in one transaction, only on sessions still live or starting (a session that ended while the
 * poll was judging keeps no word) and only where something changed. Returns how many rows changed.
 */
export function recordActivity(ledger: Ledger, updates: readonly ActivityUpdate[]): number {
  if (updates.length === 0) return 0;
  return ledger[DB].write((db) => {
    const update = db.prepare(
      `UPDATE sessions SET activity = $activity, activity_reason = $reason, activity_at = $at
       WHERE asm_id = $asm_id AND status IN ('live', 'starting')
         AND (activity IS NOT $activity OR activity_reason IS NOT $reason OR activity_at IS NOT $at)`,
    );
    let changed = 0;
    for (const u of updates) {
      changed += Number(
        update.run({ asm_id: u.asm_id, activity: u.activity, reason: u.activity_reason, at: u.activity_at })
          .changes,
      );
    }
    return changed;
  });
}

/**
 * Stores how sure asm is of each live session's process (null: proven), only on sessions still live or starting
 * and only where it changed. Returns how many rows changed.
 */
export function recordUnsure(ledger: Ledger, reasons: ReadonlyMap<string, string | null>): number {
  if (reasons.size === 0) return 0;
  return ledger[DB].write((db) => {
    const update = db.prepare(
      `UPDATE sessions SET unsure_reason = $reason
       WHERE asm_id = $asm_id AND status IN ('live', 'starting') AND unsure_reason IS NOT $reason`,
    );
    let changed = 0;
    for (const [asmId, reason] of reasons) changed += Number(update.run({ asm_id: asmId, reason }).changes);
    return changed;
  });
}

/**
 * A finished session has no activity and no doubt: clears the word (and the unsure reason) of every session that
 * is no longer live or starting.
 */
export function clearFinishedActivity(ledger: Ledger): number {
  return ledger[DB].write((db) =>
    Number(
      db.prepare(
        `UPDATE sessions SET activity = NULL, activity_reason = NULL, activity_at = NULL, unsure_reason = NULL
         WHERE status NOT IN ('live', 'starting')
           AND (activity IS NOT NULL OR activity_reason IS NOT NULL OR activity_at IS NOT NULL
                OR unsure_reason IS NOT NULL)`,
      ).run().changes,
    )
  );
}

/** A run closed because its process key is out of range, as the poll's log line names it. */
export interface OutOfRangeRun {
  run_id: number;
  asm_id: string;
  /** the stored values as SQLite prints them (a number beyond 2^53 cannot be read as one) */
  pid: string;
  proc_start: string;
  why: string;
}

/** What `runs.end_reason` says of a run closed for being out of range. */
export const OUT_OF_RANGE_END = "out of range: no process has this pid and start time";

/**
 * Closes every open run whose process key is out of range (bounds.ts: an older asm stored what a hook event or a
 * hand edit said), and returns them: no process can carry such a run, and no reader sees it (each filters with
 * `RUN_IN_RANGE_SQL`), so it is closed as it stands, its session's status left to the runs the transition sees.
 * Closed once, it is never returned again. Reads the values only as text: as numbers they would throw.
 */
export function closeRunsOutOfRange(ledger: Ledger, at: string): OutOfRangeRun[] {
  const find = `SELECT run_id, asm_id, CAST(pid AS TEXT) AS pid, CAST(proc_start AS TEXT) AS proc_start,
      typeof(pid) AS pid_type, typeof(proc_start) AS start_type
    FROM runs WHERE ended_at IS NULL AND NOT ${RUN_IN_RANGE_SQL}`;
  // one read on the open-runs index; most ticks find nothing and write nothing
  if (ledger[DB].prepare(find).get() === undefined) return [];
  return ledger[DB].write((db) => {
    const rows = db.prepare(find).all() as Row[];
    const close = db.prepare("UPDATE runs SET ended_at = ?, end_reason = ? WHERE run_id = ?");
    return rows.map((r) => {
      close.run(at, OUT_OF_RANGE_END, r.run_id);
      const pid = String(r.pid);
      const procStart = String(r.proc_start);
      return {
        run_id: Number(r.run_id),
        asm_id: String(r.asm_id),
        pid,
        proc_start: procStart,
        why: pidProblem(valueOf(pid, r.pid_type)) ?? ticksProblem(valueOf(procStart, r.start_type)) ??
          "out of range",
      };
    });
  });
}

/** A stored value, given as text, as the range checks take it: a number as a number (beyond 2^53, a BigInt). */
function valueOf(text: string, type: unknown): unknown {
  if (type === "real") return Number(text);
  if (type !== "integer") return text;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

/**
 * Closes the runs whose processes are gone, session by session, each in its own transaction (the transition
 * decides: a live session with no run left becomes lost; a killed one stays killed), then clears the activity of
 * the sessions that finished. Returns each session's status afterwards. A session whose close fails is handed to
 * `failed` (when given; else the error is thrown) and the others still close: one bad row must not keep every
 * other session's runs open.
 */
export function closeGoneRuns(
  ledger: Ledger,
  gone: ReadonlyMap<string, ProcessKey[]>,
  at: string,
  failed?: (asmId: string, err: unknown) => void,
): Map<string, Status | null> {
  const after = new Map<string, Status | null>();
  for (const [asmId, runs] of gone) {
    try {
      after.set(asmId, ledger.runsGone(asmId, runs, at));
    } catch (err) {
      if (!failed) throw err;
      failed(asmId, err);
    }
  }
  if (gone.size) clearFinishedActivity(ledger);
  return after;
}

const LIVE_COLUMNS =
  `asm_id, agent, agent_session_id, status, name, cwd, activity, activity_reason, activity_at,
  context_tokens, unsure_reason, ${HIDDEN_REASON_SQL} AS hidden_reason, turns, last_seen, project,
  closeout_state, context_window, end_reason, derive_state`;

function liveRowOf(r: Row): LiveRow {
  // what the columns hold of a row being derived is not yet its truth (a hook's or an earlier read's)
  const deriving = r.derive_state === "listed";
  return {
    asm_id: String(r.asm_id),
    agent: String(r.agent),
    agent_session_id: String(r.agent_session_id),
    status: r.status as Status,
    name: r.name as string | null,
    cwd: r.cwd as string | null,
    activity: r.activity as string | null,
    activity_reason: r.activity_reason as string | null,
    activity_at: r.activity_at as string | null,
    context_tokens: r.context_tokens === null ? null : Number(r.context_tokens),
    hidden_reason: r.hidden_reason as string | null,
    unsure_reason: r.unsure_reason as string | null,
    context_window: r.context_window === null || r.context_window === undefined
      ? null
      : Number(r.context_window),
    turns: deriving || r.turns === null ? null : Number(r.turns),
    last_seen: r.last_seen as string | null,
    project: deriving ? null : r.project as string | null,
    closeout: deriving ? null : r.closeout_state as string | null,
    deriving,
  };
}

/** The live and starting sessions, newest first; hidden ones (sub-agents, harness runs, ...) only with `all`. */
export function liveRows(ledger: Ledger, options: { all?: boolean } = {}): LiveRow[] {
  const rows = ledger[DB].prepare(
    `SELECT ${LIVE_COLUMNS}
     FROM sessions
     WHERE status IN ('live', 'starting') ${options.all ? "" : `AND ${HIDDEN_REASON_SQL} IS NULL`}
     ORDER BY started_at DESC, asm_id`,
  ).all() as Row[];
  return rows.map(liveRowOf);
}

/**
 * One session's cells as the live payload carries them, whatever its status (the session page follows an ended
 * session too: a RESUME makes it live, an END ends it), with why it ended; null when asm has no such session.
 */
export function sessionCells(
  ledger: Ledger,
  asmId: string,
): (LiveRow & { end_reason: string | null }) | null {
  const r = ledger[DB].prepare(`SELECT ${LIVE_COLUMNS} FROM sessions WHERE asm_id = ?`).get(asmId) as
    | Row
    | undefined;
  return r ? { ...liveRowOf(r), end_reason: r.end_reason as string | null } : null;
}

/** The last digest of each ledger, with the write state it was computed at. */
const digests = new WeakMap<Ledger, { at: string; digest: string }>();

/**
 * What the list shows of the sessions that are not live, as one short key: it moves when a row is added, goes,
 * is renamed, ended, or gets turns, a last-seen time, a project or a closeout (the import, a hook of an ended
 * session), or is derived whole after the first phase listed it. The live rows' own cells travel in the live
 * payload; this is how a page learns the rest changed. One pass over the table, no hidden-rule evaluation (a
 * hidden row that changes costs one needless refetch), and only when the database was written since the last one
 * (this connection's `total_changes()`, another's `data_version`): `/api/live` is polled by every open page.
 */
export function listDigest(ledger: Ledger): string {
  const db = ledger[DB];
  const version = db.prepare("PRAGMA data_version").get() as Row;
  const changes = db.prepare("SELECT total_changes() AS n").get() as Row;
  const at = `${version.data_version}:${changes.n}`;
  const known = digests.get(ledger);
  if (known?.at === at) return known.digest;
  const r = db.prepare(
    `SELECT COUNT(*) AS n, MAX(last_seen) AS seen, TOTAL(turns) AS turns, TOTAL(LENGTH(COALESCE(name, title, ''))) AS
       titles, TOTAL(LENGTH(COALESCE(project, ''))) AS projects, COUNT(closeout_state) AS closeouts,
       GROUP_CONCAT(DISTINCT status) AS statuses, MAX(rowid) AS last, COUNT(derive_state) AS deriving
     FROM sessions WHERE status NOT IN ('live', 'starting')`,
  ).get() as Row;
  // a row derived whole moves it even when its turns, project and closeout happen to add up as before
  const digest = [r.n, r.seen, r.turns, r.titles, r.projects, r.closeouts, r.statuses, r.last, r.deriving]
    .join("|");
  digests.set(ledger, { at, digest });
  return digest;
}

/** Why the last poll could not prove a running session's process, or null (proven, or not judged yet). */
export function unsureOf(ledger: Ledger, asmId: string): string | null {
  const r = ledger[DB].prepare("SELECT unsure_reason FROM sessions WHERE asm_id = ?").get(asmId) as
    | Row
    | undefined;
  return (r?.unsure_reason as string | null) ?? null;
}

/** A session's activity and its reason as the last poll judged them (both null when there is none). */
export function activityOf(
  ledger: Ledger,
  asmId: string,
): { activity: string | null; reason: string | null } {
  const r = ledger[DB].prepare("SELECT activity, activity_reason FROM sessions WHERE asm_id = ?").get(
    asmId,
  ) as
    | Row
    | undefined;
  return {
    activity: (r?.activity as string | null) ?? null,
    reason: (r?.activity_reason as string | null) ?? null,
  };
}
