/**
 * `asm cutover` and `asm rollback` as a person runs them: the real board asked for at a terminal when no flag
 * gives it, the canaries' cost said and agreed to, and the server's restart, stop and health from this command
 * line's own tools (`restart.ts`, `doctor.ts`), handed to `lib/cutover` as its host.
 * @module
 */
import { join, resolve as resolvePath } from "node:path";
import {
  asmHome as defaultAsmHome,
  DEFAULT_LIST_IDS,
  type Env,
  homeDir,
  loadSettings,
  repoRoot,
} from "../config/mod.ts";
import { type BoardTarget, type CutoverHost, runCutover, runRollback } from "../cutover/mod.ts";
import { type Systemctl, systemctlOf } from "../install/autostart.ts";
import { currentHolder } from "../server/lock.ts";
import { listenerOn, pidsHolding } from "../procs/mod.ts";
import { boardLocation } from "../board/mod.ts";
import { askServer } from "./doctor.ts";
import { errorText } from "../lang/mod.ts";
import { commitOf } from "../ship/build.ts";
import { planRestart, restartCli, stopCli } from "./restart.ts";

/** Options of {@link cutoverCli}. */
export interface CutoverCliOptions {
  agents: string[];
  /** `--board-path`: the real board's Markdown file. */
  boardPath?: string;
  /** `--workflowy-lists plan,process,complete` and `--workflowy-key-file`. */
  workflowyLists?: string;
  workflowyKeyFile?: string;
  canary: boolean;
  autostart: boolean;
  /** true / false, or undefined to ask at a terminal (no terminal: not copied). */
  agentEnv?: boolean;
  skipGates: boolean;
  dryRun: boolean;
  env?: Env;
  systemctl?: Systemctl;
  /** How long the post-check waits (ms). */
  waitMs?: number;
  /** The gates a checkout has (the pre-flight names those never run); none for the one file. */
  gates?: readonly string[];
}

/** The server's restart, stop and health, as this command line does them. */
function hostOf(env: Env, asmHome: string): CutoverHost {
  // ASM_MODE=testing would force the live server the cutover starts into testing mode
  const { ASM_MODE: _mode, ...rest } = env;
  const cliEnv = { ...rest, ASM_HOME: asmHome };
  return {
    async restart(options) {
      const lines: string[] = [];
      const code = await restartCli({
        env: cliEnv,
        startWith: options.startWith,
        port: options.port,
        say: (l) => lines.push(l),
        error: (l) => lines.push(l),
      });
      return { ok: code === 0, lines };
    },
    async stop() {
      const lines: string[] = [];
      const code = await stopCli({ env: cliEnv, say: (l) => lines.push(l), error: (l) => lines.push(l) });
      return { ok: code === 0, lines };
    },
    health: askServer(asmHome),
  };
}

/**
 * Why another server would share the board, or null: the port must be free or this data folder's own server's
 * (proven by the socket table and the lock, as `asm restart` proves it), and the person's own data folder must
 * not run a server of its own when this is another one.
 */
function secondServer(env: Env, asmHome: string): string | null {
  const holder = currentHolder(asmHome);
  if (holder !== null && holder.mode !== "serve") {
    return `asm ${holder.mode} (pid ${holder.pid}) holds ${asmHome}: wait for it to finish`;
  }
  const port = holder?.port ?? loadSettings(asmHome).settings.port;
  const listener = listenerOn(port);
  const plan = planRestart({ port, holder, owners: listener ? pidsHolding(listener.inode) : null });
  if (plan.kind === "refuse") return plan.why;
  const own = join(homeDir(env), ".asm");
  if (boardLocation(own) !== boardLocation(asmHome)) {
    const other = currentHolder(own);
    if (other !== null) {
      return `another asm (pid ${other.pid}) runs for ${own}: two live servers would both keep a board; stop it ` +
        `first (ASM_HOME=${own} asm stop)`;
    }
  }
  return null;
}

