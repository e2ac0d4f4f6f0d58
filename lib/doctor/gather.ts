/**
 * `asm doctor`'s shell: gathers the facts `findings.ts` judges. Each agent's binary is looked up and asked its
 * version twice, on this shell's PATH and on the PATH the autostart unit gives the server; its transcript folders
 * are walked (read-only), its hook config read, its trust asked, its running-session records read as the poll
 * reads them. The sign-in files are only stat'ed, never read. The server's health comes from the caller (the CLI
 * asks the running server, the server its own model), so both say the same.
 * @module
 */
import { join } from "node:path";
import { adapterOf, hookAdapter, loadAgents } from "../agents/mod.ts";
import type { AgentConfig, LiveReport, TrustState } from "../agents/mod.ts";
import { type Env, findOnPath, syncedRefusal } from "../config/mod.ts";
import { type AgentCounts, LedgerError, openReadOnly } from "../ledger/mod.ts";
import { type HealthModel, lockFileHolder } from "../server/mod.ts";
import { currentHolder } from "../server/lock.ts";
import { hookRuntimeProblems, wrapperPath } from "../install/mod.ts";
import { parseUnit, systemctlOf, UNIT_NAME, unitPath, userManagerProblem } from "../install/autostart.ts";
import { denoIo } from "../history/mod.ts";
import { LINUX_PROC, runBounded } from "../procs/mod.ts";
import { procLookup } from "../liveness/mod.ts";
import { readTail } from "../usage/mod.ts";
import { errorText } from "../lang/mod.ts";
import { readRegularTextSync } from "../files/mod.ts";
import type {
  AgentFacts,
  BinaryFacts,
  DoctorFacts,
  LogError,
  SeenFrom,
  ServerFacts,
  UnitFacts,
} from "./findings.ts";
import { plainText } from "../lang/mod.ts";

/** How the server's health is had: the CLI asks the running server; the server reads its own. */
export type HealthSource = (server: { pid: number; port: number | null }) => Promise<
  { health: HealthModel } | { error: string }
>;

/** Options of {@link gatherFacts}. */
export interface GatherOptions {
  env: Env;
  asmHome: string;
  health: HealthSource;
  /** Whose PATH `env` carries: the doctor's shell (default) or the running server's. */
  seenFrom?: SeenFrom;
  /** Epoch ms "now" (the logs' errors count from a day before it). */
  now?: number;
}

const VERSION = /(\d+\.\d+\.\d+[\w.+-]*)/;
/** How many of the logs' newest error lines the report carries. */
const LOG_ERRORS_KEPT = 5;
/** How far back an error line counts as recent. */
const LOG_ERRORS_SINCE_MS = 24 * 3600_000;
/** How much of each log's end is read for its errors and the newest hook runs. */
const LOG_TAIL_BYTES = 512 * 1024;

const versions = new Map<string, { stamp: string; facts: BinaryFacts }>();

/**
 * `command` looked up on `path` and asked `--version` with only PATH, LANG and a scratch HOME (an agent's
 * `--version` needs nothing else, the shell's keys are not its business, and some write into their home even
 * then: Gemini CLI leaves a file in ~/.gemini at every start); cached per binary file, PATH and stamp.
 */
