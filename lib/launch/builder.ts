/**
 * The ONE launch builder: every command asm starts an agent with is built here, nowhere else. From a request it
 * plans the files of one launch (pure: {@link buildLaunch}) and writes them ({@link writeLaunchFiles}), all 0600:
 *
 * - `$ASM_HOME/launches/<token>.env`: the launch environment (JSON; env.ts decides what is in it), which the shim
 *   reads and deletes as it starts: no environment value is kept on disk, none is ever a process argument;
 * - `$ASM_HOME/launches/<token>.prompt`: the prompt, UTF-8, exactly as given;
 * - `$ASM_HOME/launches/<token>.sh`: the pure-ASCII launcher (script.ts) that sets the token, changes to the
 *   folder and execs the shim (shim.ts), which starts the agent with that environment and the prompt as ONE
 *   argument.
 *
 * The window runs `/bin/sh <token>.sh <token>`, so the token is on the window's command line too (and on the
 * shim's, which replaces it): the hook finds it in its environment, or else by walking its ancestors.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentConfig } from "../agents/mod.ts";
import { agentArgv, type LaunchKind } from "./argv.ts";
import { ENV_NAME } from "./env.ts";
import { launchFiles, removeLaunchFile } from "./files.ts";
import { renderLauncher } from "./script.ts";

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
  /** The launch environment (see env.ts `launchEnv`): written to the env file, never into the script. */
  env: Readonly<Record<string, string>>;
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
  /** The environment file the shim reads and deletes, and its contents (see {@link LaunchEnvFile}). */
  envPath: string;
  envFile: LaunchEnvFile;
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

/** What `<token>.env` holds: the agent's environment and the session name the shim exports as ASM_SESSION_NAME. */
export interface LaunchEnvFile {
  env: Record<string, string>;
  session_name: string | null;
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
  const files = launchFiles(input.launchesDir, token);
  const promptPath = prompt === null ? null : files.prompt;
  for (const key of Object.keys(input.env)) {
    if (!ENV_NAME.test(key)) throw new LaunchInputError(`"${key}" cannot be an environment variable name`);
  }
  const script = renderLauncher({
    token,
    folder: input.folder,
    exec: [
      input.denoPath,
      "run",
      "-A",
      "--no-config",
      "--no-lock",
      "--no-prompt",
      input.shimPath ?? SHIM_PATH,
      token,
      files.env,
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
    scriptPath: files.script,
    script,
    envPath: files.env,
    envFile: { env: { ...input.env }, session_name: name },
    promptPath,
    prompt,
    agentArgs: argv.args,
    promptIndex: argv.promptIndex,
    windowName: windowName(agent.name, name, token),
    windowArgv: ["/bin/sh", files.script, token],
  };
}

/**
 * Writes the environment file, the prompt file, then the launcher: each 0600 (the environment and the prompt are
 * the user's), each new (a token's files are never overwritten). When one cannot be written, those already
 * written are deleted again.
 */
export function writeLaunchFiles(plan: LaunchPlan): void {
  Deno.mkdirSync(join(plan.scriptPath, ".."), { recursive: true, mode: 0o700 });
  const written: string[] = [];
  const write = (path: string, text: string) => {
    Deno.writeTextFileSync(path, text, { mode: 0o600, createNew: true });
    written.push(path);
  };
  try {
    write(plan.envPath, JSON.stringify(plan.envFile) + "\n");
    if (plan.promptPath !== null && plan.prompt !== null) write(plan.promptPath, plan.prompt);
    write(plan.scriptPath, plan.script);
  } catch (err) {
    for (const path of written) removeLaunchFile(path);
    throw err;
  }
}
