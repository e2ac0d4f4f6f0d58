/**
 * The files of one launch in `$ASM_HOME/launches/`: `<token>.sh` (the launcher), `<token>.prompt` (the prompt)
 * and `<token>.env` (the environment, which the shim deletes as it starts). They exist only while the launch is
 * pending: once it is matched or expired (or its window could not open) they are deleted, each by its full
 * literal path, and only when it is not a folder. Nothing here ever removes a folder or walks into one.
 * @module
 */
import { join } from "node:path";
import type { LaunchRow } from "../ledger/mod.ts";
import { isToken } from "./token.ts";
import type { Log } from "../lang/mod.ts";

/** The paths of one launch's files. */
export interface LaunchFiles {
  script: string;
  prompt: string;
  env: string;
}

/** What a launch file's name looks like: the token, then which file. */
const FILE_NAME = /^(asmlt_[0-9a-z]+)\.(sh|prompt|env)$/;

/** The files of the launch `token` (a launch token, or this throws: the name goes into paths). */
export function launchFiles(launchesDir: string, token: string): LaunchFiles {
  if (!isToken(token)) throw new Error(`"${token}" is not a launch token`);
  return {
    script: join(launchesDir, `${token}.sh`),
    prompt: join(launchesDir, `${token}.prompt`),
    env: join(launchesDir, `${token}.env`),
  };
}

/**
 * Deletes one file by its full literal path: never a folder (a folder under that name is left, and said), and a
 * file already gone is fine. Returns true when it deleted something.
 */
export function removeLaunchFile(path: string, log?: Log): boolean {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
  if (info.isDirectory) {
    log?.({ what: "launch file left", path, why: "it is a folder; asm deletes only the files it wrote" });
    return false;
  }
  try {
    Deno.removeSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Deletes the three files of one launch (those that exist). Returns the paths deleted. */
export function removeLaunchFiles(
  launchesDir: string,
  token: string,
  log?: Log,
): string[] {
  const files = launchFiles(launchesDir, token);
  return [files.script, files.prompt, files.env].filter((p) => removeLaunchFile(p, log));
}

/**
 * Pure: whether a launch's files may go. A launch that was matched, expired or could not open its window has
 * started its agent (or never will): the shim read them long ago. A file with no launch row (asm stopped between
 * writing it and recording the launch) goes once it is older than `expiryMs`.
 */
export function launchFilesDone(row: LaunchRow | null, fileAgeMs: number, expiryMs: number): boolean {
  if (row === null) return fileAgeMs > expiryMs;
  return row.matched_asm_id !== null || row.expired || row.error !== null;
}

/**
 * Deletes the files in `launchesDir` whose launch is done (see {@link launchFilesDone}); `rowOf` looks a launch
 * up by token. Only names of the form `<token>.sh|prompt|env` are looked at. Returns the paths deleted.
 */
export function sweepLaunchFiles(
  launchesDir: string,
  rowOf: (token: string) => LaunchRow | null,
  options: { nowMs: number; expiryMs: number; log?: Log },
): string[] {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(launchesDir)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const deleted: string[] = [];
  const rows = new Map<string, LaunchRow | null>();
  for (const entry of entries) {
    const match = FILE_NAME.exec(entry.name);
    if (!match || entry.isDirectory) continue;
    const token = match[1];
    if (!rows.has(token)) rows.set(token, rowOf(token));
    const path = join(launchesDir, entry.name);
    let ageMs = 0;
    if (rows.get(token) === null) {
      try {
        ageMs = options.nowMs - (Deno.lstatSync(path).mtime?.getTime() ?? options.nowMs);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) continue;
        throw err;
      }
    }
    if (launchFilesDone(rows.get(token)!, ageMs, options.expiryMs) && removeLaunchFile(path, options.log)) {
      deleted.push(path);
    }
  }
  return deleted;
}
