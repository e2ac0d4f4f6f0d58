import assert from "node:assert/strict";
import { type AgentConfig, loadAgents } from "../agents/mod.ts";
import { launchEnv } from "./env.ts";

const AGENTS = loadAgents({ asmHome: "/nonexistent-asm-home" });
const agent = (name: string): AgentConfig => AGENTS.find((a) => a.name === name)!;

/** An environment as asm's server might have it: a login session, every agent's keys, and secrets. */
const SERVER_ENV: Record<string, string> = {
  HOME: "/home/p",
  PATH: "/usr/bin:/bin",
  LANG: "en_GB.UTF-8",
  LC_TIME: "en_DK.UTF-8",
  TZ: "Europe/London",
  TMPDIR: "/home/p/tmp",
  USER: "p",
  LOGNAME: "p",
  SHELL: "/bin/zsh",
  XDG_CONFIG_HOME: "/home/p/.config",
  XDG_RUNTIME_DIR: "/run/user/1000",
  ANTHROPIC_API_KEY: "sk-ant",
  ANTHROPIC_BASE_URL: "https://a.example",
  CLAUDE_CONFIG_DIR: "/home/p/.claude-work",
  CLAUDE_CODE_SESSION_ID: "the-session-asm-runs-in",
  CLAUDE_CODE_ENTRYPOINT: "cli",
  DISABLE_TELEMETRY: "1",
  CODEX_HOME: "/home/p/.codex",
  CODEX_THREAD_ID: "the-thread-asm-runs-in",
  OPENAI_API_KEY: "sk-oa",
  GEMINI_API_KEY: "g-key",
  GEMINI_SESSION_ID: "the-gemini-session-asm-runs-in",
  GOOGLE_CLOUD_PROJECT: "proj",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  GITHUB_TOKEN: "ghp",
  HTTPS_PROXY: "http://proxy:3128",
  ASM_HOME: "/home/p/.asm",
  TERM: "xterm-256color",
  COLORTERM: "truecolor",
  TMUX: "/tmp/tmux-1000/default,1,0",
  TMUX_PANE: "%3",
  COLUMNS: "80",
  ASM_LAUNCH_TOKEN: "asmlt_old",
  ASM_SESSION_NAME: "old",
  "NOT A NAME": "x",
};

const BUILTIN = [
  "HOME",
  "LANG",
  "LC_TIME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TMPDIR",
  "TZ",
  "USER",
  "XDG_CONFIG_HOME",
  "XDG_RUNTIME_DIR",
];

Deno.test("each agent's launch gets the built-in names and its own, and none of the other agents' keys or secrets", () => {
  const table: [string, string[]][] = [
    ["claude", ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR", "DISABLE_TELEMETRY"]],
    ["codex", ["CODEX_HOME", "OPENAI_API_KEY"]],
    ["gemini", ["GEMINI_API_KEY", "GOOGLE_CLOUD_PROJECT"]],
  ];
  for (const [name, own] of table) {
    const env = launchEnv(SERVER_ENV, agent(name));
    assert.deepEqual(Object.keys(env), [...BUILTIN, ...own].sort(), name);
    for (const key of Object.keys(env)) assert.equal(env[key], SERVER_ENV[key]);
  }
});

Deno.test("the person's [launch] env adds names and prefixes, but never the terminal's or a launch's own variables", () => {
  const env = launchEnv(SERVER_ENV, agent("codex"), [
    "HTTPS_PROXY",
    "AWS_*",
    "TERM",
    "TMUX*",
    "ASM_*",
    "COLUMNS",
  ]);
  assert.equal(env.HTTPS_PROXY, "http://proxy:3128");
  assert.equal(env.AWS_SECRET_ACCESS_KEY, "aws-secret");
  assert.equal(env.ASM_HOME, "/home/p/.asm");
  for (const never of ["TERM", "TMUX", "TMUX_PANE", "COLUMNS", "ASM_LAUNCH_TOKEN", "ASM_SESSION_NAME"]) {
    assert.equal(never in env, false, never);
  }
  assert.equal("GITHUB_TOKEN" in env, false);
});

Deno.test("an agent's per-session variables never pass, even when its own prefix covers them", () => {
  assert.equal("CLAUDE_CODE_SESSION_ID" in launchEnv(SERVER_ENV, agent("claude")), false);
  assert.equal("CLAUDE_CODE_ENTRYPOINT" in launchEnv(SERVER_ENV, agent("claude")), false);
  assert.equal("GEMINI_SESSION_ID" in launchEnv(SERVER_ENV, agent("gemini")), false);
  assert.equal("CODEX_THREAD_ID" in launchEnv(SERVER_ENV, agent("codex")), false);
});

Deno.test("an agent that names no variables of its own gets the built-in names only", () => {
  const bare = { ...agent("claude"), launch_env: [] };
  assert.deepEqual(Object.keys(launchEnv(SERVER_ENV, bare)), BUILTIN);
});