async function binaryOn(command: string, path: string, env: Env, home: string): Promise<BinaryFacts> {
  const found = findOnPath(command, { PATH: path });
  if (found === null) return { path: null, version: null, error: null };
  let stamp = "";
  try {
    const info = Deno.statSync(Deno.realPathSync(found));
    stamp = `${info.mtime?.getTime() ?? 0}:${info.size}`;
  } catch (err) {
    return { path: found, version: null, error: errorText(err) };
  }
  const key = `${found}\0${path}`;
  const known = versions.get(key);
  if (known?.stamp === stamp) return known.facts;
  let facts: BinaryFacts;
  try {
    const own: Record<string, string> = { PATH: path, HOME: home };
    if (env.LANG !== undefined) own.LANG = env.LANG;
    const out = await runBounded(found, { args: ["--version"], env: own, timeoutMs: 20_000, maxBytes: 8192 });
    const said = plainText(out.stderr.trim().split("\n").pop() ?? "").slice(0, 200);
    facts = out.timedOut
      ? { path: found, version: null, error: "it did not answer `--version` within 20 s" }
      : out.code === 0
      ? { path: found, version: out.stdout.match(VERSION)?.[1] ?? null, error: null }
      : { path: found, version: null, error: said || `exit code ${out.code}` };
  } catch (err) {
    facts = { path: found, version: null, error: errorText(err) };
  }
  // only an answer is kept: a binary that failed or hung is asked again next time (it may be set up by then)
  if (facts.error === null) versions.set(key, { stamp, facts });
  return facts;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function modeOf(path: string | null): number | null {
  if (path === null) return null;
  try {
    return Deno.statSync(path).mode;
  } catch {
    return null;
  }
}

async function readUnitFacts(env: Env): Promise<UnitFacts | null> {
  const path = unitPath(env);
  let text: string;
  try {
    text = readRegularTextSync(path, 1 << 20);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    // a folder, a FIFO, a file asm may not read: said as the unit's problem, never waited on
    return {
      path,
      execStart: null,
      execPresent: false,
      pathVar: null,
      environmentFile: null,
      environmentFileMode: null,
      managerProblem: null,
      enabled: null,
      readProblem: errorText(err),
    };
  }
  const unit = parseUnit(text);
  const program = unit.execStart?.[0] ?? null;
  const systemctl = systemctlOf(env, { timeoutMs: 5000 });
  const managerProblem = await userManagerProblem(systemctl);
  const enabled = managerProblem === null
    ? (await systemctl.run(["is-enabled", UNIT_NAME])).text.trim() === "enabled"
    : null;
  return {
    readProblem: null,
    managerProblem,
    enabled,
    path,
    execStart: unit.execStart,
    execPresent: program !== null && exists(program),
    pathVar: unit.environment.PATH ?? null,
    environmentFile: unit.environmentFile,
    environmentFileMode: modeOf(unit.environmentFile),
  };
}

/** The log's JSON lines, oldest first; a line that is not JSON is skipped. */
function logLines(path: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readTail(path, LOG_TAIL_BYTES);
  } catch {
    return [];
  }
  const out: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line));
    } catch { /* a line cut by the tail or by a crash */ }
  }
  return out;
}

function isErrorLine(line: Record<string, unknown>): boolean {
  if (line.ok === false) return true;
  if (typeof line.error === "string" && line.error !== "") return true;
  return typeof line.what === "string" && /\bfailed\b|\bunreadable\b/.test(line.what);
}

function lineText(line: Record<string, unknown>): string {
  const parts = [line.what, line.agent, line.event, line.error].filter((p) =>
    typeof p === "string" && p !== ""
  );
  return (parts.join(": ") || JSON.stringify(line)).slice(0, 300);
}

/** The JSON lines of the two logs' ends, each file read once. */
type Logs = Record<"server.log" | "hook.log", Record<string, unknown>[]>;

function readLogs(asmHome: string): Logs {
  return {
    "server.log": logLines(join(asmHome, "server.log")),
    "hook.log": logLines(join(asmHome, "hook.log")),
  };
}

function logErrors(logs: Logs, now: number): LogError[] {
  const errors: LogError[] = [];
  for (const file of ["server.log", "hook.log"] as const) {
    for (const line of logs[file]) {
      if (!isErrorLine(line)) continue;
      // a time that is not one, or one from the future, is no evidence of being recent: undated
      const parsed = typeof line.ts === "string" ? Date.parse(line.ts) : NaN;
      const at = Number.isFinite(parsed) && parsed <= now + 60_000 ? String(line.ts) : null;
      if (at === null || now - parsed > LOG_ERRORS_SINCE_MS) continue;
      errors.push({ file, at, text: lineText(line) });
    }
  }
  return errors.sort((a, b) => (b.at ?? "").localeCompare(a.at ?? "")).slice(0, LOG_ERRORS_KEPT);
}

