/**
 * The real file-system reads behind {@link TranscriptIo}: read-only, and a missing path is an answer (empty, null),
 * never an exception. Other failures (permissions) throw, so the caller logs them for that one path.
 * @module
 */
import type {
  TranscriptDirEntry,
  TranscriptHandle,
  TranscriptIo,
  TranscriptStat,
} from "../agents/transcript_types.ts";

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
  open(path: string): TranscriptHandle {
    const file = Deno.openSync(path, { read: true });
    let at = 0;
    return {
      read(into: Uint8Array, position: number): number {
        if (position !== at) {
          file.seekSync(position, Deno.SeekMode.Start);
          at = position;
        }
        const n = file.readSync(into) ?? 0;
        at += n;
        return n;
      },
      close: () => file.close(),
    };
  },
  readText(path: string, maxBytes = 8 << 20): string | null {
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true });
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
    try {
      const buf = new Uint8Array(Math.min(maxBytes, Math.max(file.statSync().size, 0)));
      let n = 0;
      while (n < buf.length) {
        const got = file.readSync(buf.subarray(n));
        if (got === null || got === 0) break;
        n += got;
      }
      return new TextDecoder().decode(buf.subarray(0, n));
    } finally {
      file.close();
    }
  },
};
