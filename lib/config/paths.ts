/**
 * Where asm and the agents keep their files, and where a command is on `PATH`. Every path honours the environment
 * so tests run on temporary homes: `ASM_HOME`, `HOME`, `CODEX_HOME`, `GEMINI_CLI_HOME`, `PATH`.
 * @module
 */
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

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
  if (!env.ASM_HOME) return join(homeDir(env), ".asm");
  // a relative ASM_HOME names a folder under the one the person ran asm from (`./asm` itself runs from the
  // checkout), never one that moves with the working directory
  return resolve(env.ASM_CALLER_CWD || Deno.cwd(), env.ASM_HOME);
}

/** The folder this checkout lives in (the parent of `lib/`). */
export function repoRoot(): string {
  // fileURLToPath, not `.pathname`: a URL keeps a space as %20, and a checkout may live in "My Projects"
  return fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
}

/**
 * The absolute path of `command` on the env's `PATH` (an executable regular file), or null; a command that holds
 * a "/" is taken as it is written.
 */
export function findOnPath(command: string, env: Env): string | null {
  if (command.includes("/")) return command;
  for (const dir of (env.PATH ?? "").split(":")) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && (info.mode ?? 0o111) & 0o111) return candidate;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory)) throw err;
    }
  }
  return null;
}

/**
 * The folders whose sessions are the harness's own, hidden from the list: the system temp folder, asm's data
 * folder and the hooks folder. One list for the server, the import and launch correlation.
 */
export function harnessRoots(asmHome: string): string[] {
  return [tmpdir(), "/tmp", asmHome, join(repoRoot(), "hooks")];
}
