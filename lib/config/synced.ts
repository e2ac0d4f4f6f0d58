/**
 * Whether a folder lies inside a file-syncing service's folder. asm's data folder must not: a SQLite ledger in
 * WAL mode, a lock file and an inbox of event files break in ways nothing reports when another program copies
 * them between machines mid-write. Judged by the services' own folder names and markers along the path.
 * @module
 */
import { dirname, join } from "node:path";

/** A folder name each service gives its synced root (case-insensitive), and its name for a person. */
const NAMED: [RegExp, string][] = [
  [/^dropbox( \(.+\))?$/i, "Dropbox"],
  [/^icloud ?drive$/i, "iCloud Drive"],
  [/^com~apple~clouddocs$/i, "iCloud Drive"],
  [/^mobile documents$/i, "iCloud Drive"],
  [/^onedrive( - .+)?$/i, "OneDrive"],
  [/^google ?drive$/i, "Google Drive"],
  [/^googledrive(-.+)?$/i, "Google Drive"],
  [/^my drive$/i, "Google Drive"],
];

/** A file or folder a service keeps at its synced root (Syncthing's folders have no fixed name, only this). */
const MARKERS: [string, string][] = [
  [".stfolder", "Syncthing"],
  [".dropbox", "Dropbox"],
  [".dropbox.cache", "Dropbox"],
];

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The service whose synced folder holds `path` (absolute), with that folder; null when none does. */
export function syncedFolderOf(path: string): { service: string; folder: string } | null {
  let at = path.replace(/\/+$/, "") || "/";
  while (true) {
    const name = at.slice(at.lastIndexOf("/") + 1);
    for (const [pattern, service] of NAMED) if (pattern.test(name)) return { service, folder: at };
    for (const [marker, service] of MARKERS) if (exists(join(at, marker))) return { service, folder: at };
    const up = dirname(at);
    if (up === at) return null;
    at = up;
  }
}

/** The sentence refusing a data folder inside a synced folder, or null when it is not in one. */
export function syncedRefusal(asmHome: string): string | null {
  const synced = syncedFolderOf(asmHome);
  if (synced === null) return null;
  return `asm's data folder ${asmHome} is inside ${synced.service} (${synced.folder}); a syncing service copies ` +
    "its database and lock mid-write and breaks them. Set ASM_HOME to a folder outside it (the default is ~/.asm)";
}
