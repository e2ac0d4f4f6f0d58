/**
 * The folder and its parents, nearest first: agents grant folder trust to a folder and everything under it.
 * @module
 */
import { dirname } from "node:path";

/** `/a/b/c` -> `["/a/b/c", "/a/b", "/a", "/"]`. */
export function folderAndParents(folder: string): string[] {
  const out: string[] = [];
  for (let current = folder.replace(/\/+$/, "") || "/";; current = dirname(current)) {
    out.push(current);
    if (current === "/" || current === ".") return out;
  }
}