/** Each agent's newest run in hook.log. */
function lastHookRuns(logs: Logs): Map<string, AgentFacts["lastEvent"]> {
  const last = new Map<string, AgentFacts["lastEvent"]>();
  for (const line of logs["hook.log"]) {
    if (typeof line.agent !== "string" || typeof line.ts !== "string") continue;
    last.set(line.agent, {
      event: typeof line.event === "string" ? line.event : null,
      at: line.ts,
      ok: line.ok !== false,
      error: typeof line.error === "string" ? line.error : null,
    });
  }
  return last;
}

function ledgerCounts(asmHome: string): { counts: AgentCounts[] | null; problem: string | null } {
  const path = join(asmHome, "ledger.sqlite");
  try {
    if (!Deno.statSync(path).isFile) {
      return {
        counts: null,
        problem: `the ledger at ${path} is not a file: move it aside, then asm rebuild`,
      };
    }
  } catch { /* no ledger yet, or unreadable: the open below says which */ }
  try {
    const ledger = openReadOnly(path);
    if (ledger === null) return { counts: null, problem: null };
    try {
      return { counts: ledger.agentCounts(), problem: null };
    } finally {
      ledger.close();
    }
  } catch (err) {
    if (err instanceof LedgerError) return { counts: null, problem: err.message };
    return { counts: null, problem: `the ledger could not be read: ${errorText(err)}` };
  }
}

function runningOf(agent: AgentConfig, env: Env): AgentFacts["running"] {
  const live = adapterOf(agent).live;
  if (!live) return null;
  try {
    const report: LiveReport = live({
      agent,
      env,
      procs: procLookup(LINUX_PROC),
      open: [],
      proc: LINUX_PROC,
    });
    return { count: report.sessions.size, error: null };
  } catch (err) {
    return { count: 0, error: errorText(err) };
  }
}

function credentialsOf(agent: AgentConfig, env: Env): AgentFacts["credentials"] {
  let path: string | undefined;
  try {
    path = adapterOf(agent).usage?.credentialsPath?.(env);
  } catch {
    return null; // no home to look in: no sign-in file to speak of
  }
  if (path === undefined) return null;
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      return { path, state: "absent" };
    }
    return { path, state: "unreadable" };
  }
  // stat'ed, never opened (a FIFO there would block an open): readable by its mode bits for this user
  if (!info.isFile) return { path, state: "unreadable" };
  const mode = info.mode ?? 0;
  const bit = info.uid === Deno.uid() ? 0o400 : info.gid === Deno.gid() ? 0o040 : 0o004;
  return { path, state: Deno.uid() === 0 || (mode & bit) !== 0 ? "present" : "unreadable" };
}

function transcriptsOf(agent: AgentConfig, env: Env): Pick<AgentFacts, "stores" | "transcripts"> {
  const cap = adapterOf(agent).transcripts;
  if (!cap) return { stores: [], transcripts: null };
  try {
    const stores = cap.stores(env).map((path) => ({ path, exists: exists(path) }));
    return { stores, transcripts: cap.discover(env, denoIo, () => {}).length };
  } catch {
    return { stores: [], transcripts: 0 }; // no home to look in, or a folder that cannot be walked
  }
}

