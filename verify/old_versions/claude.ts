/**
 * Claude Code's older versions, driven headless (`claude -p`) against the loopback fake of the Anthropic API
 * (verify/fakes/anthropic.ts). Each version runs the same four sessions in one scratch HOME: a prompt, a
 * `--resume` of it, a `--continue`, and a prompt whose answer starts a sub-agent (the Task tool). Every run after
 * the first also lets the version title the earlier conversations it finds (the `summary` lines of these
 * versions), which the fake answers with a title naming the conversation. Only the transcripts are kept:
 * `.claude/projects/**.jsonl` (asm reads nothing else these versions write: -p writes no history.jsonl).
 *
 * What each version writes, and what asm reads of it: docs/agents/claude_old_versions.md.
 * @module
 */
import { dirname, join, relative } from "node:path";
import { type ReplyRule, startFake } from "../fakes/mod.ts";
import type { GenerateOptions, OldVersions } from "./mod.ts";

/** The API key the fake accepts; the versions keep its last 20 characters as the approved key. */
const KEY = "sk-test-dummy";

/** The four prompts, in the order they are sent. */
export const CLAUDE_OLD_PROMPTS = {
  first: "hello one",
  resumed: "second in resumed",
  continued: "third continued",
  task: "please RUN_TASK now",
} as const;

/**
 * The fake's answers: a title request (these versions ask "Please write a 5-10 word title ..." with the
 * conversation quoted) gets a title naming the conversation's newest prompt, so a test can tell which session a
 * `summary` line is about; RUN_TASK gets the Task tool once (the sub-agent's own prompt matches nothing here and
 * gets the default reply).
 */
const SCRIPT: ReplyRule[] = [
  { match: `word title.*${CLAUDE_OLD_PROMPTS.continued}`, reply: { text: "Mock title of three prompts" } },
  { match: `word title.*${CLAUDE_OLD_PROMPTS.resumed}`, reply: { text: "Mock title of two prompts" } },
  { match: "word title.*RUN_TASK", reply: { text: "Mock title of a task" } },
  { match: "word title", reply: { text: "Mock title of one prompt" } },
  {
    match: "RUN_TASK",
    reply: {
      tool: {
        name: "Task",
        input: {
          description: "Mock subagent",
          prompt: "Say hello from the sub-agent",
          subagent_type: "general-purpose",
        },
      },
    },
  },
];

/**
 * `~/.claude.json` as a person who finished onboarding and trusted the folder has it. `primaryApiKey`: 0.2.x
 * sends its title requests (not interactive) with the key kept here, never with ANTHROPIC_API_KEY; without it
 * the title is the error text "Invalid API key · Please run /login". The project entry needs every list the
 * versions iterate (1.0.x throws "allowedTools is not iterable" on a bare one).
 */
function claudeJson(project: string): string {
  return JSON.stringify({
    hasCompletedOnboarding: true,
    primaryApiKey: KEY,
    theme: "dark",
    numStartups: 1,
    customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
    projects: {
      [project]: {
        allowedTools: [],
        history: [],
        mcpContextUris: [],
        mcpServers: {},
        enabledMcpjsonServers: [],
        disabledMcpjsonServers: [],
        hasTrustDialogAccepted: true,
        projectOnboardingSeenCount: 1,
      },
    },
  });
}

/** Runs one `claude -p` of the installed version and returns the session id its JSON result names. */
async function claudeP(o: GenerateOptions, url: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(join(o.prefix, "node_modules", ".bin", "claude"), {
    args: ["-p", ...args, "--output-format", "json"],
    cwd: o.project,
    clearEnv: true,
    env: {
      // the versions are node scripts: node comes from the runner's PATH
      PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: o.home,
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr).slice(-1000);
  if (!out.success) throw new Error(`claude ${args.join(" ")} failed (${out.code}): ${stderr}`);
  const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
  if (result.is_error !== false || typeof result.session_id !== "string") {
    throw new Error(`claude ${args.join(" ")} did not succeed: ${stdout.slice(0, 1000)}`);
  }
  return result.session_id;
}

/** Copies every transcript under `<home>/.claude/projects` into `<out>/home`, at the same relative path. */
async function copyTranscripts(home: string, out: string): Promise<number> {
  let copied = 0;
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && entry.name.endsWith(".jsonl")) {
        const target = join(out, "home", relative(home, path));
        await Deno.mkdir(dirname(target), { recursive: true });
        await Deno.copyFile(path, target);
        copied++;
      }
    }
  };
  await walk(join(home, ".claude", "projects"));
  return copied;
}

async function generate(o: GenerateOptions): Promise<void> {
  await Deno.writeTextFile(join(o.home, ".claude.json"), claudeJson(o.project));
  const fake = await startFake("anthropic", { script: SCRIPT });
  try {
    const first = await claudeP(o, fake.url, [CLAUDE_OLD_PROMPTS.first]);
    await claudeP(o, fake.url, [CLAUDE_OLD_PROMPTS.resumed, "--resume", first]);
    await claudeP(o, fake.url, [CLAUDE_OLD_PROMPTS.continued, "--continue"]);
    await claudeP(o, fake.url, [CLAUDE_OLD_PROMPTS.task]);
  } finally {
    await fake.close();
  }
  const copied = await copyTranscripts(o.home, o.out);
  if (copied === 0) throw new Error(`claude ${o.version.version} wrote no transcript under ${o.home}`);
}

/** The pinned older versions of Claude Code, oldest first. */
export const PLAN: OldVersions = {
  agent: "claude",
  pkg: "@anthropic-ai/claude-code",
  versions: [
    {
      version: "0.2.126",
      why:
        "the last 0.2.x: a resume or continue copies the conversation into a new session file; `summary` " +
        "lines title earlier sessions from the top of the next one; sub-agent lines inside the main file",
    },
    {
      version: "1.0.128",
      why: "the last 1.0.x: --resume appends to the same file, --continue starts a new file chained to the " +
        "old one; titles land in a file of their own; sub-agent lines still inside the main file; gitBranch",
    },
    {
      version: "2.0.77",
      why: "the last 2.0.x: sub-agents in agent-<id>.jsonl beside the sessions (warm-up agents at every " +
        "start), queue-operation records, empty session files; no summary lines from -p; still no entrypoint",
    },
  ],
  generate,
};
