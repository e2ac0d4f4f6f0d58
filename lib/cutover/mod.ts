/**
 * `asm cutover` and `asm rollback`: from a testing setup to the real thing in eight numbered steps, each written
 * to the journal (with a copy of every file it may change) before it runs and marked done after; and the
 * rollback, which undoes the newest cutover's steps newest first, each undo recorded, after a cutover that
 * stopped at any step or one that finished. The pre-flight and the dry run change nothing.
 * @module
 */
import { dirname, join } from "node:path";
import { type AgentConfig, loadAgents, writeFileAtomic } from "../agents/mod.ts";
import { boardPath, type Env, findOnPath, loadSettings } from "../config/mod.ts";
import { TomlEditError, tomlString } from "../config/toml_edit.ts";
import { doctorFindings, gatherFacts } from "../doctor/mod.ts";
import { agentEnvNames, userManagerProblem } from "../install/autostart.ts";
import { boardLocation } from "../board/mod.ts";
import { pathExists } from "../files/mod.ts";
import { configuredOutliner } from "../reconcile/mod.ts";
import { currentHolder } from "../server/lock.ts";
import { errorText } from "../lang/mod.ts";
import { fileState, Journal, type JournalRecord, type StepFacts, takeCutoverLock } from "./journal.ts";
import {
  doctorCheck,
  fileDecision,
  gatesCheck,
  type GatesFacts,
  type PreflightCheck,
  preflightPasses,
  rollbackPlan,
  standing,
  STEP_NAMES,
  type UndoStep,
} from "./plan.ts";
import { readGateRuns } from "./gate_runs.ts";
import {
  boardKeys,
  boardSettingsOf,
  type BoardTarget,
  type CutoverContext,
  type CutoverHost,
  editedConfig,
  STEPS,
} from "./steps.ts";

export { type BoardTarget, type CutoverHost } from "./steps.ts";
export { type GateRun, STEP_NAMES } from "./plan.ts";
export { readGateRuns, recordGateRun } from "./gate_runs.ts";
export { Journal } from "./journal.ts";

/** Options of {@link runCutover}. */
export interface CutoverOptions {
  /** The installing shell's environment. */
  env: Env;
  asmHome: string;
  /** Agent names; empty: every agent whose command is on PATH. */
  agents: string[];
  board: BoardTarget;
  canary: boolean;
  autostart: boolean;
  /** Copy the agents' variables for the unit; undefined: `consent` asks (false without it). */
  agentEnv?: boolean;
  /** Cut over without a green gate run (said in the journal). */
  skipGates: boolean;
  dryRun: boolean;
  systemctl: CutoverContext["systemctl"];
  host: CutoverHost;
  /** Why a second server would share the board, or null (the command line's port-owner check). */
  secondServer: () => string | null;
  say: (line: string) => void;
  /** How long the post-check waits (ms; default 60 s). */
  waitMs?: number;
  /** The gates this asm has, and the commit it was built from (the pre-flight's gates check). */
  gates?: GatesFacts;
  /** Why there are no canaries when `canary` is false (default "--no-canary"). */
  canaryWhy?: string;
  /**
   * Asked once the pre-flight passed, before step 1 (a person at a terminal): whether to spend the canaries'
   * model requests and copy the named variables. Absent: `canary` and `agentEnv` as given.
   */
  consent?: (ask: { canary: boolean; agentEnvNames: string[] }) => { canary: boolean; agentEnv: boolean };
}

function contextOf(options: CutoverOptions): CutoverContext {
  // ASM_MODE=testing would force every server this starts into testing mode
  const { ASM_MODE: _mode, ...env } = options.env;
  const shellEnv: Env = { ...env, ASM_HOME: options.asmHome };
  const all = loadAgents({ asmHome: options.asmHome, env: shellEnv });
  const agents: AgentConfig[] = options.agents.length
    ? options.agents.map((name) => {
      const agent = all.find((a) => a.name === name);
      if (!agent) throw new Error(`unknown agent "${name}"; asm knows ${all.map((a) => a.name).join(", ")}`);
      return agent;
    })
    : all.filter((a) => findOnPath(a.command, shellEnv) !== null);
  return {
    env: shellEnv,
    asmHome: options.asmHome,
    all,
    agents,
    board: options.board,
    canary: options.canary,
    canaryWhy: options.canaryWhy ?? "--no-canary",
    autostart: options.autostart,
    agentEnv: options.agentEnv ?? false,
    systemctl: options.systemctl,
    host: options.host,
    journal: new Journal(options.asmHome),
    waitMs: options.waitMs ?? 60_000,
  };
}