async function agentFacts(
  agent: AgentConfig,
  options: {
    env: Env;
    unitPath: string | null;
    counts: AgentCounts[] | null;
    hookRuns: Map<string, AgentFacts["lastEvent"]>;
    /** the scratch HOME `--version` runs with */
    scratchHome: string;
  },
): Promise<AgentFacts> {
  const { env, scratchHome } = options;
  const [shell, unit] = await Promise.all([
    binaryOn(agent.command, env.PATH ?? "", env, scratchHome),
    options.unitPath === null
      ? Promise.resolve(null)
      : binaryOn(agent.command, options.unitPath, env, scratchHome),
  ]);
  const hooks = hookAdapter(agent);
  let installed = false;
  let trustState: TrustState | undefined;
  let unreadable: string | null = null;
  try {
    installed = hooks.isInstalled(env, agent);
    trustState = installed ? hooks.trustState?.(env, agent) : undefined;
  } catch (err) {
    unreadable = errorText(err); // its hook config is not a file asm can read (a FIFO, no permission)
  }
  const counts = options.counts?.find((c) => c.agent === agent.name);
  const fromLedger = counts?.last_event_at
    ? { event: counts.last_event, at: counts.last_event_at, ok: true, error: null }
    : null;
  return {
    name: agent.name,
    display: agent.display,
    command: agent.command,
    shell,
    unit,
    ...transcriptsOf(agent, env),
    sessions: options.counts === null ? null : counts?.sessions ?? 0,
    hooks: {
      installed,
      trust: trustState === undefined ? null : { state: trustState, advice: hooks.trustAdvice ?? "" },
    },
    lastEvent: options.hookRuns.get(agent.name) ?? fromLedger,
    unreadable,
    running: runningOf(agent, env),
    credentials: credentialsOf(agent, env),
  };
}

async function serverFacts(asmHome: string, health: HealthSource): Promise<ServerFacts> {
  let holder;
  try {
    holder = currentHolder(asmHome);
  } catch (err) {
    return { kind: "unknown", error: `its lock file cannot be read (${errorText(err)})` };
  }
  if (holder === null) {
    const stale = lockFileHolder(asmHome);
    return { kind: "stopped", staleLock: stale ? { pid: stale.pid, started_at: stale.started_at } : null };
  }
  const answer = await health({ pid: holder.pid, port: holder.port });
  const { pid, port } = holder;
  const mode = holder.board_mode ?? null;
  return "health" in answer
    ? { kind: "running", pid, port, mode, health: answer.health, error: null }
    : { kind: "running", pid, port, mode, health: null, error: answer.error };
}

/** Every fact the doctor judges. */
export async function gatherFacts(options: GatherOptions): Promise<DoctorFacts> {
  const { env, asmHome } = options;
  const now = options.now ?? Date.now();
  let agents: AgentConfig[] = [];
  let folderProblem: string | null = null;
  try {
    agents = loadAgents({ asmHome, env });
  } catch (err) {
    folderProblem = `asm cannot read its data folder ${asmHome} (${errorText(err)})`;
  }
  const unit = await readUnitFacts(env);
  const { counts, problem } = ledgerCounts(asmHome);
  const logs = readLogs(asmHome);
  const hookRuns = lastHookRuns(logs);
  const scratchHome = Deno.makeTempDirSync({ prefix: "asm-doctor-home-" });
  let server: ServerFacts;
  let facts: AgentFacts[];
  try {
    [server, facts] = await Promise.all([
      serverFacts(asmHome, options.health),
      Promise.all(
        agents.map((a) =>
          agentFacts(a, { env, unitPath: unit?.pathVar ?? null, counts, hookRuns, scratchHome })
        ),
      ),
    ]);
  } finally {
    Deno.removeSync(scratchHome, { recursive: true });
  }
  const wrapper = wrapperPath(asmHome);
  return {
    asmHome,
    seenFrom: options.seenFrom ?? "shell",
    synced: syncedRefusal(asmHome),
    hookRuntime: hookRuntimeProblems(asmHome),
    wrapper: { path: wrapper, present: exists(wrapper) },
    unit,
    server,
    agents: facts,
    logErrors: logErrors(logs, now),
    ledgerProblem: problem,
    folderProblem,
  };
}
