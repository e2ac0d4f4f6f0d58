/**
 * The cutover's eight steps as I/O: what each touches (files, kept before it runs), the facts it records, what
 * its dry run says, how it runs, and how it is undone beyond putting its files back. The order and the rules of
 * undoing are `plan.ts`'s; the journal is `journal.ts`'s; `mod.ts` runs them.
 * @module
 */
import { join } from "node:path";
import { parse } from "smol-toml";
import {
  type AgentConfig,
  type CanaryOutcome,
  hookAdapter,
  type InstallResult,
  writeFileAtomic,
} from "../agents/mod.ts";
import { type BoardListIds, type Env, loadSettings } from "../config/mod.ts";
import { setTomlKey, tomlInlineTable, tomlString } from "../config/toml_edit.ts";
import { hookRuntime, installHooks, runCanary, uninstallHooks, wrapperPath } from "../install/mod.ts";
import { agentEnvPath, installAutostart, type Systemctl, UNIT_NAME, unitPath } from "../install/autostart.ts";
import type { HealthSource } from "../doctor/mod.ts";
import { eventsFrom } from "../install/canary.ts";
import { addRealLists, type RealList, removeRealLists } from "../reconcile/mod.ts";
import { boardLocation } from "../board/mod.ts";
import { readTailSync } from "../files/mod.ts";
import { currentHolder } from "../server/lock.ts";
import { callServer, runningServer } from "../server/client.ts";
import { errorText, isRecord } from "../lang/mod.ts";
import { fileState, type Journal, type StepFacts } from "./journal.ts";
import type { UndoStep } from "./plan.ts";

/** The real board the cutover points asm at. */
export type BoardTarget =
  | { backend: "markdown"; path: string }
  | { backend: "workflowy"; lists: BoardListIds; keyFile: string };

/** What the cutover needs from the command line's side: the server's restart, stop and health. */
export interface CutoverHost {
  /** Restarts this data folder's server by the port's owner (or starts one); its lines, and whether it answers. */
  restart(options: { startWith: "unit" | "config" | "testing"; port?: number }): Promise<{
    ok: boolean;
    lines: string[];
  }>;
  /** Stops this data folder's server (nothing running is fine). */
  stop(): Promise<{ ok: boolean; lines: string[] }>;
  /** The running server's health, as `asm doctor` asks it. */
  health: HealthSource;
}

/** Everything a step reads. */
export interface CutoverContext {
  /** The installing shell's environment, with ASM_HOME set and ASM_MODE left out (it would force testing). */
  env: Env;
  asmHome: string;
  /** Every agent of the registry. */
  all: AgentConfig[];
  /** The agents whose hooks the cutover installs. */
  agents: AgentConfig[];
  board: BoardTarget;
  /** The person agreed to the canaries (one model request per agent, twice: install and post-check). */
  canary: boolean;
  /** Why there are no canaries, as the person would say it ("--no-canary", "you chose not to run them"). */
  canaryWhy: string;
  /** Enable autostart (false: `--no-autostart`, step 5 records that it was skipped). */
  autostart: boolean;
  /** Copy the agents' variables into the unit's EnvironmentFile (the person agreed). */
  agentEnv: boolean;
  systemctl: Systemctl;
  host: CutoverHost;
  journal: Journal;
  /** How long the post-check waits for the server's dry run and the canary's drain (ms). */
  waitMs: number;
}

/** What a step's run said. */
export interface StepOutcome {
  detail: string;
  lines?: string[];
  facts?: StepFacts;
}

/** What a step's undo did with files changed after it. */
export interface ChangedUndo {
  lines: string[];
  undone: string[];
}

/** One step. */
export interface StepSpec {
  /** The files it may write (kept before it runs; put back by the rollback). */
  files(ctx: CutoverContext): string[];
  /** Facts to record before it runs (what systemd and the server are now). */
  facts?(ctx: CutoverContext): Promise<StepFacts> | StepFacts;
  /** What it would change, for `--dry-run`. */
  preview(ctx: CutoverContext): Promise<string[]> | string[];
  /**
   * Does it; throws with a sentence when it cannot. `done` holds the finished earlier steps' facts, each with
   * `begun_at`, when the step began (ISO).
   */
  run(ctx: CutoverContext, facts: StepFacts, done: Map<number, StepFacts>): Promise<StepOutcome>;
  /** The part of the undo that comes before the files go back (a unit disabled, a server stopped). */
  undoFirst?(ctx: CutoverContext, step: UndoStep): Promise<string[]>;
  /**
   * The undo of files someone changed after the step (`changed`): the step's own edit taken out where it can
   * be. `undone` names the files it took its edit out of; every other changed file is left as it is, and said.
   */
  undoChanged?(ctx: CutoverContext, step: UndoStep, changed: string[]): ChangedUndo;
  /** What comes after the files are back (systemd told to read the unit again); `left`: files left as they are. */
  undoLast?(ctx: CutoverContext, step: UndoStep, left: string[]): Promise<string[]>;
}

