/**
 * The three ways asm starts an agent in a window: launch (a new session), resume (the same agent, the same
 * session id) and continue-with (another agent, same folder, the predecessor named in the prompt). All three go
 * through the one builder; each is recorded in the ledger BEFORE its window opens, so even a failed start stays
 * as evidence. The session itself appears when its first hook event arrives (or the correlation service proves it).
 * @module
 */
import { adapterOf, type AgentConfig, hookAdapter } from "../agents/mod.ts";
import { findOnPath, loadSettings } from "../config/mod.ts";
import { isoAt, recordLaunch, recordLaunchError, recordWindow, type SessionRow } from "../ledger/mod.ts";
import { identityOf, LINUX_PROC } from "../procs/mod.ts";
import { join } from "node:path";
import { ArgvError, type LaunchKind } from "./argv.ts";
import { buildLaunch, LaunchInputError, writeLaunchFiles } from "./builder.ts";
import { type ActionDeps, ActionRefused, agentNamed } from "./deps.ts";
import { launchEnv } from "./env.ts";
import { removeLaunchFiles } from "./files.ts";
import { handoverPrompt } from "./handover.ts";
import { TerminalHostError } from "./terminal_host.ts";
import { mintToken } from "./token.ts";

/** The opener of an agent whose adapter has none of its own. */
export const DEFAULT_OPENER = "Say READY and wait for my next message.";

/** What a start returns (the API's JSON). */
export interface LaunchRecord {
  token: string;
  kind: LaunchKind;
  agent: string;
  folder: string;
  model: string | null;
  name: string | null;
  /** True when the prompt was the adapter's fixed opener (the request had none). */
  opener: boolean;
  host: string;
  window_id: string;
  pane_id: string;
  /** The agent's own dialog the user must answer in the window first, or null. */
  waiting_reason: string | null;
  requested_at: string;
  script_path: string;
  prompt_path: string | null;
  resumes_asm_id: string | null;
  continues_asm_id: string | null;
  /** The board card this start is for (START, RESUME, CONTINUE WITH on a card), or null. */
  sprint_node: string | null;
}

/** `POST /api/launch`. */
export interface LaunchRequest {
  agent: string;
  folder: string;
  model?: string | null;
  name?: string | null;
  prompt?: string | null;
  /** Tests on scratch homes only: honoured only when the deps allow it. */
  bypass_hook_trust?: boolean;
  /** The board card it is for (the board's START): recorded on the launch, so its session binds to the card. */
  sprint_node?: string | null;
}

function opener(agent: AgentConfig): string {
  return adapterOf(agent).launch?.opener ?? DEFAULT_OPENER;
}

/** The folder as a real, existing directory, or a refusal of the given kind (the request's, or the session's). */
function realFolder(folder: unknown, kind: "invalid" | "conflict" = "invalid"): string {
  if (typeof folder !== "string" || !folder.startsWith("/")) {
    throw new ActionRefused("invalid", "name the folder as an absolute path");
  }
  try {
    const real = Deno.realPathSync(folder);
    if (Deno.statSync(real).isDirectory) return real;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory)) throw err;
  }
  throw new ActionRefused(kind, `the folder ${folder} does not exist (or is not a folder)`);
}

/** Why the agent will first wait on the user in this folder: its own dialog, or its review of asm's hooks. */
function waitingReason(
  agent: AgentConfig,
  folder: string,
  env: Record<string, string>,
  bypassHookTrust: boolean,
): string | null {
  const own = adapterOf(agent).launch?.waitingReason?.(folder, env) ?? null;
  if (own !== null) return own;
  if (bypassHookTrust && agent.trust_bypass !== "") return null;
  const hooks = hookAdapter(agent);
  if (hooks.trustState?.(env, agent) === "needs-review") {
    return `${agent.display} will first ask you to review asm's hooks; answer in its window`;
  }
  return null;
}

interface StartSpec {
  agent: AgentConfig;
  kind: LaunchKind;
  folder: string;
  prompt: string | null;
  usedOpener: boolean;
  model: string | null;
  name: string | null;
  sessionId: string | null;
  resumesAsmId: string | null;
  continuesAsmId: string | null;
  bypassHookTrust: boolean;
  sprintNode: string | null;
}

