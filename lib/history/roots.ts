/**
 * Which project a path belongs to: the nearest folder above it holding a `.git` (a file path, a sub-folder and
 * the repository root all resolve to the root). The home folder and `/` are never a project, even when a
 * dotfiles repository makes them one: every path on the machine would then score for it. Results are cached per
 * folder, so a corpus of sessions naming the same folders costs a few stats per folder, once.
 * @module
 */
import { dirname, join } from "node:path";
import type { TranscriptIo } from "../derive/mod.ts";

/** Resolves paths to project folders; one per import (its cache lives as long as it does). */
export interface ProjectRoots {
  /** The project folder of `path`, or null when no folder above it is one. */
  rootOf(path: string): string | null;
  /** Mentions of paths -> mentions of project folders (paths in no project are dropped). */
  rollUp(mentions: Record<string, number>): Record<string, number>;
}

/** A resolver reading through `io`; `notProjects` (home, `/`) are never returned. */
export function projectRoots(io: TranscriptIo, notProjects: readonly string[]): ProjectRoots {
  const never = new Set(["/", ...notProjects.map((p) => p.replace(/\/+$/, "") || "/")]);
  const cache = new Map<string, string | null>();
  // most paths of a corpus share their folders: each folder is stat'ed once
  const folders = new Map<string, boolean>();
  const isFolder = (path: string): boolean => {
    let known = folders.get(path);
    if (known === undefined) {
      try {
        known = io.stat(path)?.isDirectory ?? false;
      } catch {
        known = false;
      }
      folders.set(path, known);
    }
    return known;
  };
  const hasMarker = (dir: string): boolean => {
    try {
      return io.stat(join(dir, ".git")) !== null;
    } catch {
      return false; // an unreadable folder is not evidence of a project
    }
  };
  const rootOfDir = (dir: string): string | null => {
    const seen: string[] = [];
    let at = dir;
    let found: string | null = null;
    for (;;) {
      const cached = cache.get(at);
      if (cached !== undefined) {
        found = cached;
        break;
      }
      seen.push(at);
      if (never.has(at)) break;
      if (hasMarker(at)) {
        found = at;
        break;
      }
      const up = dirname(at);
      if (up === at) break;
      at = up;
    }
    for (const d of seen) cache.set(d, found);
    return found;
  };
  const rootOf = (path: string): string | null => {
    if (!path.startsWith("/")) return null;
    let dir = path.replace(/\/+$/, "") || "/";
    // a file, or a path that no longer exists: start from the nearest existing folder above it
    for (let i = 0; i < 64; i++) {
      if (isFolder(dir)) break;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    return rootOfDir(dir);
  };
  return {
    rootOf,
    rollUp(mentions) {
      const out: Record<string, number> = {};
      for (const [path, n] of Object.entries(mentions)) {
        const root = rootOf(path);
        if (root !== null) out[root] = (out[root] ?? 0) + n;
      }
      return out;
    },
  };
}