async function boardCheck(ctx: CutoverContext): Promise<PreflightCheck> {
  const name = "board";
  const loaded = loadSettings(ctx.asmHome);
  if (ctx.board.backend === "markdown") {
    const target = boardLocation(ctx.board.path);
    const testing = boardLocation(boardPath(ctx.asmHome, "testing", loaded.settings.board));
    if (target === testing) {
      return {
        name,
        ok: false,
        text: `${target} is the testing board of this data folder: give the real board's file`,
      };
    }
    // whether it is there, by stat: the read below refuses what is too large without reading it whole
    if (!pathExists(target) && target !== boardLocation(join(ctx.asmHome, "board.md"))) {
      return {
        name,
        ok: false,
        text: `there is no board file at ${target}: give the path of your real board (or ` +
          `${join(ctx.asmHome, "board.md")}, which asm makes when it is not there)`,
      };
    }
  }
  let outliner;
  try {
    outliner = configuredOutliner(ctx.asmHome, "live", boardSettingsOf(ctx));
  } catch (err) {
    return { name, ok: false, text: `the real board cannot be used: ${errorText(err)}` };
  }
  if (typeof outliner === "string") return { name, ok: false, text: outliner };
  try {
    const read = await outliner.read({ fresh: true, create: false });
    const counts = Object.entries(read.lists).map(([list, cards]) => `${cards.length} in ${list}`).join(", ");
    return { name, ok: true, text: `the real board ${outliner.location} reads: ${counts}` };
  } catch (err) {
    return { name, ok: false, text: `the real board ${outliner.location} cannot be read: ${errorText(err)}` };
  }
}

