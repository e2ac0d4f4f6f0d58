/**
 * The launches table: every launch asm makes is a row from the moment it is requested, whether or not a session
 * ever comes of it (an unmatched launch expires after 120 s and stays as evidence). Written only through here,
 * by the process holding the writer lock.
 *
 * Matching: the fast path is a hook event that carried the token (the drain has already stored it on the run
 * and the session); the guaranteed path (an ancestry walk over the process table) and adoption are decided in
 * lib/launch and recorded with {@link matchLaunch} / {@link adoptThread}.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { DB, type Ledger, LedgerError } from "./ledger.ts";
import { asmIdOf } from "./identity.ts";
import { bootIdProblem, idProblem, pidProblem, ticksProblem } from "./bounds.ts";

type Row = Record<string, SQLInputValue>;

/** What kind of start a launch is. */
export type LaunchKindValue = "launch" | "resume" | "continue";

/** How a launch was matched to its session. */
export type MatchedBy = "token" | "ancestry" | "adoption";

/** A launch as requested, before its window opens. */
export interface LaunchRequested {
  token: string;
  agent: string;
  kind: LaunchKindValue;
  cwd: string;
  name: string | null;
  model: string | null;
  sprint_node?: string | null;
  script_path: string;
  prompt_path: string | null;
  requested_at: string;
  continues_asm_id: string | null;
  resumes_asm_id: string | null;
  waiting_reason: string | null;
  host: string;
}

/** Where a launch's window opened. */
export interface LaunchWindow {
  window_id: string;
  pane_id: string;
  pane_pid: number;
  pane_proc_start: number | null;
  boot_id: string | null;
}

/** A launches row. */
export interface LaunchRow extends LaunchRequested {
  sprint_node: string | null;
  window_id: string | null;
  pane_id: string | null;
  pane_pid: number | null;
  pane_proc_start: number | null;
  boot_id: string | null;
  matched_asm_id: string | null;
  matched_at: string | null;
  matched_by: MatchedBy | null;
  expired: boolean;
  expired_at: string | null;
  error: string | null;
}

function toLaunchRow(r: Row): LaunchRow {
  const num = (v: SQLInputValue) => (v === null || v === undefined ? null : Number(v));
  return {
    token: String(r.token),
    agent: String(r.agent),
    kind: r.kind as LaunchKindValue,
    cwd: String(r.cwd),
    name: r.name as string | null,
    model: r.model as string | null,
    sprint_node: r.sprint_node as string | null,
    script_path: String(r.script_path),
    prompt_path: r.prompt_path as string | null,
    requested_at: String(r.requested_at),
    continues_asm_id: r.continues_asm_id as string | null,
    resumes_asm_id: r.resumes_asm_id as string | null,
    waiting_reason: r.waiting_reason as string | null,
    host: String(r.host),
    window_id: r.window_id as string | null,
    pane_id: r.pane_id as string | null,
    pane_pid: num(r.pane_pid),
    pane_proc_start: num(r.pane_proc_start),
    boot_id: r.boot_id as string | null,
    matched_asm_id: r.matched_asm_id as string | null,
    matched_at: r.matched_at as string | null,
    matched_by: r.matched_by as MatchedBy | null,
    expired: r.expired === 1,
    expired_at: r.expired_at as string | null,
    error: r.error as string | null,
  };
}

/** Records a requested launch (before its window opens, so even a launch that fails to open is evidence). */
export function recordLaunch(ledger: Ledger, launch: LaunchRequested): void {
  ledger[DB].write((db) => {
    db.prepare(
      `INSERT INTO launches (token, agent, kind, cwd, name, model, sprint_node, script_path, prompt_path,
         requested_at, continues_asm_id, resumes_asm_id, waiting_reason, host)
       VALUES ($token, $agent, $kind, $cwd, $name, $model, $sprint_node, $script_path, $prompt_path,
         $requested_at, $continues_asm_id, $resumes_asm_id, $waiting_reason, $host)`,
    ).run({ ...launch, sprint_node: launch.sprint_node ?? null });
  });
}