// ---- the files --------------------------------------------------------------------------------------------

function hookFiles(ctx: CutoverContext): string[] {
  return ctx.agents.flatMap((a) => hookAdapter(a).configFiles(ctx.env));
}

function asmBinFiles(ctx: CutoverContext): string[] {
  const runtime = hookRuntime(ctx.asmHome);
  return [wrapperPath(ctx.asmHome), runtime.deno, runtime.hook, join(ctx.asmHome, "hook-agents.json")];
}

function configPath(ctx: CutoverContext): string {
  return join(ctx.asmHome, "config.toml");
}

function guardPath(ctx: CutoverContext): string {
  return join(ctx.asmHome, "real-lists.json");
}

function unitFiles(ctx: CutoverContext): string[] {
  return [unitPath(ctx.env), agentEnvPath(ctx.asmHome)];
}

function backupNames(ctx: CutoverContext): string[] {
  try {
    return [...Deno.readDirSync(join(ctx.asmHome, "backups"))].map((e) => e.name).sort();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

function exists(path: string): string {
  return fileState(path).sha256 === null ? "not there yet" : "exists";
}

// ---- config.toml ------------------------------------------------------------------------------------------

function configText(ctx: CutoverContext): string {
  try {
    return Deno.readTextFileSync(configPath(ctx));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return "";
    throw err;
  }
}

/** The keys step 3 sets, each with its TOML value. */
export function boardKeys(board: BoardTarget): [string, string][] {
  return board.backend === "markdown"
    ? [["backend", tomlString("markdown")], ["path", tomlString(board.path)]]
    : [
      ["backend", tomlString("workflowy")],
      ["lists", tomlInlineTable({ ...board.lists })],
      ["key_file", tomlString(board.keyFile)],
    ];
}

/** A value of the file as TOML text again (a string, a whole number, or a table of strings); null: absent. */
function renderValue(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (isRecord(value) && Object.values(value).every((v) => typeof v === "string")) {
    return tomlInlineTable(value as Record<string, string>);
  }
  return JSON.stringify(value);
}

/** The values the keys had before (null: absent), so an undo can put exactly them back by edit. */
function keysBefore(text: string, table: string | null, keys: string[]): Record<string, string | null> {
  let doc: Record<string, unknown> = {};
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch { /* the pre-flight refused a file it cannot read; an empty one has no keys */ }
  const holder = table === null ? doc : isRecord(doc[table]) ? doc[table] as Record<string, unknown> : {};
  return Object.fromEntries(keys.map((k) => [k, renderValue(holder[k])]));
}

/** config.toml with `keys` of `table` set. Throws a TomlEditError with what to set by hand. */
export function editedConfig(text: string, table: string | null, keys: [string, string | null][]): string {
  let next = text;
  for (const [key, value] of keys) next = setTomlKey(next, table, key, value);
  return next;
}

function writeConfig(ctx: CutoverContext, text: string): void {
  const made = fileState(configPath(ctx)).sha256 === null;
  // an existing file keeps its mode (writeFileAtomic); a new one is the data folder's: private
  writeFileAtomic(configPath(ctx), text);
  if (made) Deno.chmodSync(configPath(ctx), 0o600);
}

/** The undo of a config.toml edit someone changed since: the step's keys set back to what they were. */
function undoKeys(
  ctx: CutoverContext,
  table: string | null,
  before: unknown,
  changed: string[],
): ChangedUndo {
  if (!changed.includes(configPath(ctx)) || !isRecord(before)) return { lines: [], undone: [] };
  const keys = Object.entries(before).map(([k, v]) =>
    [k, typeof v === "string" ? v : null] as [string, string | null]
  );
  try {
    writeConfig(ctx, editedConfig(configText(ctx), table, keys));
    const names = keys.map(([k]) => table === null ? k : `${table}.${k}`).join(", ");
    return {
      lines: [
        `${configPath(ctx)} changed after the cutover: only the keys the step set were set back (${names})`,
      ],
      undone: [configPath(ctx)],
    };
  } catch (err) {
    return { lines: [`${configPath(ctx)}: ${errorText(err)}`], undone: [] };
  }
}

// ---- the guard --------------------------------------------------------------------------------------------

/** The guard entries of the real board: a Markdown file's real path; each Workflowy list's id. */
export function realListsOf(board: BoardTarget): RealList[] {
  return board.backend === "markdown"
    ? [{ backend: "markdown", location: boardLocation(board.path) }]
    : [board.lists.plan, board.lists.process, board.lists.complete].map((id) => ({
      backend: "workflowy",
      location: id,
    }));
}

// ---- the server -------------------------------------------------------------------------------------------

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The most of server.log one look reads: its newest lines (a look comes every 250 ms for up to a minute). */
const LOG_LOOK_BYTES = 4 << 20;

/** The server log's lines of the board's dry run written at or after `since` (ISO). */
function dryRunLines(asmHome: string, since: string): Record<string, unknown>[] | null {
  let text: string;
  try {
    text = new TextDecoder().decode(readTailSync(join(asmHome, "server.log"), LOG_LOOK_BYTES).bytes);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  const lines: Record<string, unknown>[] = [];
  for (const raw of text.split("\n")) {
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      continue;
    }
    if (!isRecord(line) || typeof line.ts !== "string" || line.ts < since) continue;
    if (line.what === "board dry run: would") lines.push(line);
    if (line.what === "board dry run") return [...lines, line];
  }
  return null;
}

function describeAction(line: Record<string, unknown>): string {
  const { ts: _ts, what: _what, ...rest } = line;
  return Object.entries(rest).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(
    " ",
  );
}

// ---- the steps --------------------------------------------------------------------------------------------

const backUp: StepSpec = {
  files: (ctx) => [
    ...new Set([
      ...hookFiles(ctx),
      configPath(ctx),
      ...asmBinFiles(ctx),
      guardPath(ctx),
      ...unitFiles(ctx),
    ]),
  ],
  preview: (ctx) => [
    `keeps a copy of each file the cutover may change, in ${ctx.journal.blobs}:`,
    ...backUp.files(ctx).map((p) => `  ${p} (${exists(p)})`),
  ],
  run: (ctx) => {
    const files = backUp.files(ctx);
    const there = files.filter((p) => fileState(p).sha256 !== null).length;
    return Promise.resolve({
      detail: `${there} file(s) kept in ${ctx.journal.blobs} (${files.length - there} not there yet)`,
    });
  },
};

const installStep: StepSpec = {
  files: (ctx) => [...hookFiles(ctx), ...asmBinFiles(ctx)],
  facts: (ctx) => ({ backups: backupNames(ctx) }),
  preview: (ctx) => [
    `installs the hooks of ${ctx.agents.map((a) => a.display).join(", ")} into ${
      hookFiles(ctx).join(", ")
    } and the hook's runtime into ${join(ctx.asmHome, "bin")}`,
    ctx.canary
      ? `then runs each agent's canary: one small session in a scratch folder, one model request per agent`
      : `no canaries (${ctx.canaryWhy})`,
  ],
  async run(ctx) {
    const results = installHooks({
      env: ctx.env,
      asmHome: ctx.asmHome,
      agents: ctx.agents.map((a) => a.name),
    });
    const lines: string[] = [];
    const problems: string[] = [];
    const passed: string[] = [];
    const needsTrust: string[] = [];
    for (const result of results) {
      lines.push(`${result.agent}: ${installLine(result)}`);
      if (result.kind === "NotInstalled") {
        problems.push(`${result.agent}: ${result.reason}`);
        continue;
      }
      const review = result.trust?.state === "needs-review";
      if (review) {
        lines.push(`  ${result.agent} asks you to trust asm's hooks: ${result.trust!.advice}`);
        needsTrust.push(`${result.agent}: ${result.trust!.advice}`);
      }
      if (!ctx.canary) continue;
      const agent = ctx.agents.find((a) => a.name === result.agent)!;
      const outcome: CanaryOutcome = (await runCanary({ agent, env: ctx.env, asmHome: ctx.asmHome })).outcome;
      lines.push(`  canary ${outcome.kind}: ${outcome.detail}`);
      if (outcome.kind === "passed") passed.push(agent.name);
      // hooks waiting for the person's trust cannot run yet: said above, not a failure of the install
      else if (outcome.kind === "failed" && !review) {
        problems.push(`${agent.name}'s canary failed: ${outcome.detail}`);
      }
    }
    if (problems.length > 0) throw new Error(problems.join("; "));
    return {
      detail: `hooks installed for ${results.map((r) => r.agent).join(", ")}`,
      lines,
      facts: { canary_passed: passed, needs_trust: needsTrust },
    };
  },
  undoChanged(ctx, step, changed) {
    const lines: string[] = [];
    const undone: string[] = [];
    for (const agent of ctx.agents) {
      const files = hookAdapter(agent).configFiles(ctx.env).filter((f) => changed.includes(f));
      if (files.length === 0) continue;
      // the uninstall takes out every asm entry: right only when the file had none before the cutover
      const hadHooks = files.some((f) => {
        const before = step.files.find((b) => b.path === f);
        if (!before || before.sha256 === null) return false;
        const bytes = ctx.journal.kept(before.sha256);
        return bytes === null || new TextDecoder().decode(bytes).includes(wrapperPath(ctx.asmHome));
      });
      if (hadHooks) {
        lines.push(
          `${files.join(", ")}: asm's hooks were there before the cutover and the file changed since, so ` +
            "asm cannot tell its own later entries apart; left as it is",
        );
        continue;
      }
      for (const r of uninstallHooks({ env: ctx.env, asmHome: ctx.asmHome, agents: [agent.name] })) {
        lines.push(
          `${files.join(", ")} changed after the cutover: only asm's hook entries were taken out`,
          ...r.notes.map((n) => `  ${n}`),
        );
      }
      undone.push(...files);
    }
    return { lines, undone };
  },
  undoLast(ctx, step, left) {
    // the backups the install made of the agents' files, which the restore made moot; while a file is left as it
    // is, its backup may be the last copy of what it was
    if (left.length > 0) {
      return Promise.resolve([`kept the install's backups in ${join(ctx.asmHome, "backups")}`]);
    }
    const before = Array.isArray(step.facts.backups) ? step.facts.backups as string[] : [];
    const made = backupNames(ctx).filter((n) => !before.includes(n));
    for (const name of made) Deno.removeSync(join(ctx.asmHome, "backups", name), { recursive: true });
    return Promise.resolve(made.length ? [`removed the ${made.length} backup file(s) the install made`] : []);
  },
};

function installLine(result: InstallResult): string {
  switch (result.kind) {
    case "Installed":
      return `installed (${result.files.join(", ")})`;
    case "AlreadyInstalled":
      return "already installed; nothing written";
    case "NotInstalled":
      return `not installed: ${result.reason}`;
  }
}

const pointBoard: StepSpec = {
  files: (ctx) => [configPath(ctx)],
  // only the keys the step sets: a key the person adds later is theirs, never taken out by the undo
  facts: (ctx) => ({ keys: keysBefore(configText(ctx), "board", boardKeys(ctx.board).map(([k]) => k)) }),
  preview: (ctx) => [
    `sets in ${configPath(ctx)} [board]: ${boardKeys(ctx.board).map(([k, v]) => `${k} = ${v}`).join(", ")}`,
  ],
  run(ctx) {
    // only the keys that name the real board: the rest of [board] (its list ids, its folders) stays the person's
    const keys: [string, string | null][] = boardKeys(ctx.board);
    writeConfig(ctx, editedConfig(configText(ctx), "board", keys));
    return Promise.resolve({
      detail: `the board is ${realListsOf(ctx.board).map((l) => l.location).join(", ")}`,
    });
  },
  undoChanged: (ctx, step, changed) => undoKeys(ctx, "board", step.facts.keys, changed),
};

const guardStep: StepSpec = {
  files: (ctx) => [guardPath(ctx)],
  preview: (ctx) => [
    `adds to ${guardPath(ctx)}: ${
      realListsOf(ctx.board).map((l) => `${l.backend} ${l.location}`).join(", ")
    }`,
    "  (from then on a testing server refuses to start on these lists)",
  ],
  run(ctx) {
    const added = addRealLists(ctx.asmHome, realListsOf(ctx.board));
    return Promise.resolve({
      detail: added.length
        ? `${added.length} real list(s) written into the guard`
        : "the guard named them already",
      facts: { added },
    });
  },
  undoChanged(ctx, step, changed) {
    if (!changed.includes(guardPath(ctx))) return { lines: [], undone: [] };
    const added = Array.isArray(step.doneFacts.added) ? step.doneFacts.added as RealList[] : [];
    try {
      removeRealLists(ctx.asmHome, added);
      return {
        lines: [`${guardPath(ctx)} changed after the cutover: only the lists it added were taken out`],
        undone: [guardPath(ctx)],
      };
    } catch (err) {
      return { lines: [`${guardPath(ctx)}: ${errorText(err)}`], undone: [] };
    }
  },
};

/** `systemctl --user is-enabled asm.service`'s word ("enabled", "disabled", "not-found", ...). */
async function enablement(systemctl: Systemctl): Promise<string> {
  const r = await systemctl.run(["is-enabled", UNIT_NAME]);
  return r.text.split("\n")[0].trim() || (r.ok ? "enabled" : "disabled");
}

const autostartStep: StepSpec = {
  files: (ctx) => ctx.autostart ? unitFiles(ctx) : [],
  facts: async (ctx) => ctx.autostart ? { enabled: await enablement(ctx.systemctl) } : {},
  preview: (ctx) =>
    ctx.autostart
      ? [
        `writes ${unitPath(ctx.env)}${
          ctx.agentEnv ? ` and ${agentEnvPath(ctx.asmHome)} (0600)` : ""
        }, then ` +
        `systemctl --user enable ${UNIT_NAME} (step 7 starts it)`,
      ]
      : ["skipped (--no-autostart)"],
  async run(ctx) {
    if (!ctx.autostart) return { detail: "skipped (--no-autostart)", facts: { enabled: false } };
    const report = await installAutostart({
      env: ctx.env,
      asmHome: ctx.asmHome,
      agents: ctx.all,
      copyAgentEnv: ctx.agentEnv,
      systemctl: ctx.systemctl,
      startNow: false,
    });
    if (!report.enabled) throw new Error(report.lines.map((l) => l.trim()).join("; "));
    return { detail: `${UNIT_NAME} enabled`, lines: report.lines, facts: { enabled: true } };
  },
  async undoFirst(ctx, step) {
    if (!ctx.autostart && !("enabled" in step.facts)) return [];
    if (step.facts.enabled === "enabled") {
      return [`${UNIT_NAME} was enabled before the cutover: left enabled`];
    }
    const r = await ctx.systemctl.run(["disable", UNIT_NAME]);
    return [r.ok ? `disabled ${UNIT_NAME}` : `systemctl --user disable ${UNIT_NAME} failed: ${r.text}`];
  },
  async undoLast(ctx, step) {
    if (!("enabled" in step.facts)) return [];
    const r = await ctx.systemctl.run(["daemon-reload"]);
    return r.ok ? [] : [`systemctl --user daemon-reload failed: ${r.text}`];
  },
};

const liveMode: StepSpec = {
  files: (ctx) => [configPath(ctx)],
  facts: (ctx) => ({ keys: keysBefore(configText(ctx), null, ["mode"]) }),
  preview: (ctx) => {
    const was = keysBefore(configText(ctx), null, ["mode"]).mode;
    return [`sets mode = "live" in ${configPath(ctx)} (it is ${was ?? "not set: live by default"})`];
  },
  run(ctx) {
    writeConfig(ctx, editedConfig(configText(ctx), null, [["mode", tomlString("live")]]));
    return Promise.resolve({ detail: 'mode = "live"' });
  },
  undoChanged: (ctx, step, changed) => undoKeys(ctx, null, step.facts.keys, changed),
};

const restartStep: StepSpec = {
  files: () => [],
  facts: (ctx) => {
    const holder = currentHolder(ctx.asmHome);
    return {
      before: holder === null || holder.mode !== "serve" ? null : {
        pid: holder.pid,
        port: holder.port,
        board_mode: holder.board_mode ?? null,
      },
    };
  },
  preview: (ctx) => {
    const holder = currentHolder(ctx.asmHome);
    const start = ctx.autostart ? `systemctl --user start ${UNIT_NAME}` : "asm serve (live), detached";
    return [
      holder === null
        ? `no server runs now: starts one (${start})`
        : `stops the server that owns port ${holder.port} (pid ${holder.pid}, ${
          holder.board_mode ?? "live"
        }) and starts ${start}`,
    ];
  },
  async run(ctx, _facts, done) {
    const unit = done.get(5)?.enabled === true;
    const r = await ctx.host.restart({ startWith: unit ? "unit" : "config" });
    if (!r.ok) throw new Error(r.lines.join("; "));
    const now = currentHolder(ctx.asmHome);
    if (now?.board_mode === "testing") {
      throw new Error(`the server came back in testing mode (pid ${now.pid}): ${r.lines.join("; ")}`);
    }
    return { detail: r.lines.join("; "), facts: { pid: now?.pid ?? null, port: now?.port ?? null } };
  },
  async undoFirst(ctx) {
    if (currentHolder(ctx.asmHome) === null) return ["no server was running"];
    const r = await ctx.host.stop();
    return r.lines;
  },
};

const postCheck: StepSpec = {
  files: () => [],
  preview: (ctx) => [
    "asks the new server's /api/health, waits for its first board pass (a dry run) and prints it" +
    (ctx.canary ? ", runs one canary and waits until the server drains its event" : ""),
  ],
  async run(ctx, _facts, done) {
    const lines: string[] = [];
    const server = runningServer(ctx.asmHome);
    if (server === null) throw new Error("no server serves the data folder after the restart");
    const res = await callServer(server, "/api/health", { signal: AbortSignal.timeout(10_000) });
    const health = await res.json() as { ok?: boolean; problems?: string[] };
    if (!res.ok || health.ok !== true) {
      throw new Error(
        `the server's health is not ok: ${(health.problems ?? [`HTTP ${res.status}`]).join("; ")}`,
      );
    }
    lines.push(`health: ok (port ${server.port})`);
    // the new server's dry run comes after the restart began (the old one's came before)
    const began = done.get(7)?.begun_at;
    const since = typeof began === "string" ? began : new Date(0).toISOString();
    const deadline = Date.now() + ctx.waitMs;
    let dry = dryRunLines(ctx.asmHome, since);
    while (dry === null && Date.now() < deadline) {
      await sleep(250);
      dry = dryRunLines(ctx.asmHome, since);
    }
    if (dry === null) {
      throw new Error(
        `the server's first board pass (its dry run) did not appear in ${
          join(ctx.asmHome, "server.log")
        } within ` +
          `${ctx.waitMs / 1000} s; the board part of its health says why`,
      );
    }
    const summary = dry[dry.length - 1];
    lines.push(
      `the first board pass, a dry run of ${summary.location}: ${summary.actions} action(s) it would take, ` +
        `${summary.would_identify ?? 0} card(s) it would give an id, nothing written`,
    );
    if (Number(summary.would_identify ?? 0) > 0 || Number(summary.actions ?? 0) > 0) {
      lines.push(
        "  the server's first real pass does it within about 20 s; a card shows on the page once it has its id",
      );
    }
    for (const action of dry.slice(0, -1).slice(0, 30)) lines.push(`  would ${describeAction(action)}`);
    if (dry.length > 31) lines.push(`  ... and ${dry.length - 31} more`);
    const passed = Array.isArray(done.get(2)?.canary_passed) ? done.get(2)!.canary_passed as string[] : [];
    const agent = ctx.agents.find((a) => passed.includes(a.name));
    if (!ctx.canary) {
      lines.push(
        `no canary checked that a hook event reaches the new server: canaries were not run (${ctx.canaryWhy})`,
      );
    } else if (!agent) {
      throw new Error("no agent's canary passed at install, so no canary can prove the drain");
    } else {
      const run = await runCanary({ agent, env: ctx.env, asmHome: ctx.asmHome });
      if (run.outcome.kind !== "passed") throw new Error(`the canary failed: ${run.outcome.detail}`);
      const processed = join(ctx.asmHome, "processed");
      let drained = false;
      while (!drained && Date.now() < deadline + ctx.waitMs) {
        drained = eventsFrom(ctx.asmHome, agent.name, run.scratch).some((e) =>
          e.event === "SessionStart" && e.file.startsWith(processed)
        );
        if (!drained) await sleep(250);
      }
      if (!drained) throw new Error(`${agent.display}'s canary event was not drained by the server`);
      lines.push(`${agent.display}'s canary event was drained by the server`);
    }
    return { detail: "the post-check passed", lines };
  },
};

/** The eight steps, in order (`STEP_NAMES` names them). */
export const STEPS: readonly StepSpec[] = [
  backUp,
  installStep,
  pointBoard,
  guardStep,
  autostartStep,
  liveMode,
  restartStep,
  postCheck,
];

/** The board's settings the pre-flight reads the real board through. */
export function boardSettingsOf(ctx: CutoverContext) {
  const base = loadSettings(ctx.asmHome).settings.board;
  return ctx.board.backend === "markdown"
    ? { ...base, backend: "markdown", path: ctx.board.path }
    : { ...base, backend: "workflowy", lists: ctx.board.lists, keyFile: ctx.board.keyFile };
}
