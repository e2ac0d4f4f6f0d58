/**
 * Codex's own running-session evidence (agents/codex.md sections 2, 3, 6, 8). A thread is live while a Codex
 * process holds the flock on `$CODEX_HOME/thread-writer-locks/<thread id>.lock`: the shared app-server daemon for
 * the threads it hosts, or the TUI itself under `--no-daemon` (seen on 0.169: `FLOCK ADVISORY WRITE <tui pid>`).
 * The lock FILES stay on disk for ever, so only a flock in `/proc/locks` counts. A thread is working while the last
 * turn marker in its rollout is a `task_started` with no `task_complete` (or `turn_aborted`) after it. A turn
 * Codex gave up on ends in a `task_complete` carrying `error.message` (observed on 0.169: a 400 answer, "exceeded
 * retry limit, last status: 429 ...", a missing key): it reads "failed" with that message. A working turn whose
 * newest model request answered with an error Codex retries reads "retrying" (its log database: retry_log.ts).
 * @module
 */
import { join } from "node:path";
import { closeSync, openRegularSync, readFullySync, RefusedFile, type RegularFile } from "../../files/mod.ts";
import { toIso } from "../../ledger/mod.ts";
import { errorText } from "../../lang/mod.ts";
import { isAgentProcess } from "../glob.ts";
import type {
  ActivityReading,
  Env,
  LiveCarrier,
  LiveInfo,
  LiveQuery,
  LiveReport,
  OpenSessionRef,
  ProcLookup,
} from "../protocol.ts";
import type { ProcInfo } from "../../procs/mod.ts";
import { codexHome } from "./home.ts";
import { uuidV7Time } from "./rollouts.ts";
import { failureText } from "../failure_text.ts";
import { codexLogsDb, readRetryLog, retryFromLog, retryReason } from "./retry_log.ts";

/** `$CODEX_HOME/thread-writer-locks`. */
export function threadLocksDir(env: Env): string {
  return join(codexHome(env), "thread-writer-locks");
}

/**
 * Pure: the inodes of `/proc/locks` FLOCK lines and the pid holding each. Matched on the inode alone: on overlay
 * file systems `/proc/locks` names the lower device, not the one `stat` reports, and the holder must be a Codex
 * process anyway.
 */
export function parseFlocks(text: string): Map<number, number> {
  const holders = new Map<number, number>();
  for (const line of text.split("\n")) {
    // "3: FLOCK  ADVISORY  WRITE 14604 fe:00:2245262 0 EOF"; a "->" line is a waiter, not a holder
    const m = line.match(/^\d+:\s+FLOCK\s+\S+\s+\S+\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/i);
    if (m) holders.set(Number(m[2]), Number(m[1]));
  }
  return holders;
}

/** Turn markers in a rollout's `event_msg` lines, and what each says. */
const MARKERS: Record<string, Pick<ActivityReading, "state" | "reason">> = {
  task_started: { state: "working", reason: null },
  task_complete: { state: "idle", reason: null },
  turn_aborted: { state: "idle", reason: null },
  exec_approval_request: { state: "waiting", reason: "permission" },
  apply_patch_approval_request: { state: "waiting", reason: "permission" },
  request_permissions: { state: "waiting", reason: "permission" },
  request_user_input: { state: "waiting", reason: "question" },
  elicitation_request: { state: "waiting", reason: "question" },
};

/** What a rollout's tail says of its newest turn: the reading, and the turn's id when the marker names it. */
export interface RolloutTurn {
  reading: ActivityReading;
  turnId: string | null;
}

/**
 * Pure: the activity a rollout's tail shows, or null when the tail holds no turn marker. A waiting marker counts
 * only while it is the rollout's last line (once the turn goes on, lines follow it). `at` is the file's mtime:
 * the rollout moves with every line the turn writes.
 */
export function rolloutActivity(tail: string, mtime: string | null): ActivityReading | null {
  return rolloutTurn(tail, mtime)?.reading ?? null;
}