async function start(deps: ActionDeps, spec: StartSpec): Promise<LaunchRecord> {
  const now = () => isoAt(deps.now?.());
  const { agent } = spec;
  const command = findOnPath(agent.command, deps.env);
  if (command === null) {
    throw new ActionRefused(
      "conflict",
      `${agent.display} is not installed here: there is no "${agent.command}" on PATH`,
    );
  }
  if (spec.bypassHookTrust && !deps.allowHookTrustBypass) {
    throw new ActionRefused(
      "invalid",
      "bypass_hook_trust is for tests on scratch homes; this server is not in testing mode",
    );
  }
  const token = mintToken();
  const launchesDir = join(deps.asmHome, "launches");
  const settings = loadSettings(deps.asmHome);
  // a config.toml asm cannot use costs the person's extra names, not the launch: said in the log
  if (settings.problem !== null) deps.log?.({ what: "config problem", problem: settings.problem });
  let plan;
  try {
    plan = buildLaunch({
      token,
      agent,
      kind: spec.kind,
      folder: spec.folder,
      command,
      prompt: spec.prompt,
      model: spec.model,
      sessionId: spec.sessionId,
      name: spec.name,
      env: launchEnv(deps.env, agent, settings.settings.launchEnv),
      bypassHookTrust: spec.bypassHookTrust,
      launchesDir,
      denoPath: deps.denoPath ?? Deno.execPath(),
    });
  } catch (err) {
    if (err instanceof LaunchInputError || err instanceof ArgvError) {
      throw new ActionRefused("invalid", err.message);
    }
    throw err;
  }
  const waiting = waitingReason(agent, spec.folder, deps.env, spec.bypassHookTrust);
  const requestedAt = now();
  writeLaunchFiles(plan);
  try {
    recordLaunch(deps.ledger, {
      token,
      agent: agent.name,
      kind: spec.kind,
      cwd: spec.folder,
      name: plan.name,
      model: plan.model,
      sprint_node: spec.sprintNode,
      script_path: plan.scriptPath,
      prompt_path: plan.promptPath,
      requested_at: requestedAt,
      continues_asm_id: spec.continuesAsmId,
      resumes_asm_id: spec.resumesAsmId,
      waiting_reason: waiting,
      host: deps.host.name,
    });
  } catch (err) {
    removeLaunchFiles(launchesDir, token, deps.log);
    throw err;
  }
  let opened;
  try {
    opened = await deps.host.open({ name: plan.windowName, argv: plan.windowArgv });
  } catch (err) {
    // no window, no shim: nothing will ever read the files, and the environment must not stay on disk
    removeLaunchFiles(launchesDir, token, deps.log);
    if (!(err instanceof TerminalHostError)) throw err;
    recordLaunchError(deps.ledger, token, err.message, now());
    throw new ActionRefused("unavailable", err.message);
  }
  const pane = identityOf(opened.panePid, deps.proc ?? LINUX_PROC);
  recordWindow(deps.ledger, token, {
    window_id: opened.windowId,
    pane_id: opened.paneId,
    pane_pid: opened.panePid,
    pane_proc_start: pane?.procStart ?? null,
    boot_id: pane?.bootId ?? null,
  });
  deps.log?.({ what: "launched", token, kind: spec.kind, agent: agent.name, window: opened.windowId });
  return {
    token,
    kind: spec.kind,
    agent: agent.name,
    folder: spec.folder,
    model: plan.model,
    name: plan.name,
    opener: spec.usedOpener,
    host: deps.host.name,
    window_id: opened.windowId,
    pane_id: opened.paneId,
    waiting_reason: waiting,
    requested_at: requestedAt,
    script_path: plan.scriptPath,
    prompt_path: plan.promptPath,
    resumes_asm_id: spec.resumesAsmId,
    continues_asm_id: spec.continuesAsmId,
    sprint_node: spec.sprintNode,
  };
}

function text(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw new ActionRefused("invalid", `${what} must be a string`);
  return value;
}

/** A new session: agent, folder, model, name, prompt. An empty prompt sends the adapter's fixed opener. */
export async function launchSession(deps: ActionDeps, request: LaunchRequest): Promise<LaunchRecord> {
  const agent = agentNamed(deps, request.agent);
  const prompt = text(request.prompt, "prompt");
  const usedOpener = prompt === null || prompt.trim() === "";
  return await start(deps, {
    agent,
    kind: "launch",
    folder: realFolder(request.folder),
    prompt: usedOpener ? opener(agent) : prompt,
    usedOpener,
    model: text(request.model, "model"),
    name: text(request.name, "name"),
    sessionId: null,
    resumesAsmId: null,
    continuesAsmId: null,
    bypassHookTrust: request.bypass_hook_trust === true,
    sprintNode: text(request.sprint_node, "sprint_node"),
  });
}