function configCheck(ctx: CutoverContext): PreflightCheck {
  const loaded = loadSettings(ctx.asmHome);
  if (loaded.refusal !== null || loaded.problem !== null) {
    return { name: "config.toml", ok: false, text: `${loaded.refusal ?? loaded.problem}; fix it first` };
  }
  let text = "";
  try {
    text = Deno.readTextFileSync(join(ctx.asmHome, "config.toml"));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  try {
    editedConfig(editedConfig(text, "board", boardKeys(ctx.board)), null, [["mode", tomlString("live")]]);
  } catch (err) {
    if (!(err instanceof TomlEditError)) throw err;
    return { name: "config.toml", ok: false, text: err.message };
  }
  return {
    name: "config.toml",
    ok: true,
    text: `${join(ctx.asmHome, "config.toml")} can take the board and the mode`,
  };
}

/** The pre-flight: every check, in order; the cutover starts only when all pass. Changes nothing. */
async function preflight(ctx: CutoverContext, options: CutoverOptions): Promise<PreflightCheck[]> {
  const checks: PreflightCheck[] = [];
  checks.push(
    ctx.agents.length > 0
      ? { name: "agents", ok: true, text: `hooks for ${ctx.agents.map((a) => a.display).join(", ")}` }
      : {
        name: "agents",
        ok: false,
        text: `no agent found on PATH (${ctx.all.map((a) => a.command).join(", ")}): install one first`,
      },
  );
  const now = standing(ctx.journal.records());
  checks.push(
    now.kind === "in-place"
      ? {
        name: "journal",
        ok: false,
        text: now.finished
          ? `asm already runs live since the cutover ${now.run}: nothing to do (asm rollback undoes it)`
          : `the cutover ${now.run} stopped at step ${
            now.failed ?? now.lastStep
          }: run asm rollback, then asm cutover again`,
      }
      : { name: "journal", ok: true, text: "no cutover in place" },
  );
  // the settings now are the cutover's own: every other check would judge them, not the testing setup
  if (now.kind === "in-place") return checks;
  checks.push(configCheck(ctx));
  checks.push(await boardCheck(ctx));
  const second = options.secondServer();
  checks.push(
    second === null
      ? {
        name: "server",
        ok: true,
        text: "no second server: the port is free or held by this data folder's own",
      }
      : { name: "server", ok: false, text: second },
  );
  checks.push(
    options.skipGates
      ? { name: "gates", ok: true, text: "not checked (--skip-gates); the journal records that" }
      : gatesCheck(readGateRuns(ctx.asmHome), options.gates),
  );
  if (ctx.autostart) {
    const problem = await userManagerProblem(ctx.systemctl);
    checks.push(
      problem === null ? { name: "autostart", ok: true, text: "a systemd user manager answers" } : {
        name: "autostart",
        ok: false,
        text: `${problem}: run the cutover where one runs, or --no-autostart`,
      },
    );
  }
  const facts = await gatherFacts({ env: ctx.env, asmHome: ctx.asmHome, health: ctx.host.health });
  checks.push(doctorCheck(doctorFindings(facts)));
  return checks;
}

/** `asm cutover`: the pre-flight, then the steps (or, with `dryRun`, what they would do). The exit code. */
export async function runCutover(options: CutoverOptions): Promise<number> {
  if (options.dryRun) return await cutover(options);
  return await locked(options, "cutover", () => cutover(options));
}

/** Runs `work` holding the data folder's cutover lock; a lock another live run holds is its sentence, exit 1. */
async function locked(
  options: { asmHome: string; say: (line: string) => void },
  what: "cutover" | "rollback",
  work: () => Promise<number>,
): Promise<number> {
  const release = takeCutoverLock(options.asmHome, what);
  if (typeof release === "string") {
    options.say(release);
    return 1;
  }
  try {
    return await work();
  } finally {
    release();
  }
}

async function cutover(options: CutoverOptions): Promise<number> {
  const say = options.say;
  const ctx = contextOf(options);
  const checks = await preflight(ctx, options);
  say("pre-flight:");
  for (const c of checks) say(`  ${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.text}`);
  const passes = preflightPasses(checks);
  if (options.dryRun && standing(ctx.journal.records()).kind === "in-place") {
    say("dry run: nothing was changed; the steps are not listed while a cutover is in place");
    return 1;
  }
  if (options.dryRun) {
    say("the steps:");
    for (const [i, step] of STEPS.entries()) {
      say(`  ${i + 1}. ${STEP_NAMES[i]}`);
      for (const line of await step.preview(ctx)) say(`     ${line}`);
    }
    say(
      `dry run: nothing was changed${
        passes ? "" : "; the pre-flight does not pass yet, so asm cutover would stop before step 1"
      }`,
    );
    return passes ? 0 : 1;
  }
  if (!passes) {
    say("the cutover did not start (nothing was changed): fix what the pre-flight says, then run it again");
    return 1;
  }
  if (options.consent) {
    const names = ctx.autostart && options.agentEnv === undefined ? agentEnvNames(ctx.all, ctx.env) : [];
    const answer = options.consent({ canary: ctx.canary, agentEnvNames: names });
    if (ctx.canary && !answer.canary) ctx.canaryWhy = "you chose not to run them";
    ctx.canary = answer.canary;
    if (options.agentEnv === undefined) ctx.agentEnv = answer.agentEnv;
  }
  const run = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const { journal } = ctx;
  journal.append({
    kind: "cutover",
    run,
    options: {
      agents: ctx.agents.map((a) => a.name),
      board: ctx.board,
      canary: ctx.canary,
      autostart: ctx.autostart,
      agent_env: ctx.agentEnv,
      skip_gates: options.skipGates,
    },
    preflight: checks.map((c) => `${c.name}: ${c.text}`),
  });
  const done = new Map<number, StepFacts>();
  // what the steps so far wrote, by path: a later step edits only a file that still holds that
  const written = new Map<string, { state: ReturnType<typeof fileState>; step: number }>();
  for (const [i, step] of STEPS.entries()) {
    const n = i + 1;
    const paths = [...new Set(step.files(ctx))];
    // the folders a step's files would be made in that are not there yet: its undo removes them when empty
    const facts = { ...await step.facts?.(ctx) ?? {}, absent_folders: absentFolders(paths) };
    const files = paths.map((p) => journal.keep(p));
    const begun = journal.append({ kind: "begin", run, step: n, name: STEP_NAMES[i], files, facts });
    say(`step ${n}/${STEPS.length}: ${STEP_NAMES[i]}`);
    let outcome;
    try {
      for (const f of files) {
        const was = written.get(f.path);
        if (was && (was.state.sha256 !== f.sha256 || was.state.mode !== f.mode)) {
          throw new Error(
            `${f.path} changed while the cutover ran (it is not what step ${was.step} wrote): stopped before ` +
              "changing it again",
          );
        }
      }
      outcome = await step.run(ctx, facts, done);
    } catch (err) {
      const error = errorText(err);
      journal.append({ kind: "failed", run, step: n, error });
      say(`  FAILED: ${error}`);
      say(
        `the cutover stopped at step ${n}; nothing after it ran. \`asm rollback\` undoes steps ${n} to 1, ` +
          `newest first (the journal: ${journal.path})`,
      );
      return 1;
    }
    for (const line of outcome.lines ?? []) say(`  ${line}`);
    say(`  done: ${outcome.detail}`);
    const after = files.map((f) => ({ path: f.path, ...fileState(f.path) }));
    for (const f of after) {
      if (f.sha256 !== files.find((b) => b.path === f.path)!.sha256) {
        written.set(f.path, { state: { sha256: f.sha256, mode: f.mode }, step: n });
      }
    }
    journal.append({
      kind: "done",
      run,
      step: n,
      files: after,
      facts: outcome.facts ?? {},
      detail: outcome.detail,
    });
    done.set(n, { ...outcome.facts, begun_at: begun.at });
  }
  journal.append({ kind: "finished", run });
  say(`the cutover is done: asm runs live on the real board. \`asm rollback\` undoes it, newest step first`);
  const trust = done.get(2)?.needs_trust;
  if (Array.isArray(trust) && trust.length > 0) {
    say("still yours to do:");
    for (const advice of trust) say(`  ${advice}`);
  }
  return 0;
}

/** Options of {@link runRollback}. */
export interface RollbackOptions {
  env: Env;
  asmHome: string;
  systemctl: CutoverContext["systemctl"];
  host: CutoverHost;
  say: (line: string) => void;
}

/** Puts one file back as the journal kept it before the step; false when its kept copy is gone (or changed). */
function restoreFile(journal: Journal, before: UndoStep["files"][number], lines: string[]): boolean {
  if (before.sha256 === null) {
    Deno.removeSync(before.path);
    lines.push(`removed ${before.path} (the cutover made it)`);
    return true;
  }
  const bytes = journal.kept(before.sha256);
  if (bytes === null) {
    lines.push(
      `the copy of ${before.path} kept before the cutover is gone or changed: only the step's own edit is taken out`,
    );
    return false;
  }
  if (fileState(before.path).sha256 !== before.sha256) writeFileAtomic(before.path, bytes);
  if (before.mode !== null) Deno.chmodSync(before.path, before.mode);
  lines.push(`restored ${before.path}`);
  return true;
}

/** What one step's undo did. */
interface StepUndo {
  lines: string[];
  /** Files left as they are (each said in the lines). */
  left: string[];
  /** Files the step's own edit was taken out of (changed since, so not byte for byte as before). */
  edited: string[];
}

/**
 * Undoes one step: its first part, its files (or its own edit out of those changed since, or whose kept copy is
 * gone), its last part.
 */
async function undoStep(ctx: CutoverContext, step: UndoStep): Promise<StepUndo> {
  const spec = STEPS[step.step - 1];
  const lines: string[] = [...(await spec.undoFirst?.(ctx, step) ?? [])];
  const changed: string[] = [];
  for (const before of step.files) {
    const decision = fileDecision(before, step.after?.get(before.path) ?? null, fileState(before.path));
    if (decision === "restore" && !restoreFile(ctx.journal, before, lines)) changed.push(before.path);
    else if (decision === "changed-since") changed.push(before.path);
  }
  const left: string[] = [];
  const edited: string[] = [];
  if (changed.length > 0) {
    const report = spec.undoChanged?.(ctx, step, changed) ?? { lines: [], undone: [] };
    lines.push(...report.lines);
    edited.push(...report.undone);
    for (const path of changed.filter((p) => !report.undone.includes(p))) {
      left.push(path);
      lines.push(
        `left ${path} as it is: it is not what the step wrote, and the step's own edit cannot be taken out`,
      );
    }
  }
  lines.push(...(await spec.undoLast?.(ctx, step, left) ?? []));
  const absent = Array.isArray(step.facts.absent_folders) ? step.facts.absent_folders as string[] : [];
  const removed = absent.filter(removeIfEmpty);
  if (removed.length) lines.push(`removed the empty folder(s) the step made: ${removed.join(", ")}`);
  return { lines, left, edited };
}

/** The folders above `paths` that do not exist, deepest first (each up to the nearest one that does). */
function absentFolders(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(path); dir !== dirname(dir) && !pathExists(dir); dir = dirname(dir)) out.add(dir);
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** Removes a folder only when it is empty (something of anyone's in it keeps it); true when it went. */
function removeIfEmpty(dir: string): boolean {
  try {
    Deno.removeSync(dir);
    return true;
  } catch {
    return false; // not empty, or gone already
  }
}

/**
 * The files of step 1's backup that are not as they were before the cutover, apart from those the rollback said
 * it left or edited: a journal cut short (a record lost) shows here instead of as "as it was".
 */
function notAsBefore(records: readonly JournalRecord[], run: string, said: Set<string>): string[] {
  const backup = records.find((r) => r.kind === "begin" && r.run === run && r.step === 1);
  if (backup?.kind !== "begin") return [];
  return backup.files.filter((f) => {
    if (said.has(f.path)) return false;
    const now = fileState(f.path);
    return now.sha256 !== f.sha256 || now.mode !== f.mode;
  }).map((f) => f.path);
}

/**
 * `asm rollback`: undoes the newest cutover's steps newest first, each undo recorded in the journal; then, when
 * step 7 had stopped a server, starts it again the way it ran (after every file is back, so it reads the old
 * settings). The exit code: 0 when everything is as it was, 1 when something was left (each said).
 */
export async function runRollback(options: RollbackOptions): Promise<number> {
  return await locked(options, "rollback", () => rollback(options));
}

async function rollback(options: RollbackOptions): Promise<number> {
  const say = options.say;
  const journal = new Journal(options.asmHome);
  const records = journal.records();
  const plan = rollbackPlan(records);
  if (plan === null) {
    const now = standing(records);
    say(now.kind === "none" ? "no cutover to roll back" : `the cutover ${now.run} is already rolled back`);
    return 0;
  }
  const opening = records.find((r) => r.kind === "cutover" && r.run === plan.run);
  const chosen = opening?.kind === "cutover" && Array.isArray(opening.options.agents)
    ? opening.options.agents as string[]
    : [];
  const board = opening?.kind === "cutover" ? opening.options.board as BoardTarget : null;
  const ctx = contextOf({
    env: options.env,
    asmHome: options.asmHome,
    agents: chosen,
    board: board ?? { backend: "markdown", path: join(options.asmHome, "board.md") },
    canary: false,
    autostart: opening?.kind === "cutover" && opening.options.autostart === true,
    agentEnv: false,
    skipGates: true,
    dryRun: false,
    systemctl: options.systemctl,
    host: options.host,
    secondServer: () => null,
    say,
  });
  say(`rolling back the cutover ${plan.run}, newest step first:`);
  let left = 0;
  const said = new Set<string>();
  const edited: string[] = [];
  for (const step of plan.steps) {
    say(`undo step ${step.step}: ${step.name}`);
    let result;
    try {
      result = await undoStep(ctx, step);
    } catch (err) {
      const error = errorText(err);
      journal.append({ kind: "undo", run: plan.run, step: step.step, lines: [`FAILED: ${error}`] });
      say(`  FAILED: ${error}`);
      say("the rollback stopped there; fix that and run asm rollback again (it goes on from this step)");
      return 1;
    }
    for (const line of result.lines) say(`  ${line}`);
    if (result.lines.length === 0) say("  nothing to undo");
    left += result.left.length;
    for (const path of [...result.left, ...result.edited]) said.add(path);
    for (const path of result.edited) if (!edited.includes(path)) edited.push(path);
    journal.append({ kind: "undo", run: plan.run, step: step.step, lines: result.lines });
  }
  const lines: string[] = [];
  for (const path of notAsBefore(records, plan.run, said)) {
    left++;
    const line =
      `${path} is not as it was before the cutover, and no undo in the journal says why (was the ` +
      "journal cut short?)";
    lines.push(line);
    say(line);
  }
  // the server step 7 stopped, started again as it ran, now that every setting is back; not while anything is
  // left, since a testing server must never start on settings that may still name the real board
  const restart = records.find((r) => r.kind === "begin" && r.run === plan.run && r.step === 7);
  const before = restart?.kind === "begin"
    ? restart.facts.before as { port?: number; board_mode?: string } | null
    : null;
  if (before && left > 0) {
    const line =
      "the server that ran before the cutover was not started again, because something above was left";
    lines.push(line);
    say(line);
  } else if (before && currentHolder(options.asmHome) === null) {
    const r = await options.host.restart({
      startWith: before.board_mode === "testing" ? "testing" : "config",
      port: before.port ?? undefined,
    });
    lines.push(...r.lines);
    if (!r.ok) left++;
    for (const line of r.lines) say(line);
  }
  journal.append({ kind: "rolled-back", run: plan.run, lines });
  say(
    left > 0
      ? `rolled back, except ${left} thing(s) said above as left`
      : `rolled back: ${
        edited.length
          ? `every file the cutover changed is as it was, except ${edited.length} changed since, out of which ` +
            "only the cutover's own part was taken"
          : "every file the cutover changed is as it was"
      }, and asm runs as it did before (what the live server wrote to the board meanwhile, such as card ids, ` +
        "stays on the board)",
  );
  return left > 0 ? 1 : 0;
}
