/**
 * The installer's canary: one one-shot session of the real agent in a scratch folder, stdin from /dev/null (one
 * agent reads a piped stdin and would hang until end-of-file), then a check that its hook events reached the
 * inbox. A hook that silently does nothing looks exactly like an agent that never started; this tells them apart.
 * @module
 */
import { join } from "node:path";
import type { AgentConfig, CanaryOutcome } from "../agents/mod.ts";
import { type Env, findOnPath } from "../config/mod.ts";
import { oneShotArgv } from "../launch/mod.ts";
import { parseEvent } from "../ledger/mod.ts";

/** The prompt of every canary: one cheap turn. */
export const CANARY_PROMPT = "asm canary: reply with the single word OK";

/** Options of {@link runCanary}. */
export interface CanaryOptions {
  agent: AgentConfig;
  /** The environment the agent runs with (PATH finds its command). */
  env: Env;
  asmHome: string;
  /** Adds the agent's documented trust-bypass flag: tests on scratch homes ONLY, never for a user. */
  bypassHookTrust?: boolean;
  /** Gives up on the agent after this long (default 120 s) and stops it. */
  timeoutMs?: number;
  /** Called with the agent's pid as soon as it is spawned (the gate watches its process tree). */
  onSpawn?: (pid: number) => void;
  prompt?: string;
}

/** One hook event the canary found, summarised. */
export interface CanaryEvent {
  file: string;
  event: string;
  source: string | null;
  agent_session_id: string;
  asm_id: string;
  agent_pid: number | null;
  agent_proc_start: number | null;
}

/** What the canary saw. */
export interface CanaryRun {
  outcome: CanaryOutcome;
  scratch: string;
  exitCode: number | null;
  /** The agent's stdout and stderr, the end of it. */
  output: string;
  events: CanaryEvent[];
}

function eventFiles(asmHome: string): string[] {
  const files: string[] = [];
  const add = (dir: string) => {
    try {
      for (const e of Deno.readDirSync(dir)) {
        if (e.isFile && e.name.endsWith(".json")) files.push(join(dir, e.name));
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  };
  add(join(asmHome, "inbox"));
  // a running server may already have drained them
  try {
    for (const day of Deno.readDirSync(join(asmHome, "processed"))) add(join(asmHome, "processed", day.name));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return files;
}

/** The hook events of `agent` whose cwd is `folder`, oldest first. */
export function eventsFrom(asmHome: string, agent: string, folder: string): CanaryEvent[] {
  const out: (CanaryEvent & { ts: string })[] = [];
  for (const file of eventFiles(asmHome)) {
    let e;
    try {
      e = parseEvent(Deno.readTextFileSync(file));
    } catch {
      continue;
    }
    if (e.agent !== agent || e.cwd === null) continue;
    let cwd = e.cwd;
    try {
      cwd = Deno.realPathSync(e.cwd);
    } catch { /* the folder may be gone; compare as written */ }
    if (cwd !== folder) continue;
    out.push({
      file,
      ts: e.ts,
      event: e.event,
      source: e.source,
      agent_session_id: e.agent_session_id,
      asm_id: e.asm_id,
      agent_pid: e.agent_pid,
      agent_proc_start: e.agent_proc_start,
    });
  }
  return out.sort((a, b) => (a.ts < b.ts ? -1 : 1)).map(({ ts: _ts, ...rest }) => rest);
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:.]/g, "").replace("T", "-").slice(0, 18);
}

async function stopChild(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch { /* already gone */ }
  const done = await Promise.race([
    child.status.then(() => true),
    new Promise((r) => setTimeout(() => r(false), 3000)),
  ]);
  if (!done) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
}

/** Runs the canary of one agent and judges what reached the inbox. */
export async function runCanary(options: CanaryOptions): Promise<CanaryRun> {
  const { agent, env, asmHome } = options;
  const scratchDir = join(asmHome, "canary", `${agent.name}-${stamp()}`);
  Deno.mkdirSync(scratchDir, { recursive: true });
  const scratch = Deno.realPathSync(scratchDir);
  const command = findOnPath(agent.command, env);
  if (command === null) {
    return {
      scratch,
      exitCode: null,
      output: "",
      events: [],
      outcome: {
        kind: "skipped",
        detail:
          `${agent.display}: no "${agent.command}" on PATH, so no canary ran; install ${agent.display} and ` +
          `run asm install --agent ${agent.name} again`,
      },
    };
  }
  // the one launch builder's argv: every start of an agent asm makes takes its argv from lib/launch
  const args = oneShotArgv(agent, {
    prompt: options.prompt ?? CANARY_PROMPT,
    bypassHookTrust: options.bypassHookTrust,
  });
  const child = new Deno.Command(command, {
    args,
    cwd: scratch,
    env: env as Record<string, string>,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  options.onSpawn?.(child.pid);
  const timeoutMs = options.timeoutMs ?? 120_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stopChild(child);
  }, timeoutMs);
  const result = await child.output();
  clearTimeout(timer);
  const output = (new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr)).slice(
    -4000,
  );

  // hooks that run after the agent's own exit (Gemini's last SessionEnd is not awaited) get a moment to land
  let events = eventsFrom(asmHome, agent.name, scratch);
  for (let i = 0; i < 30 && !events.some((e) => e.event === "SessionEnd"); i++) {
    await new Promise((r) => setTimeout(r, 100));
    events = eventsFrom(asmHome, agent.name, scratch);
  }
  const kinds = new Set(events.map((e) => `${e.event}${e.source === "notify" ? " (notify)" : ""}`));
  const hookEvents = events.filter((e) => e.source !== "notify");
  const seen = [...kinds].join(", ") || "none";
  let outcome: CanaryOutcome;
  const lastOutput = output.trim().split("\n").slice(-3).join(" / ") || "(none)";
  if (timedOut) {
    outcome = {
      kind: "failed",
      detail: `${agent.display} did not finish its one-shot session within ${timeoutMs / 1000} s and was ` +
        `stopped (events seen: ${seen}); it may be waiting for a sign-in or a network it cannot reach: run ` +
        `\`${agent.command}\` once in a terminal, then \`asm install --agent ${agent.name}\`; its last output: ` +
        lastOutput,
    };
  } else if (hookEvents.some((e) => e.event === "SessionStart")) {
    outcome = {
      kind: "passed",
      detail: `${agent.display}'s hook events reached asm's inbox (${seen})`,
      eventFile: hookEvents[0].file,
    };
  } else if (events.length > 0) {
    outcome = {
      kind: "failed",
      detail:
        `${agent.display} ran, but only its notify program reported (${seen}); its hooks did not run, ` +
        "which usually means they are not trusted yet",
      eventFile: events[0].file,
    };
  } else {
    // an agent that fails before its session starts (not signed in, say) runs no hook: its own words come first
    outcome = {
      kind: "failed",
      detail: result.code !== 0
        ? `${agent.display} stopped with exit code ${result.code} before its session started, so no hook could ` +
          `run; it said: ${lastOutput} (run \`${agent.command}\` once in a terminal to set it up, then ` +
          `\`asm install --agent ${agent.name}\`)`
        : `${agent.display} ran but no hook event reached asm's inbox; its last output: ${lastOutput}`,
    };
  }
  return { outcome, scratch, exitCode: timedOut ? null : result.code, output, events };
}
