/**
 * Every file of a tree, relative to its root, sorted: what the plans copy out of an old agent's home and what the
 * tests lay back into theirs. Its own file: a plan cannot import the runner (`mod.ts`) it is loaded by.
 * @module
 */
import { join, relative } from "node:path";

/** Every regular file under `root`, relative to it, sorted; [] when `root` does not exist. */
export function filesOf(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) walk(path);
      else if (entry.isFile) out.push(relative(root, path));
    }
  };
  try {
    walk(root);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound) || out.length > 0) throw err;
  }
  return out.sort();
}