/** Pure: {@link rolloutActivity}, with the id of the turn its marker belongs to. */
export function rolloutTurn(tail: string, mtime: string | null): RolloutTurn | null {
  const lines = tail.split("\n").filter((l) => l.trim() !== "");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (!line.includes('"event_msg"')) continue;
    let entry: {
      type?: unknown;
      payload?: {
        type?: unknown;
        turn_id?: unknown;
        turn_attribution?: { turn_id?: unknown };
        error?: { message?: unknown } | null;
      };
    };
    try {
      entry = JSON.parse(line);
    } catch {
      // the first line of a tail is usually cut in half; a half-written last line is read whole next poll
      continue;
    }
    const kind = entry.type === "event_msg" ? entry.payload?.type : undefined;
    if (typeof kind !== "string" || !(kind in MARKERS)) continue;
    const marker = MARKERS[kind];
    const payload = entry.payload!;
    const id = payload.turn_id ?? payload.turn_attribution?.turn_id;
    const turnId = typeof id === "string" ? id : null;
    if (marker.state === "waiting" && i !== lines.length - 1) {
      return { reading: { state: "working", raw: kind, reason: null, at: mtime }, turnId };
    }
    if (kind === "task_complete" && payload.error) {
      // the turn ended on an error Codex gave up on: its message, as Codex wrote it
      const reason = failureText(payload.error.message) ??
        "the turn ended on an error Codex did not describe";
      return { reading: { state: "failed", raw: kind, reason, at: mtime }, turnId };
    }
    return { reading: { ...marker, raw: kind, at: mtime }, turnId };
  }
  return null;
}

