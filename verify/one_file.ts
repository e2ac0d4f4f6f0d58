/**
 * The one downloaded file as a person has it: copied alone into an empty folder, run with the PATH of a machine
 * that has a POSIX shell and tar but no deno, node or npm (a folder of links to the basic tools the file's header
 * and first run use, and nothing else). The dist test and `./asm bench start` run the file this way.
 * @module
 */
import { join } from "node:path";

/** What the header and a first run use, and nothing else. */
const TOOLS = [
  "sh",
  "tar",
  "gzip",
  "tail",
  "cksum",
  "cut",
  "head",
  "mkdir",
  "rm",
  "mv",
  "basename",
  "cat",
  "dirname",
  // the cache's checks: its owner and mode, its tree, its sum, this boot
  "id",
  "ls",
  "find",
  "sort",
  "chmod",
  "tr",
  "who",
];

function which(tool: string): string {
  for (const dir of ["/usr/bin", "/bin", "/usr/local/bin"]) {
    try {
      Deno.statSync(join(dir, tool));
      return join(dir, tool);
    } catch { /* next */ }
  }
  throw new Error(`${tool} is not on this machine`);
}

/** Makes `<root>/bare-bin` with links to the basic tools only; returns it, to be the whole PATH. */
export function barePath(root: string): string {
  const bin = join(root, "bare-bin");
  Deno.mkdirSync(bin);
  for (const tool of TOOLS) Deno.symlinkSync(which(tool), join(bin, tool));
  return bin;
}

/** Copies the built file alone into `<root>/alone/asm` (executable); returns its path. */
export function copiedAlone(built: string, root: string): string {
  const alone = join(root, "alone");
  Deno.mkdirSync(alone);
  const file = join(alone, "asm");
  Deno.copyFileSync(built, file);
  Deno.chmodSync(file, 0o755);
  return file;
}
