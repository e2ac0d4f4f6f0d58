/**
 * The real file-system reads behind {@link TranscriptIo}: read-only, and a missing path is an answer (empty, null),
 * never an exception. Other failures (permissions) throw, so the caller logs them for that one path.
 * @module
 */
import type {
  TranscriptDirEntry,
  TranscriptHandle,
  TranscriptIo,
  TranscriptOpenOptions,
  TranscriptStat,
} from "../derive/mod.ts";
import { readSync } from "node:fs";
import { closeSync, openRegularSync, readFullySync } from "../files/mod.ts";

function missing(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory;
}

/** Reads through Deno, synchronously (the byte pass reads in chunks and yields between them itself). */
export const denoIo: TranscriptIo = {
  readDir(path: string): TranscriptDirEntry[] {
    try {
      return Array.from(
        Deno.readDirSync(path),
        (e) => ({ name: e.name, isFile: e.isFile, isDirectory: e.isDirectory }),
      );
    } catch (err) {
      if (missing(err)) return [];
      throw err;
    }
  },
  stat(path: string): TranscriptStat | null {
    try {
      const s = Deno.statSync(path);
      return {
        size: s.size,
        mtimeMs: s.mtime?.getTime() ?? 0,
        ino: s.ino ?? null,
        isFile: s.isFile,
        isDirectory: s.isDirectory,
      };
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  },
  open(path: string, options?: TranscriptOpenOptions): TranscriptHandle {
    // a transcript path may have come from a hook event, and a walk reads folders a link may have replaced: a
    // regular file only, never a link, never blocking, and (when the caller knows the agent's folders) never one
    // a linked folder leads elsewhere
    const fd = openRegularSync(path, options).fd;
    return {
      read: (into: Uint8Array, position: number): number => readSync(fd, into, 0, into.length, position),
      close: () => closeSync(fd),
    };
  },
  readText(path: string, maxBytes = 8 << 20): string | null {
    let file;
    try {
      file = openRegularSync(path);
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
    try {
      const buf = new Uint8Array(Math.min(maxBytes, Math.max(file.size, 0)));
      return new TextDecoder().decode(buf.subarray(0, readFullySync(file.fd, buf, 0)));
    } finally {
      closeSync(file.fd);
    }
  },
};
