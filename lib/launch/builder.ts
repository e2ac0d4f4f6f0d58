/**
 * The ONE launch builder: every command asm starts an agent with is built here, nowhere else. From a request it
 * plans the files of one launch (pure: {@link buildLaunch}) and writes them ({@link writeLaunchFiles}):
 *
 * - `$ASM_HOME/launches/<token>.prompt`: the prompt, UTF-8, exactly as given;
 * - `$ASM_HOME/launches/<token>.sh`: the pure-ASCII launcher (script.ts) that sets the token, exports the
 *   window's environment, changes to the folder and execs the shim (shim.ts), which starts the agent with the
 *   prompt as ONE argument.
 *
 * The window runs `/bin/sh <token>.sh <token>`, so the token is on the window's command line too (and on the
 * shim's, which replaces it): the hook finds it in its environment, or else by walking its ancestors.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentConfig } from "../agents/protocol.ts";
import { agentArgv, type LaunchKind } from "./argv.ts";
import { ENV_NAME, renderLauncher } from "./script.ts";

/** `lib/launch/shim.ts` of this checkout. */
export const SHIM_PATH: string = fileURLToPath(new URL("./shim.ts", import.meta.url));

/** The largest prompt asm passes: one argv element may hold at most 128 KiB on Linux. */
export const MAX_PROMPT_BYTES = 100_000;

/** What to build. */
export interface BuildInput {
  token: string;
  agent: AgentConfig;
  kind: LaunchKind;
  /** The folder the agent runs in (absolute). */
  folder: string;
  /** The agent's executable, absolute. */
  command: string;
  /** The prompt as the agent will receive it, or null for no prompt argument (a resume may have none). */
  prompt: string | null;
  /** Null, absent or empty withholds the model flag. */
  model?: string | null;
  /** The agent's own session id (resume). */
  sessionId?: string | null;
  /** The session's name, exported as `ASM_SESSION_NAME` (the hook records it). */
  name?: string | null;
  /** The window's environment, exported by the script (see {@link windowEnv}). */
  env: ReadonlyArray<readonly [string, string]>;
  /** The agent's hook-trust bypass: tests on scratch homes only. */
  bypassHookTrust?: boolean;
  /** `$ASM_HOME/launches`. */
  launchesDir: string;
  /** The deno that runs the shim. */
  denoPath: string;
  /** Defaults to {@link SHIM_PATH}. */
  shimPath?: string;
}

/** One launch, planned: the files to write and the window to open. */
export interface LaunchPlan {
  token: string;
  kind: LaunchKind;
  agent: string;
  folder: string;
  /** The model flag's value, or null when withheld. */
  model: string | null;
  name: string | null;
  scriptPath: string;
  /** The launcher, pure ASCII. */
  script: string;
  /** Null when there is no prompt argument. */
  promptPath: string | null;
  prompt: string | null;
  /** The agent's argv without the prompt (which the shim appends to `args[promptIndex]`). */
  agentArgs: string[];
  promptIndex: number | null;
  /** The tmux window's name (ASCII) and command line. */
  windowName: string;
  windowArgv: string[];
}

/** A launch request asm refuses; the message is a sentence a person reads. */
export class LaunchInputError extends Error {
  override name = "LaunchInputError";
}

/** Variables a window sets for itself, or that belong to one launch: never copied from asm's environment. */
const WINDOW_OWN = new Set([
  "PWD",
  "OLDPWD",
  "SHLVL",
  "_",
  "TERM",
  "TERM_PROGRAM",
  "TERM_PROGRAM_VERSION",
  "COLORTERM",
  "COLUMNS",
  "LINES",
  "TMUX",
  "TMUX_PANE",
  "STY",
  "WINDOW",
  "ASM_LAUNCH_TOKEN",
  "ASM_SESSION_NAME",
]);

/**
 * The environment a launched window gets: asm's own (so the agent finds the same HOME, CODEX_HOME,
 * GEMINI_CLI_HOME and ASM_HOME asm reads), minus what the terminal sets per window and what names one launch.
 * Sorted by name, so a script is the same text for the same facts.
 */
export function windowEnv(env: Record<string, string | undefined>): [string, string][] {
  return Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined && ENV_NAME.test(e[0]) && !WINDOW_OWN.has(e[0]))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** An ASCII window name: the agent, then the session name (or the token) squeezed to safe characters. */
export function windowName(agent: string, name: string | null, token: string): string {
  const label = (name ?? "").replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 24);
  return `${agent}-${label || token.slice(6, 14)}`;
}

/** Plans one launch. Pure. Throws {@link LaunchInputError} (or ArgvError) with a sentence. */
export function buildLaunch(input: BuildInput): LaunchPlan {
  const { agent, token } = input;
  if (!input.folder.startsWith("/")) {
    throw new LaunchInputError(`the folder must be an absolute path, not "${input.folder}"`);
  }
  const name = input.name?.trim() || null;
  if (name !== null) {
    // deno-lint-ignore no-control-regex
    if (/[\x00-\x1f\x7f]/.test(name) || name.length > 200) {
      throw new LaunchInputError("the session name must be one line of at most 200 characters");
    }
  }
  const prompt = input.prompt;
  if (prompt !== null) {
    if (prompt.includes("\0")) {
      throw new LaunchInputError(
        "the prompt contains a NUL character, which no program can receive as an argument",
      );
    }
    if (new TextEncoder().encode(prompt).length > MAX_PROMPT_BYTES) {
      throw new LaunchInputError(
        `the prompt is longer than ${MAX_PROMPT_BYTES} bytes; put the text in a file and name the file in the prompt`,
      );
    }
  }
  const argv = agentArgv(agent, {
    kind: input.kind,
    sessionId: input.sessionId,
    model: input.model,
    withPrompt: prompt !== null,
    bypassHookTrust: input.bypassHookTrust,
  });
  const scriptPath = join(input.launchesDir, `${token}.sh`);
  const promptPath = prompt === null ? null : join(input.launchesDir, `${token}.prompt`);
  const env: [string, string][] = input.env.filter(([k]) => !WINDOW_OWN.has(k)).map(([k, v]) => [k, v]);
  if (name !== null) env.push(["ASM_SESSION_NAME", name]);
  const script = renderLauncher({
    token,
    folder: input.folder,
    env,
    exec: [
      input.denoPath,
      "run",
      "-A",
      "--no-config",
      "--no-lock",
      "--no-prompt",
      input.shimPath ?? SHIM_PATH,
      token,
      promptPath ?? "-",
      argv.promptIndex === null ? "-" : String(argv.promptIndex),
      "--",
      input.command,
      ...argv.args,
    ],
  });
  const model = input.model?.trim() || null;
  return {
    token,
    kind: input.kind,
    agent: agent.name,
    folder: input.folder,
    model,
    name,
    scriptPath,
    script,
    promptPath,
    prompt,
    agentArgs: argv.args,
    promptIndex: argv.promptIndex,
    windowName: windowName(agent.name, name, token),
    windowArgv: ["/bin/sh", scriptPath, token],
  };
}

/** Writes the prompt file, then the launcher (both 0600: the prompt and the environment are the user's). */
export function writeLaunchFiles(plan: LaunchPlan): void {
  Deno.mkdirSync(join(plan.scriptPath, ".."), { recursive: true, mode: 0o700 });
  if (plan.promptPath !== null && plan.prompt !== null) {
    Deno.writeTextFileSync(plan.promptPath, plan.prompt, { mode: 0o600, createNew: true });
  }
  Deno.writeTextFileSync(plan.scriptPath, plan.script, { mode: 0o600, createNew: true });
}
