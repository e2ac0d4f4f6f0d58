/**
 * Where asm and the agents keep their files. Every path honours the environment so tests run on temporary
 * homes: `ASM_HOME`, `HOME`, `CODEX_HOME`, `GEMINI_CLI_HOME`.
 * @module
 */
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** The environment a path is resolved from; defaults to the process environment. */
export type Env = Record<string, string | undefined>;

function processEnv(): Env {
  return Deno.env.toObject();
}

/** The user's home folder (`HOME`). Throws a plain sentence when it is not set. */
export function homeDir(env: Env = processEnv()): string {
  const home = env.HOME;
  if (!home) throw new Error("HOME is not set; asm needs it to find its data folder and the agents' folders");
  return home;
}

/**
 * `path` relative to `root`, like node:path's `relative`, without its cost for the common case of a path the walk
 * built under `root` (a walk over thousands of transcripts calls this for each).
 */
export function relativeTo(root: string, path: string): string {
  const base = root.endsWith("/") ? root : `${root}/`;
  if (
    path.startsWith(base) && !path.includes("/.", base.length - 1) && !path.includes("//", base.length - 1)
  ) {
    return path.slice(base.length);
  }
  return relative(root, path);
}

/** asm's data folder: `ASM_HOME`, else `~/.asm`. */
export function asmHome(env: Env = processEnv()): string {
  return env.ASM_HOME || join(homeDir(env), ".asm");
}

/** The folder this checkout lives in (the parent of `lib/`). */
export function repoRoot(): string {
  return new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
}

/**
 * The folders whose sessions are the harness's own, hidden from the list: the system temp folder, asm's data
 * folder and the hooks folder. One list for the server, the import and launch correlation.
 */
export function harnessRoots(asmHome: string): string[] {
  return [tmpdir(), "/tmp", asmHome, join(repoRoot(), "hooks")];
}