/** The real board from the flags, or asked at a terminal; a sentence when neither gives one. */
function boardTarget(options: CutoverCliOptions, asmHome: string, env: Env): BoardTarget | string {
  // ./asm runs from its checkout: a relative path is the caller's folder's
  const resolve = (path: string) => resolvePath(env.ASM_CALLER_CWD || Deno.cwd(), path);
  if (options.boardPath !== undefined && options.workflowyLists !== undefined) {
    return "give the real board once: --board-path or --workflowy-lists, not both";
  }
  if (options.workflowyLists !== undefined) {
    const ids = options.workflowyLists.split(",").map((s) => s.trim());
    if (ids.length !== 3 || ids.some((id) => !/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(id))) {
      return "--workflowy-lists takes the three lists' node ids, plan,process,complete";
    }
    if (new Set(ids.map((id) => id.toLowerCase())).size < 3) {
      return "--workflowy-lists must name three different lists";
    }
    if (!options.workflowyKeyFile) {
      return "--workflowy-lists needs --workflowy-key-file (the file with the API key)";
    }
    return {
      backend: "workflowy",
      lists: { plan: ids[0], process: ids[1], complete: ids[2] },
      keyFile: resolve(options.workflowyKeyFile),
    };
  }
  if (options.boardPath !== undefined) {
    if (options.boardPath.trim() === "" || options.boardPath.includes("\0")) {
      return "--board-path needs a file";
    }
    return { backend: "markdown", path: resolve(options.boardPath) };
  }
  const fallback = join(asmHome, "board.md");
  if (!Deno.stdin.isTerminal()) {
    return "which board is your real one? Give --board-path FILE (a Markdown board), or --workflowy-lists " +
      `PLAN,PROCESS,COMPLETE --workflowy-key-file FILE (use --board-path ${fallback} for asm's own default)`;
  }
  const answer = prompt(`Your real board's Markdown file [${fallback}]:`);
  const path = answer === null || answer.trim() === "" ? fallback : answer.trim();
  return { backend: "markdown", path: resolve(path) };
}

/** A line for the terminal: a control character from a path or a sentence is shown escaped, never sent as is. */
export function terminalLine(line: string): string {
  return line.replace(
    // deno-lint-ignore no-control-regex
    /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g,
    (c) => c === "\n" ? "\\n" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

const say = (line: string) => console.log(terminalLine(line));

/** Runs a cutover or a rollback; what it could not do (an edited journal, a file it may not read) is one sentence. */
async function sentenced(command: string, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (err) {
    console.error(terminalLine(`asm ${command}: ${errorText(err)}`));
    return 1;
  }
}

function askYes(question: string): boolean {
  const answer = prompt(`${question} [Y/n]`);
  return answer === null || !/^n(o)?$/i.test(answer.trim());
}

/** Asks a question whose answer is no unless the person says yes (copying secrets is never the default). */
function askNo(question: string): boolean {
  const answer = prompt(`${question} [y/N]`);
  return answer !== null && /^y(es)?$/i.test(answer.trim());
}

/** `asm cutover`: the exit code. */
export async function cutoverCli(options: CutoverCliOptions): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  const asmHome = defaultAsmHome(env);
  const board = boardTarget(options, asmHome, env);
  if (typeof board === "string") {
    console.error(terminalLine(`asm cutover: ${board}`));
    return 2;
  }
  if (
    board.backend === "workflowy" &&
    Object.values(board.lists).some((id) => Object.values(DEFAULT_LIST_IDS).includes(id))
  ) {
    console.error(
      "asm cutover: --workflowy-lists must name Workflowy node ids, not the Markdown board's list ids",
    );
    return 2;
  }
  const cost =
    "one small session of each agent in a scratch folder, at install and once more against the new " +
    "server: model requests on your account";
  // a script gets what it asked for; a person is asked once the pre-flight passed, before anything changes
  if (options.canary && !options.dryRun && !Deno.stdin.isTerminal()) {
    console.log(`the canaries check each agent's hooks with ${cost} (--no-canary skips them)`);
  }
  const consent = Deno.stdin.isTerminal()
    ? (ask: { canary: boolean; agentEnvNames: string[] }) => ({
      canary: ask.canary && askYes(`Check each agent's hooks with ${cost}?`),
      agentEnv: ask.agentEnvNames.length > 0 &&
        askNo(
          `Copy ${ask.agentEnvNames.join(", ")} from this shell into ${
            join(asmHome, "agents.env")
          } (0600), for the autostarted server?`,
        ),
    })
    : undefined;
  return await sentenced("cutover", async () =>
    await runCutover({
      env,
      asmHome,
      agents: options.agents,
      board,
      canary: options.canary,
      autostart: options.autostart,
      agentEnv: options.agentEnv,
      consent,
      skipGates: options.skipGates,
      dryRun: options.dryRun,
      systemctl: options.systemctl ?? systemctlOf(env),
      host: hostOf(env, asmHome),
      secondServer: () => secondServer(env, asmHome),
      say,
      waitMs: options.waitMs,
      gates: { known: options.gates ?? [], commit: env.ASM_COMMIT || await commitOf(repoRoot()) },
    }));
}

/** `asm rollback`: the exit code. */
export async function rollbackCli(options: { env?: Env; systemctl?: Systemctl } = {}): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  const asmHome = defaultAsmHome(env);
  return await sentenced("rollback", () =>
    runRollback({
      env,
      asmHome,
      systemctl: options.systemctl ?? systemctlOf(env),
      host: hostOf(env, asmHome),
      say,
    }));
}