function finishedSession(
  deps: ActionDeps,
  asmId: string,
  action: string,
): { row: SessionRow; agent: AgentConfig } {
  const row = deps.ledger.session(asmId);
  if (!row) throw new ActionRefused("unknown", `asm has no session ${asmId}`);
  if (row.status === "live" || row.status === "starting") {
    throw new ActionRefused(
      "conflict",
      `this session is still running; ${
        action === "resume" ? "focus its window instead of starting a second copy" : "end it first"
      }`,
    );
  }
  const agent = deps.agents.find((a) => a.name === row.agent);
  if (!agent) {
    throw new ActionRefused("conflict", `this session's agent "${row.agent}" is no longer in agents.toml`);
  }
  return { row, agent };
}

/** `POST /api/sessions/:id/resume`. */
export interface ResumeRequest {
  /** Absent, null or "" withholds the model flag: the agent resumes with what it had. */
  model?: string | null;
  /** Optional: a resume needs no prompt. */
  prompt?: string | null;
  bypass_hook_trust?: boolean;
  /** The board card it is for (the board's RESUME), or null. */
  sprint_node?: string | null;
}

/** Reopens a finished session with the agent that made it, under the same agent session id, in its folder. */
export async function resumeSession(
  deps: ActionDeps,
  asmId: string,
  request: ResumeRequest = {},
): Promise<LaunchRecord> {
  const { row, agent } = finishedSession(deps, asmId, "resume");
  if (row.cwd === null) {
    throw new ActionRefused("conflict", "asm does not know which folder this session ran in");
  }
  // a resume hands the agent back its own transcript: without it the agent would open, fail and close its
  // window (Claude Code writes it only with the first prompt, Gemini CLI can delete it), so say so instead
  if (row.transcript_path !== null && !fileExists(row.transcript_path)) {
    throw new ActionRefused(
      "conflict",
      `${agent.display} cannot resume this session: its transcript ${row.transcript_path} is not on disk (the ` +
        "session ended before its first turn, or the file was removed); CONTINUE WITH can start a new session " +
        "from what asm kept",
    );
  }
  const prompt = text(request.prompt, "prompt");
  return await start(deps, {
    agent,
    kind: "resume",
    folder: realFolder(row.cwd, "conflict"),
    prompt: prompt === null || prompt.trim() === "" ? null : prompt,
    usedOpener: false,
    model: text(request.model, "model"),
    name: null,
    sessionId: row.agent_session_id,
    resumesAsmId: row.asm_id,
    continuesAsmId: null,
    bypassHookTrust: request.bypass_hook_trust === true,
    sprintNode: text(request.sprint_node, "sprint_node"),
  });
}

function fileExists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return false;
    throw err;
  }
}

/** `POST /api/sessions/:id/continue`. */
export interface ContinueRequest {
  /** The agent that takes over: another agent than the session's own. */
  agent: string;
  prompt?: string | null;
  model?: string | null;
  name?: string | null;
  bypass_hook_trust?: boolean;
  /** The board card it is for (the board's CONTINUE WITH): its session binds to the card. */
  sprint_node?: string | null;
}

/**
 * Hands a finished session's work to another agent in the same folder: a new launch whose prompt names the
 * predecessor and points at the work log. The new session's `continues_asm_id` is linked when it is matched.
 */
export async function continueWith(
  deps: ActionDeps,
  asmId: string,
  request: ContinueRequest,
): Promise<LaunchRecord> {
  const { row, agent: before } = finishedSession(deps, asmId, "continue");
  const agent = agentNamed(deps, request.agent);
  if (agent.name === before.name) {
    throw new ActionRefused(
      "invalid",
      `continue-with hands the work to another agent; to reopen this ${before.display} session, resume it`,
    );
  }
  if (row.cwd === null) {
    throw new ActionRefused("conflict", "asm does not know which folder this session ran in");
  }
  const asked = text(request.prompt, "prompt");
  const usedOpener = asked === null || asked.trim() === "";
  const prompt = handoverPrompt(
    {
      display: before.display,
      name: row.name,
      agentSessionId: row.agent_session_id,
      asmId: row.asm_id,
      transcriptPath: row.transcript_path,
    },
    usedOpener ? opener(agent) : asked!,
  );
  return await start(deps, {
    agent,
    kind: "continue",
    folder: realFolder(row.cwd, "conflict"),
    prompt,
    usedOpener,
    model: text(request.model, "model"),
    name: text(request.name, "name") ?? row.name,
    sessionId: null,
    resumesAsmId: null,
    continuesAsmId: row.asm_id,
    bypassHookTrust: request.bypass_hook_trust === true,
    sprintNode: text(request.sprint_node, "sprint_node"),
  });
}