/** Where a thread's rollout is: the hooks' transcript path, else the UUIDv7 day folder (and its neighbours). */
export function findRollout(threadId: string, env: Env, known: string | null): string | null {
  if (known) return known;
  const created = uuidV7Time(threadId);
  if (created === null) return null;
  const root = join(codexHome(env), "sessions");
  for (const ms of [created, created - 86_400_000, created + 86_400_000]) {
    const d = new Date(ms);
    const folder = join(
      root,
      String(d.getUTCFullYear()),
      String(d.getUTCMonth() + 1).padStart(2, "0"),
      String(d.getUTCDate()).padStart(2, "0"),
    );
    try {
      for (const entry of Deno.readDirSync(folder)) {
        if (entry.isFile && entry.name.startsWith("rollout-") && entry.name.endsWith(`-${threadId}.jsonl`)) {
          return join(folder, entry.name);
        }
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return null;
}

/** Tails read, smallest first: a long turn can write a lot after its `task_started`. */
const TAIL_BYTES = [64 * 1024, 1024 * 1024];

/** The activity a rollout file shows (its tail), or null when there is no rollout or no marker in 1 MiB. */
export function readRolloutActivity(path: string): ActivityReading | null {
  return readRolloutTurn(path)?.reading ?? null;
}

/** {@link readRolloutActivity}, with the turn's id. */
export function readRolloutTurn(path: string): RolloutTurn | null {
  let file: RegularFile;
  try {
    file = openRegularSync(path);
  } catch (err) {
    // a path from a hook event may be a link, a FIFO or a device: like no rollout, it tells nothing
    if (err instanceof Deno.errors.NotFound || err instanceof RefusedFile) return null;
    throw err;
  }
  try {
    const mtime = toIso(file.mtimeMs);
    for (const want of TAIL_BYTES) {
      const size = Math.min(want, file.size);
      const buf = new Uint8Array(size);
      const read = readFullySync(file.fd, buf, file.size - size);
      const found = rolloutTurn(new TextDecoder().decode(buf.subarray(0, read)), mtime);
      if (found || size === file.size) return found;
    }
    return null;
  } finally {
    closeSync(file.fd);
  }
}

/** The daemon (`codex app-server ...`) hosts threads for every TUI of its CODEX_HOME. */
function isDaemon(p: ProcInfo): boolean {
  return p.argv.includes("app-server");
}

/** A lock file's inode, or null when there is no such file. */
function inodeOf(path: string): number | null {
  try {
    return Deno.statSync(path).ino;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** The facts `codexLiveFrom` decides on, gathered by {@link codexLive}. */
export interface CodexFacts {
  /** Each asked thread -> the inode of its lock file (absent when there is none). */
  lockInodes: Map<string, number>;
  /** `/proc/locks`, parsed. */
  flocks: Map<number, number>;
  /** Each asked thread -> what its rollout shows. */
  activity: Map<string, ActivityReading | null>;
}

/**
 * Pure: a thread is live when a Codex process holds its lock; a daemon, and any Codex process holding one of the
 * asked threads, is a carrier whose list is exactly the asked threads it holds (asm never needs the others).
 */
export function codexLiveFrom(
  open: OpenSessionRef[],
  facts: CodexFacts,
  procs: ProcLookup,
  isCodex: (p: ProcInfo) => boolean,
): LiveReport {
  const sessions = new Map<string, LiveInfo>();
  const held = new Map<number, Set<string>>();
  for (const ref of open) {
    const inode = facts.lockInodes.get(ref.agentSessionId);
    const holder = inode === undefined ? undefined : facts.flocks.get(inode);
    const proc = holder === undefined ? undefined : procs.get(holder);
    if (!proc || !isCodex(proc)) continue;
    sessions.set(ref.agentSessionId, {
      agentSessionId: ref.agentSessionId,
      pid: proc.pid,
      procStart: proc.startTicks,
      activity: facts.activity.get(ref.agentSessionId) ?? null,
    });
    const set = held.get(proc.pid) ?? new Set<string>();
    set.add(ref.agentSessionId);
    held.set(proc.pid, set);
  }
  // a thread with no lock file at all was never loaded the way asm knows (or Codex changed): not disproved
  for (const ref of open) {
    if (facts.lockInodes.has(ref.agentSessionId)) continue;
    for (const run of ref.runs) {
      const set = held.get(run.pid) ?? new Set<string>();
      set.add(ref.agentSessionId);
      held.set(run.pid, set);
    }
  }
  const carriers = new Map<number, LiveCarrier>();
  const runPids = new Set(open.flatMap((ref) => ref.runs.map((r) => r.pid)));
  for (const pid of new Set([...held.keys(), ...runPids])) {
    const proc = procs.get(pid);
    if (!proc || !isCodex(proc)) continue;
    // a TUI holding none of the asked threads may be between threads (`/new`): it proves nothing either way
    if (![...(held.get(pid) ?? [])].some((id) => sessions.has(id)) && !isDaemon(proc)) continue;
    carriers.set(pid, { procStart: proc.startTicks, sessionIds: held.get(pid) ?? new Set() });
  }
  return { sessions, carriers };
}

/** Codex's `live()`: thread locks x /proc/locks x the process table, and each live thread's rollout tail. */
export function codexLive(query: LiveQuery): LiveReport {
  const dir = threadLocksDir(query.env);
  const lockInodes = new Map<string, number>();
  for (const ref of query.open) {
    // the id goes into a path: only a plain id may
    if (!/^[0-9a-zA-Z-]+$/.test(ref.agentSessionId)) continue;
    const inode = inodeOf(join(dir, `${ref.agentSessionId}.lock`));
    if (inode !== null) lockInodes.set(ref.agentSessionId, inode);
  }
  const flocks = lockInodes.size ? parseFlocks(query.proc.readText("/proc/locks") ?? "") : new Map();
  const activity = new Map<string, ActivityReading | null>();
  const problems: string[] = [];
  for (const ref of query.open) {
    const inode = lockInodes.get(ref.agentSessionId);
    if (inode === undefined || !flocks.has(inode)) continue;
    const rollout = findRollout(ref.agentSessionId, query.env, ref.transcriptPath);
    const turn = rollout ? readRolloutTurn(rollout) : null;
    activity.set(ref.agentSessionId, turn ? withRetry(turn, query.env, ref.agentSessionId, problems) : null);
  }
  const report = codexLiveFrom(
    query.open,
    { lockInodes, flocks, activity },
    query.procs,
    (p) => isAgentProcess(query.agent, p.exe, p.argv),
  );
  return problems.length > 0 ? { ...report, problems } : report;
}

/**
 * A working turn's reading, corrected by Codex's log database: "retrying" while its newest model request answered
 * with an error Codex retries. The log is read only for a working turn (one indexed query per thread and poll).
 */
function withRetry(
  turn: RolloutTurn,
  env: Env,
  threadId: string,
  problems: string[],
): ActivityReading {
  if (turn.reading.state !== "working" || turn.turnId === null) return turn.reading;
  const db = codexLogsDb(env);
  if (db === null) return turn.reading;
  let rows;
  try {
    rows = readRetryLog(db, threadId);
  } catch (err) {
    // a log database that is not one, locked or unreadable: the turn keeps its reading, the poll logs why
    problems.push(`Codex's log database ${db} could not be read: ${errorText(err)}`);
    return turn.reading;
  }
  const retry = retryFromLog(rows, turn.turnId);
  return retry ? { ...turn.reading, state: "retrying", reason: retryReason(retry) } : turn.reading;
}