/**
 * Records where the launch's window opened. A pane pid, start time or boot id out of range (bounds.ts) is refused
 * with LedgerError: the terminal host and /proc gave it, and it would be no process to prove.
 */
export function recordWindow(ledger: Ledger, token: string, window: LaunchWindow): void {
  const why = pidProblem(window.pane_pid) ??
    (window.pane_proc_start === null ? null : ticksProblem(window.pane_proc_start)) ??
    (window.boot_id === null ? null : bootIdProblem(window.boot_id));
  if (why !== null) throw new LedgerError(`launch ${token}: the window's process is out of range: ${why}`);
  ledger[DB].write((db) => {
    db.prepare(
      `UPDATE launches SET window_id = $window_id, pane_id = $pane_id, pane_pid = $pane_pid,
         pane_proc_start = $pane_proc_start, boot_id = $boot_id WHERE token = $token`,
    ).run({ ...window, token });
  });
}

/** Records that the window could not be opened: the launch is over (expired now) and says why. */
export function recordLaunchError(ledger: Ledger, token: string, error: string, at: string): void {
  ledger[DB].write((db) => {
    db.prepare("UPDATE launches SET error = ?, expired = 1, expired_at = ? WHERE token = ?").run(
      error,
      at,
      token,
    );
  });
}

/** One launch by token, or null. */
export function launchRow(ledger: Ledger, token: string): LaunchRow | null {
  const row = ledger[DB].prepare("SELECT * FROM launches WHERE token = ?").get(token) as Row | undefined;
  return row ? toLaunchRow(row) : null;
}

/** Launches still waiting for their session: unmatched, not expired, window opened. Oldest first. */
export function pendingLaunches(ledger: Ledger): LaunchRow[] {
  const rows = ledger[DB].prepare(
    `SELECT * FROM launches WHERE matched_asm_id IS NULL AND expired = 0 AND error IS NULL
     ORDER BY requested_at, token`,
  ).all() as Row[];
  return rows.map(toLaunchRow);
}

/** The latest launches, newest first. */
export function recentLaunches(ledger: Ledger, limit: number): LaunchRow[] {
  const rows = ledger[DB].prepare("SELECT * FROM launches ORDER BY requested_at DESC, token LIMIT ?").all(
    limit,
  ) as Row[];
  return rows.map(toLaunchRow);
}

/** The launches matched to a session (a session resumed three times has three), newest first. */
export function launchesOf(ledger: Ledger, asmId: string): LaunchRow[] {
  const rows = ledger[DB].prepare(
    "SELECT * FROM launches WHERE matched_asm_id = ? ORDER BY requested_at DESC, token",
  ).all(asmId) as Row[];
  return rows.map(toLaunchRow);
}

/**
 * Marks a launch matched to a session, once: a launch already matched keeps its first match. A continue-with
 * links the new session to its predecessor (`sessions.continues_asm_id`), unless it already has one. Returns
 * false when nothing changed.
 */
export function matchLaunch(
  ledger: Ledger,
  token: string,
  asmId: string,
  by: MatchedBy,
  at: string,
): boolean {
  return ledger[DB].write((db) => matchIn(db, token, asmId, by, at));
}

function matchIn(db: DatabaseSync, token: string, asmId: string, by: MatchedBy, at: string): boolean {
  const changed = db.prepare(
    `UPDATE launches SET matched_asm_id = ?, matched_at = ?, matched_by = ?
     WHERE token = ? AND matched_asm_id IS NULL`,
  ).run(asmId, at, by, token).changes;
  if (Number(changed) === 0) return false;
  db.prepare(
    `UPDATE sessions SET continues_asm_id = (SELECT continues_asm_id FROM launches WHERE token = ?)
     WHERE asm_id = ? AND continues_asm_id IS NULL`,
  ).run(token, asmId);
  return true;
}

/**
 * True once a launch has registered its session: matched, or a run that carries its token already (the hook's
 * SessionStart came before the correlation pass).
 */
