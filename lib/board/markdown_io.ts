/**
 * The Markdown board's file operations behind a small seam ({@link BoardIo}: read, writeAtomic, stat), so a
 * test can count reads or land a hand edit at an exact moment of a write. The real one reads without following
 * a link (lib/files: `O_NOFOLLOW | O_NONBLOCK`, regular files only, bounded) and writes a temporary file in the
 * same folder, then renames it over the board (atomic: a reader sees the old file or the new one, never half).
 *
 * All of it is synchronous on purpose: a write's last comparison and its rename run with no `await` between
 * them, so nothing else in this process can run in that window (see `markdown.ts`).
 * @module
 */
import { basename, dirname, join } from "node:path";
import { closeSync, openRegularSync, readFullySync, RefusedFile } from "../files/mod.ts";
import { BoardUnusable } from "./protocol.ts";

/** What a stat of the board file says. */
export interface BoardFileStat {
  /** Permission bits (`0o600`). */
  mode: number;
  size: number;
}

/** How {@link BoardIo.writeAtomic} writes. */
export interface WriteOptions {
  /** The new file's permission bits. */
  mode: number;
  /** Only when nothing is at the path yet (a new board): an existing file is never replaced. */
  exclusive?: boolean;
  /** Runs right before the rename, the new bytes on disk: it throws to write nothing (the temp file goes). */
  beforeRename?: () => void;
}

/** The board file's operations. */
export interface BoardIo {
  /**
   * The bytes of the regular file at `path`, or null when nothing is there. Throws {@link BoardUnusable} with a
   * sentence for a link, a FIFO, a folder, ... (nothing is read) or a file over `limit` bytes.
   */
  read(path: string, limit: number): Uint8Array | null;
  /** Writes `bytes` to a temporary file beside `path`, then renames it over `path`. */
  writeAtomic(path: string, bytes: Uint8Array, options: WriteOptions): void;
  /** The file at `path` (not followed if it is a link), or null when nothing is there. */
  stat(path: string): BoardFileStat | null;
}

/** A size as a person reads it. */
function sized(n: number): string {
  if (n >= 1 << 20) return `${Math.round((n / (1 << 20)) * 10) / 10} MB`;
  if (n >= 1 << 10) return `${Math.round((n / (1 << 10)) * 10) / 10} KB`;
  return `${n} bytes`;
}

function tooLarge(path: string, what: string, limit: number): BoardUnusable {
  return new BoardUnusable(
    `${path} ${what}, over the ${sized(limit)} a board may be; asm does not read it (nor write it): ` +
      `move what is not the board out of it`,
  );
}

function read(path: string, limit: number): Uint8Array | null {
  let file;
  try {
    file = openRegularSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    if (err instanceof RefusedFile) {
      throw new BoardUnusable(`${err.message}: asm reads and writes its board only as a regular file`);
    }
    throw err;
  }
  try {
    if (file.size > limit) throw tooLarge(path, `is ${sized(file.size)}`, limit);
    // one byte more than the file had: a file that grew since the fstat is read to its end, or found too large
    const chunks: Uint8Array[] = [];
    let total = 0;
    let step = file.size + 1;
    for (;;) {
      const chunk = new Uint8Array(Math.min(step, limit + 1 - total));
      const got = readFullySync(file.fd, chunk, total);
      chunks.push(chunk.subarray(0, got));
      total += got;
      if (total > limit) throw tooLarge(path, "grew while asm read it", limit);
      if (got < chunk.length) break;
      step = 1 << 16;
    }
    if (chunks.length === 1) return chunks[0];
    const all = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    return all;
  } finally {
    closeSync(file.fd);
  }
}

function randomName(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

function writeAtomic(path: string, bytes: Uint8Array, options: WriteOptions): void {
  // beside the board: a rename is atomic only inside one file system
  const temp = join(dirname(path), `.${basename(path)}.asm-${randomName()}.tmp`);
  const file = Deno.openSync(temp, { write: true, createNew: true, mode: options.mode });
  try {
    try {
      let at = 0;
      while (at < bytes.length) at += file.writeSync(bytes.subarray(at));
      file.syncSync();
    } finally {
      file.close();
    }
    Deno.chmodSync(temp, options.mode); // the umask may have taken bits from the open's mode
    options.beforeRename?.();
    if (options.exclusive) {
      Deno.linkSync(temp, path); // fails when anything is at the path: a new board never replaces a file
      Deno.removeSync(temp);
    } else {
      Deno.renameSync(temp, path);
    }
  } catch (err) {
    removeQuietly(temp);
    throw err;
  }
}

function stat(path: string): BoardFileStat | null {
  try {
    const info = Deno.lstatSync(path);
    return { mode: (info.mode ?? 0o600) & 0o7777, size: info.size };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** The real file system. */
export const REAL_BOARD_IO: BoardIo = { read, writeAtomic, stat };
