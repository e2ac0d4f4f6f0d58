/**
 * What the tests need on the machine, installed when missing: tmux, chromium, curl, setpriv, prlimit and python3
 * from Debian (as root), the pinned real agents with npm into .tools/agents. A missing piece that cannot be installed is one plain sentence
 * naming what to install, and counts as a failure.
 * @module
 */
import { join } from "node:path";
import { repoRoot } from "../lib/config/mod.ts";

/** The pinned real agents the end-to-end tests drive. */
export const PINNED_AGENTS: Record<string, { pkg: string; version: string; bin: string }> = {
  claude: { pkg: "@anthropic-ai/claude-code", version: "2.1.328", bin: "claude" },
  codex: { pkg: "@openai/codex", version: "0.169.0", bin: "codex" },
  gemini: { pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
};

/** The folder holding the agents' executables (`.tools/agents/node_modules/.bin`). */
export function agentsBinDir(): string {
  return join(repoRoot(), ".tools", "agents", "node_modules", ".bin");
}

async function run(
  cmd: string,
  args: string[],
  env?: Record<string, string>,
): Promise<{ ok: boolean; out: string }> {
  try {
    const out = await new Deno.Command(cmd, { args, env, stdin: "null", stdout: "piped", stderr: "piped" })
      .output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return { ok: out.success, out: text };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { ok: false, out: `${cmd} not found` };
    throw err;
  }
}

function isRoot(): boolean {
  return Deno.uid() === 0;
}

let aptUpdated = false;

async function aptInstall(pkg: string): Promise<string | null> {
  if (!isRoot()) {
    return `${pkg} is missing: install the Debian package "${pkg}" (apt-get install ${pkg}) and run again`;
  }
  console.log(`asm test: installing ${pkg} from Debian ...`);
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  if (!aptUpdated) {
    await run("apt-get", ["update", "-qq"], env);
    aptUpdated = true;
  }
  const r = await run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", pkg], env);
  return r.ok ? null : `installing ${pkg} with apt-get failed:\n${r.out.slice(-2000)}`;
}

async function agentVersionOk(name: string): Promise<boolean> {
  const a = PINNED_AGENTS[name];
  const r = await run(join(agentsBinDir(), a.bin), ["--version"]);
  return r.ok && r.out.includes(a.version);
}

/** Installs what is missing; returns the problems that remain (empty when all is there). */
export async function ensurePrerequisites(): Promise<string[]> {
  const problems: string[] = [];
  if (!(await run("tmux", ["-V"])).ok) {
    const p = await aptInstall("tmux");
    if (p) problems.push(p);
  }
  try {
    Deno.statSync("/usr/bin/chromium");
  } catch {
    const p = await aptInstall("chromium");
    if (p) problems.push(p);
  }
  // the security tests speak to the server as another local user: curl (as that user) and setpriv (to become it);
  // the fault tests lower a server's file limit (prlimit) and reset connections as a client can (python3's
  // SO_LINGER, which Deno cannot set)
  const tools = [["curl", "curl"], ["setpriv", "util-linux"], ["prlimit", "util-linux"], [
    "python3",
    "python3-minimal",
  ]];
  for (const [command, pkg] of tools) {
    if (!(await run(command, ["--version"])).ok) {
      const p = await aptInstall(pkg);
      if (p) problems.push(p);
    }
  }
  const missing: string[] = [];
  for (const name of Object.keys(PINNED_AGENTS)) {
    if (!(await agentVersionOk(name))) missing.push(name);
  }
  if (missing.length) {
    const specs = Object.values(PINNED_AGENTS).map((a) => `${a.pkg}@${a.version}`);
    console.log(`asm test: installing the pinned agents (${specs.join(", ")}) into .tools/agents ...`);
    const r = await run("npm", [
      "install",
      "--prefix",
      join(repoRoot(), ".tools", "agents"),
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      ...specs,
    ]);
    if (!r.ok) problems.push(`installing the pinned agents with npm failed:\n${r.out.slice(-2000)}`);
    for (const name of missing) {
      if (r.ok && !(await agentVersionOk(name))) {
        problems.push(
          `${PINNED_AGENTS[name].pkg}@${PINNED_AGENTS[name].version} did not install a working "${name}"`,
        );
      }
    }
  }
  return problems;
}