export function launchRegistered(ledger: Ledger, token: string): boolean {
  return ledger[DB].prepare(
    `SELECT 1 FROM launches WHERE token = ? AND matched_asm_id IS NOT NULL
     UNION ALL SELECT 1 FROM runs WHERE launch_token = ? LIMIT 1`,
  ).get(token, token) !== undefined;
}

/**
 * The fast path: unmatched launches whose token a hook event already brought in, with the session it brought
 * it for (through the run the event made, else the session row itself; the earliest, so a `/clear` later in the
 * same window does not steal the match). Expired launches are included: a late match is still evidence.
 */
export function launchesSeenInEvents(ledger: Ledger): { token: string; asm_id: string }[] {
  const rows = ledger[DB].prepare(
    `SELECT l.token AS token,
       COALESCE(
         (SELECT r.asm_id FROM runs r WHERE r.launch_token = l.token ORDER BY r.started_at, r.run_id LIMIT 1),
         (SELECT s.asm_id FROM sessions s WHERE s.launch_token = l.token ORDER BY s.started_at, s.asm_id LIMIT 1)
       ) AS asm_id
     FROM launches l
     WHERE l.matched_asm_id IS NULL AND l.error IS NULL`,
  ).all() as Row[];
  return rows.filter((r) => r.asm_id !== null).map((r) => ({
    token: String(r.token),
    asm_id: String(r.asm_id),
  }));
}

/** Expires the launches requested before `cutoff` that are still unmatched; they stay as evidence. */
export function expireLaunches(ledger: Ledger, cutoff: string, at: string): string[] {
  return ledger[DB].write((db) => {
    const rows = db.prepare(
      `SELECT token FROM launches WHERE matched_asm_id IS NULL AND expired = 0 AND requested_at < ?`,
    ).all(cutoff) as Row[];
    const tokens = rows.map((r) => String(r.token));
    const stmt = db.prepare("UPDATE launches SET expired = 1, expired_at = ? WHERE token = ?");
    for (const token of tokens) stmt.run(at, token);
    return tokens;
  });
}

/** The thread an adoption claims: the agent's own record of it, on the launch's process. */
export interface AdoptedThread {
  token: string;
  agent: string;
  agentSessionId: string;
  cwd: string;
  pid: number;
  procStart: number;
  bootId: string | null;
  /** Whether the cwd is a harness folder (hidden row), as the ledger judges it. */
  harness: boolean;
  at: string;
}

/**
 * Adoption: a launch whose window sits on a thread no hook has reported yet (hooks not installed or not
 * trusted) gets the row that thread's SessionStart would have made: live, with a run on the launch's process,
 * and the launch matched by "adoption". Refused (returns false) when the ledger already has a row for that
 * thread: a row that exists is somebody's, and a live one is driven by someone else.
 */
export function adoptThread(ledger: Ledger, thread: AdoptedThread): boolean {
  const why = pidProblem(thread.pid) ?? ticksProblem(thread.procStart) ?? idProblem(thread.agentSessionId);
  if (why !== null) {
    throw new LedgerError(`launch ${thread.token}: the adopted thread is out of range: ${why}`);
  }
  const asmId = asmIdOf(thread.agent, thread.agentSessionId);
  return ledger[DB].write((db) => {
    if (db.prepare("SELECT 1 FROM sessions WHERE asm_id = ?").get(asmId)) return false;
    db.prepare(
      `INSERT INTO sessions (asm_id, agent, agent_session_id, status, cwd, harness, launch_token, started_at, last_seen)
       VALUES (?, ?, ?, 'live', ?, ?, ?, ?, ?)`,
    ).run(
      asmId,
      thread.agent,
      thread.agentSessionId,
      thread.cwd,
      thread.harness ? 1 : 0,
      thread.token,
      thread.at,
      thread.at,
    );
    db.prepare(
      `INSERT INTO runs (asm_id, pid, proc_start, boot_id, launch_token, started_at, start_source)
       VALUES (?, ?, ?, ?, ?, ?, 'adopted')`,
    ).run(asmId, thread.pid, thread.procStart, thread.bootId, thread.token, thread.at);
    matchIn(db, thread.token, asmId, "adoption", thread.at);
    return true;
  });
}
