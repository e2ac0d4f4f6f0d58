/**
 * The agent's own argv for a launch, a resume or a continue-with, and for a one-shot turn, from its agents.toml
 * templates: every start of an agent asm makes takes its argv from here. Pure.
 *
 * `launch_argv` / `resume_argv` start the agent (`{session_id}` and `{trust_bypass}` filled in); `model_argv` is
 * added only when a model was asked for (no model, or an empty one, means the flag is withheld: whatever the
 * agent would use anyway); `prompt_argv` is added only when there is a prompt, and its `{prompt}` (at the end of
 * one element) marks where the shim appends the prompt text. A launch's prompt never passes through here.
 *
 * `one_shot` / `one_shot_resume` run one non-interactive turn (the installer's canary, the real-agent tests):
 * there is no window and no shim, the process is spawned with this argv and no shell, so the prompt is filled in.
 * @module
 */
import type { AgentConfig } from "../agents/mod.ts";

/** What kind of start this is. */
export type LaunchKind = "launch" | "resume" | "continue";

/** What the argv depends on. */
export interface ArgvRequest {
  kind: LaunchKind;
  /** The agent's own session id (resume only). */
  sessionId?: string | null;
  /** The model; null, absent or empty withholds the flag. */
  model?: string | null;
  /** Whether a prompt argument follows. */
  withPrompt: boolean;
  /** Adds the agent's documented hook-trust bypass: tests on scratch homes ONLY. */
  bypassHookTrust?: boolean;
}

/** The agent's arguments; the shim appends the prompt to `args[promptIndex]` when it is not null. */
export interface AgentArgv {
  args: string[];
  promptIndex: number | null;
}

/** A request the agent's templates cannot serve; the message is a sentence a person reads. */
export class ArgvError extends Error {
  override name = "ArgvError";
}

const PROMPT = "{prompt}";

function fill(template: readonly string[], values: Record<string, string>, where: string): string[] {
  const out: string[] = [];
  for (const part of template) {
    const whole = part.match(/^\{(\w+)\}$/);
    if (whole && whole[1] in values && values[whole[1]] === "") continue; // an empty whole element is dropped
    const filled = part.replace(/\{(\w+)\}/g, (all, name: string) => {
      if (!(name in values)) {
        throw new ArgvError(`agents.toml ${where} names ${all}, which asm does not fill there`);
      }
      return values[name];
    });
    out.push(filled);
  }
  return out;
}

/** One line of printable text, not starting with "-" (it must never read as a flag). */
function checkValue(what: string, value: string): void {
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(value)) throw new ArgvError(`the ${what} must be one line of printable text`);
  if (value.startsWith("-")) throw new ArgvError(`the ${what} may not start with "-"`);
  if (value.length > 200) throw new ArgvError(`the ${what} is longer than 200 characters`);
}

/** What a one-shot turn's argv depends on. */
export interface OneShotRequest {
  /** The turn's prompt (filled into `{prompt}`). */
  prompt: string;
  /** The agent's own session id: a turn in that session (`one_shot_resume`); absent or null, a new session. */
  sessionId?: string | null;
  /** Adds the agent's documented hook-trust bypass: tests on scratch homes ONLY. */
  bypassHookTrust?: boolean;
}

/** The argv of one one-shot turn of `agent`. Throws {@link ArgvError} with a sentence when it cannot be built. */
export function oneShotArgv(agent: AgentConfig, request: OneShotRequest): string[] {
  const trust_bypass = request.bypassHookTrust ? agent.trust_bypass : "";
  const id = request.sessionId ?? null;
  if (id === null) {
    return fill(agent.one_shot, { prompt: request.prompt, trust_bypass }, `${agent.name}.one_shot`);
  }
  if (agent.one_shot_resume.length === 0) {
    throw new ArgvError(
      `${agent.display} has no one-shot turn in an existing session: its agents.toml table has no one_shot_resume`,
    );
  }
  if (id === "") throw new ArgvError("a one-shot resume needs the agent's own session id");
  checkValue("session id", id);
  return fill(
    agent.one_shot_resume,
    { prompt: request.prompt, session_id: id, trust_bypass },
    `${agent.name}.one_shot_resume`,
  );
}

/** The argv for one start of `agent`. Throws {@link ArgvError} with a sentence when it cannot be built. */
export function agentArgv(agent: AgentConfig, request: ArgvRequest): AgentArgv {
  const bypass = request.bypassHookTrust ? agent.trust_bypass : "";
  const model = request.model?.trim() ?? "";
  let args: string[];
  if (request.kind === "resume") {
    const id = request.sessionId ?? "";
    if (agent.resume_argv.length === 0) {
      throw new ArgvError(
        `${agent.display} cannot be resumed by asm: its agents.toml table has no resume_argv`,
      );
    }
    if (id === "") throw new ArgvError("a resume needs the agent's own session id");
    checkValue("session id", id);
    args = fill(agent.resume_argv, { session_id: id, trust_bypass: bypass }, `${agent.name}.resume_argv`);
  } else {
    args = fill(agent.launch_argv, { trust_bypass: bypass }, `${agent.name}.launch_argv`);
  }
  if (model !== "") {
    if (agent.model_argv.length === 0) {
      throw new ArgvError(
        `${agent.display} takes no model from asm: its agents.toml table has no model_argv`,
      );
    }
    checkValue("model", model);
    args.push(...fill(agent.model_argv, { model }, `${agent.name}.model_argv`));
  }
  if (!request.withPrompt) return { args, promptIndex: null };
  const marked = agent.prompt_argv.filter((p) => p.includes(PROMPT));
  if (
    marked.length !== 1 || !marked[0].endsWith(PROMPT) || marked[0].indexOf(PROMPT) !== marked[0].length - 8
  ) {
    throw new ArgvError(
      `agents.toml ${agent.name}.prompt_argv must hold {prompt} once, at the end of one element`,
    );
  }
  const promptIndex = args.length + agent.prompt_argv.findIndex((p) => p.includes(PROMPT));
  args.push(...agent.prompt_argv.map((p) => p.includes(PROMPT) ? p.slice(0, -PROMPT.length) : p));
  return { args, promptIndex };
}

/** One word as a POSIX shell reads it back: bare when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command a person can paste into a shell to reopen this session themselves (`cd <folder> && claude
 * --resume <id>`), or null when asm cannot build one (no resume_argv, a session id or folder that is not one line
 * of printable text: pasted, it would not be the command it reads as).
 */
export function resumeCommandLine(agent: AgentConfig, sessionId: string, cwd: string | null): string | null {
  let argv: AgentArgv;
  try {
    argv = agentArgv(agent, { kind: "resume", sessionId, withPrompt: false });
  } catch (err) {
    if (err instanceof ArgvError) return null;
    throw err;
  }
  // deno-lint-ignore no-control-regex
  if (cwd !== null && /[\x00-\x1f\x7f]/.test(cwd)) return null;
  const command = [agent.command, ...argv.args].map(shellWord).join(" ");
  return cwd === null ? command : `cd ${shellWord(cwd)} && ${command}`;
}
