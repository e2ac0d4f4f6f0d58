/**
 * Test helpers of lib/agents (private to tests: no module that ships imports this file): temporary homes for asm
 * and the agents (the real ~/.claude, ~/.codex, ~/.gemini and ~/.asm are never touched), the shared fixtures (real
 * files the agents wrote), and the checks the hook config tests share. Folders above lib/agents use them in their
 * own tests.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Env, repoRoot } from "../config/mod.ts";
import type { AgentConfig, HookInstallOptions } from "./protocol.ts";
import { loadAgents } from "./registry.ts";

/** The shared fixtures (../shared/fixtures beside the repository). */
export const FIXTURES = join(repoRoot(), "..", "shared", "fixtures");

/** A fixture file's path. */
export function fixture(rel: string): string {
  return join(FIXTURES, rel);
}

/** A set of temporary homes; `env` points HOME, CODEX_HOME, GEMINI_CLI_HOME and ASM_HOME into it. */
export interface TempHomes {
  root: string;
  env: Env;
  home: string;
  codexHome: string;
  geminiHome: string;
  asmHome: string;
  backupsDir: string;
  wrapper: string;
  [Symbol.dispose](): void;
}

/** Makes fresh temporary homes; `using homes = tempHomes()` removes them at the end of the test. */
export function tempHomes(): TempHomes {
  const root = Deno.makeTempDirSync({ prefix: "asm-test-" });
  const home = join(root, "home");
  const codexHome = join(root, "codex");
  const geminiHome = join(root, "gemini");
  const asmHome = join(root, "asm");
  Deno.mkdirSync(home);
  return {
    root,
    env: {
      HOME: home,
      CODEX_HOME: codexHome,
      GEMINI_CLI_HOME: geminiHome,
      ASM_HOME: asmHome,
      PATH: "/usr/bin:/bin",
    },
    home,
    codexHome,
    geminiHome,
    asmHome,
    backupsDir: join(asmHome, "backups"),
    wrapper: join(asmHome, "bin", "asm-hook"),
    [Symbol.dispose]: () => Deno.removeSync(root, { recursive: true }),
  };
}

/** The built-in agent of this name (the override file of the temp ASM_HOME does not exist). */
export function builtinAgent(homes: TempHomes, name: string): AgentConfig {
  const agent = loadAgents({ asmHome: homes.asmHome }).find((a) => a.name === name);
  if (!agent) throw new Error(`no built-in agent ${name}`);
  return agent;
}

/** Install options for one agent on the temp homes. */
export function hookOptions(homes: TempHomes, agent: AgentConfig): HookInstallOptions {
  return { env: homes.env, wrapper: homes.wrapper, agent, backupsDir: homes.backupsDir };
}

/** The names in a folder (sorted), none when it does not exist. */
export function listNames(path: string): string[] {
  try {
    return [...Deno.readDirSync(path)].map((e) => e.name).sort();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

/** Writes a file, creating its folder. */
export function writeFile(path: string, text: string): void {
  Deno.mkdirSync(join(path, ".."), { recursive: true });
  Deno.writeTextFileSync(path, text);
}

/**
 * Asserts that `after` is `before` plus inserted lines: every line of `before` is still there, in order, and
 * unchanged except for the comma JSON needs when something is appended after it. Returns the inserted lines.
 */
export function assertOnlyAdded(before: string, after: string): string[] {
  const old = before.split("\n");
  const now = after.split("\n");
  const added: string[] = [];
  let i = 0;
  for (const line of now) {
    if (i < old.length && (line === old[i] || line === `${old[i]},`)) i++;
    else added.push(line);
  }
  assert.equal(
    i,
    old.length,
    `line ${i + 1} of the original is missing or changed: ${JSON.stringify(old[i])}`,
  );
  assert.ok(added.length > 0, "nothing was added");
  return added;
}

/** The error a function throws (fails the test when it throws nothing or a non-Error). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof Error, `threw a non-Error: ${String(err)}`);
    return err;
  }
  assert.fail("expected an error, none was thrown");
}
