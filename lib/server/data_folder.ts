/**
 * The data folder holds every prompt, transcript copy and the install token, so nobody but its owner may read it:
 * folders 0700, files 0600, executables 0700, set where each is created. At every start the whole folder is
 * checked again (a file copied in, an editor's save, a loosened mode): anything readable by others is tightened,
 * and the server logs how many paths it changed. Links are left alone (their mode means nothing).
 *
 * Drained hook events are kept in `processed/<UTC date>/` for audit, then pruned after `processed_days`.
 * @module
 */
import { join } from "node:path";
import { errorText } from "../lang/mod.ts";

/** The mode a path should have: 0700 for folders and executables, 0600 for everything else. */
export function privateMode(mode: number, isDirectory: boolean): number {
  return isDirectory || (mode & 0o100) !== 0 ? 0o700 : 0o600;
}

/** What a tightening did: the paths it changed, and those it could not (with why). */
export interface Tightened {
  changed: string[];
  failed: { path: string; error: string }[];
}

/**
 * Tightens every path under `asmHome` (itself included) that group or others may use. A path that vanishes
 * meanwhile is skipped; one it may not change (another user's file) is reported and the rest still go on.
 */
export function tightenDataFolder(asmHome: string): Tightened {
  const out: Tightened = { changed: [], failed: [] };
  const visit = (path: string): void => {
    try {
      const info = Deno.lstatSync(path);
      if (info.isSymlink) return;
      const mode = (info.mode ?? 0) & 0o777;
      if ((mode & 0o077) !== 0) {
        Deno.chmodSync(path, privateMode(mode, info.isDirectory));
        out.changed.push(path);
      }
      if (info.isDirectory) {
        for (const entry of Deno.readDirSync(path)) visit(join(path, entry.name));
      }
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      out.failed.push({ path, error: errorText(err) });
    }
  };
  visit(asmHome);
  return out;
}

/** A folder name of `processed/` (a UTC date). */
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Removes drained events older than `days` (by the date folder they were drained into): each file by its own
 * path, then the emptied date folder. Returns how many files it removed.
 */
export function pruneProcessed(asmHome: string, days: number, now: number = Date.now()): number {
  const root = join(asmHome, "processed");
  const oldest = new Date(now - days * 86_400_000).toISOString().slice(0, 10);
  let removed = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(root)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return 0;
    throw err;
  }
  for (const day of entries) {
    if (!day.isDirectory || !DAY.test(day.name) || day.name >= oldest) continue;
    const folder = join(root, day.name);
    for (const file of Deno.readDirSync(folder)) {
      if (!file.isFile) continue;
      Deno.removeSync(join(folder, file.name));
      removed++;
    }
    try {
      Deno.removeSync(folder); // not recursive: only an emptied folder goes
    } catch (err) {
      // something other than a drained event is in it (not asm's to remove): the folder stays
      if (!(err instanceof Deno.errors.NotFound) && !/not empty/i.test(errorText(err))) throw err;
    }
  }
  return removed;
}
