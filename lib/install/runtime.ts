/**
 * What the hook wrapper runs, kept in `$ASM_HOME/bin/` (never in the disposable cache the one downloaded file
 * unpacks into, nor in a checkout that may move): the Deno binary and `hook.ts`. The wrapper names these copies,
 * so its text, which the agents' configs carry and Codex trusts by hash, stays identical across upgrades; an
 * upgrade's install only refreshes the copies.
 * @module
 */
import { join } from "node:path";
import { HOOK_SCRIPT } from "./wrapper.ts";

/** Where the hook's runtime lives in the data folder. */
export interface HookRuntime {
  deno: string;
  hook: string;
}

/** `$ASM_HOME/bin/deno` and `$ASM_HOME/bin/hook.ts`. */
export function hookRuntime(asmHome: string): HookRuntime {
  return { deno: join(asmHome, "bin", "deno"), hook: join(asmHome, "bin", "hook.ts") };
}

function sameFile(a: string, b: string): boolean {
  try {
    const x = Deno.statSync(a);
    const y = Deno.statSync(b);
    return x.size === y.size && x.mtime?.getTime() === y.mtime?.getTime();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * Places `from` at `to` by rename, so a hook running the old binary keeps its inode: a hard link when both are on
 * one file system (no copy of a hundred megabytes), else a copy that keeps the source's mtime (the next install
 * compares size and mtime, not bytes).
 */
function placeBinary(from: string, to: string): void {
  const partial = `${to}.partial-${Deno.pid}`;
  try {
    Deno.removeSync(partial);
  } catch { /* not there */ }
  try {
    Deno.linkSync(from, partial);
  } catch {
    Deno.copyFileSync(from, partial);
    const info = Deno.statSync(from);
    Deno.chmodSync(partial, 0o700);
    if (info.atime && info.mtime) Deno.utimeSync(partial, info.atime, info.mtime);
  }
  Deno.renameSync(partial, to);
}

/**
 * Copies the Deno binary and the hook into `$ASM_HOME/bin/` when they differ from what is there; returns the
 * names of the files it changed (none on a second install).
 */
export function installHookRuntime(
  asmHome: string,
  options: { denoPath?: string; hookScript?: string } = {},
): string[] {
  const target = hookRuntime(asmHome);
  const changed: string[] = [];
  const deno = options.denoPath ?? Deno.execPath();
  if (!sameFile(deno, target.deno)) {
    placeBinary(deno, target.deno);
    changed.push(target.deno);
  }
  const text = Deno.readTextFileSync(options.hookScript ?? HOOK_SCRIPT);
  let current: string | null = null;
  try {
    current = Deno.readTextFileSync(target.hook);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (current !== text) {
    const partial = `${target.hook}.partial-${Deno.pid}`;
    Deno.writeTextFileSync(partial, text, { mode: 0o600 });
    Deno.renameSync(partial, target.hook);
    changed.push(target.hook);
  }
  return changed;
}

/** What is missing of the hook's runtime (each a sentence with the fix); [] when it is whole. */
export function hookRuntimeProblems(asmHome: string): string[] {
  const target = hookRuntime(asmHome);
  const problems: string[] = [];
  for (const [path, what] of [[target.deno, "the Deno binary"], [target.hook, "the hook script"]]) {
    try {
      Deno.statSync(path);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      problems.push(`${what} the hook runs is missing (${path}); run \`asm install\` again to put it back`);
    }
  }
  return problems;
}
