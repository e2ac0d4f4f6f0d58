/**
 * The two closeout actions (spec: `POST /api/sessions/{id}/closeout` and `closeout-live`). A session is closed out
 * only when its own harness recorded the agent's closeout skill as having run in it, so both actions run that
 * skill the way a person would, by typing the agent's skill command (agents.toml `skill_command`):
 *
 * - `closeout` resumes an ended session (the same agent, the same session id) with the skill command as its prompt;
 * - `closeout-live` types the skill command into a live session's proven window, with Send's refusals (a dialog
 *   open in the window, a pane asm cannot prove).
 *
 * Both refuse, with a sentence, an agent with no closeout skill or none asm can start (agents.toml
 * `skill_command` "": its badge still reads closed / open from the recorded run, lib/derive session.ts), and a
 * session whose transcript already records the skill's run (the badge reads "closed out"; the spec's trap is a
 * badge pressed while stale, and the refresh path keeps it fresh, so a press on an open badge runs it).
 * @module
 */
import { adapterOf, type AgentConfig } from "../agents/mod.ts";
import { type ActionDeps, ActionRefused } from "./deps.ts";
import { resumeSession } from "./start.ts";
import { type SendResult, typeLine } from "./control.ts";
import type { LaunchRecord } from "./start.ts";

/** Why asm offers no closeout for an agent: its agents.toml `closeout_note`, else the generic sentence. */
function noCloseoutWhy(agent: AgentConfig): string {
  if (agent.closeout_note) return agent.closeout_note;
  return agent.closeout_skill === ""
    ? `${agent.display} has no closeout skill asm can see run (agents.toml closeout_skill is empty), so asm ` +
      "cannot close its sessions out"
    : `asm knows no line that starts a skill in ${agent.display} (agents.toml skill_command is empty), so asm ` +
      `offers no Closeout button for its sessions; running ${agent.closeout_skill} in one closes it out`;
}

/** The line that runs this agent's closeout skill, or a refusal naming why there is none. */
export function closeoutCommand(agent: AgentConfig): string {
  if (agent.closeout_skill === "" || agent.skill_command === "") {
    throw new ActionRefused("conflict", noCloseoutWhy(agent));
  }
  // split and join: a "$" in a skill's name is a character, not a replacement pattern
  const line = agent.skill_command.split("{skill}").join(agent.closeout_skill);
  // deno-lint-ignore no-control-regex
  if (!agent.skill_command.includes("{skill}") || /[\x00-\x1f\x7f]/.test(line) || line.length > 500) {
    throw new ActionRefused(
      "conflict",
      `${agent.display}'s skill_command in agents.toml must be one line of at most 500 characters naming "{skill}"`,
    );
  }
  return line;
}

/** The session's agent, status and closeout command, or the refusal that comes first. */
function sessionOf(deps: ActionDeps, asmId: string): { agent: AgentConfig; status: string; command: string } {
  const row = deps.ledger.session(asmId);
  if (!row) throw new ActionRefused("unknown", `asm has no session ${asmId}`);
  const agent = deps.agents.find((a) => a.name === row.agent);
  if (!agent) {
    throw new ActionRefused("conflict", `this session's agent "${row.agent}" is no longer in agents.toml`);
  }
  // an agent asm cannot start its closeout in answers why first, whatever its skills and its badge say
  const command = closeoutCommand(agent);
  // the agent would answer "unknown command" to a skill it does not have: say so instead of typing it
  const where = adapterOf(agent).launch?.skillFile;
  if (where && where(agent.closeout_skill, row.cwd, deps.env) === null) {
    throw new ActionRefused(
      "conflict",
      `${agent.display} has no skill named ${agent.closeout_skill} that this session could run (asm looked ` +
        `where ${agent.display} keeps its own, the project's and its plugins' skills): write one, or name ` +
        `another in agents.toml closeout_skill`,
    );
  }
  const state = deps.ledger.query("SELECT closeout_state FROM sessions WHERE asm_id = ?", asmId)[0];
  if (state?.closeout_state === "closed") {
    throw new ActionRefused(
      "conflict",
      `this session is already closed out: its transcript records the ${agent.closeout_skill} skill's run`,
    );
  }
  return { agent, status: row.status, command };
}

/** Resumes an ended session with its agent's closeout skill as the prompt. */
export async function closeoutSession(
  deps: ActionDeps,
  asmId: string,
  options: { bypass_hook_trust?: boolean } = {},
): Promise<LaunchRecord> {
  const { status, command } = sessionOf(deps, asmId);
  if (status === "live" || status === "starting") {
    throw new ActionRefused(
      "conflict",
      "this session is still running: closeout-live types the closeout into its window instead",
    );
  }
  return await resumeSession(deps, asmId, { prompt: command, bypass_hook_trust: options.bypass_hook_trust });
}

/** Types the closeout skill's command into a live session's proven window. */
export async function closeoutLive(deps: ActionDeps, asmId: string): Promise<SendResult> {
  const { status, command } = sessionOf(deps, asmId);
  if (status !== "live") {
    throw new ActionRefused(
      "conflict",
      status === "starting"
        ? "this session is still starting: closeout-live types into it once it is live"
        : "this session is not running: closeout resumes it and runs the closeout",
    );
  }
  return await typeLine(deps, asmId, command);
}

/** Each agent's closeout command, for the pages' Closeout cells (an agent with none is left out). */
export function closeoutCommands(agents: readonly AgentConfig[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const agent of agents) {
    try {
      out[agent.name] = closeoutCommand(agent);
    } catch (err) {
      if (!(err instanceof ActionRefused)) throw err;
    }
  }
  return out;
}

/** Why each agent without a closeout has none, for the Closeout cell's tip (an agent with one is left out). */
export function closeoutNotes(agents: readonly AgentConfig[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const agent of agents) {
    try {
      closeoutCommand(agent);
    } catch (err) {
      if (!(err instanceof ActionRefused)) throw err;
      out[agent.name] = err.message;
    }
  }
  return out;
}
