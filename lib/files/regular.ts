/**
 * Opening a file whose path came from outside (a hook event's `transcript_path`, a cwd, a request) without
 * trusting it: `O_NOFOLLOW` refuses a link as the last component (a `transcript_path` linked to a secret),
 * `O_NONBLOCK` keeps a FIFO from blocking the open forever, and `fstat` on the opened descriptor (not a stat of
 * the path before it, which a swap could outrun) says whether it is a regular file. A FIFO, a device
 * (`/dev/zero`), a socket or a folder is refused with a sentence; nothing is read from it. `O_NOFOLLOW` guards
 * only the last component, so a caller that knows where the file must be (an agent's own transcript folders)
 * names those folders (`within`), and the kernel's own path of the OPEN descriptor (`/proc/self/fd/<n>`) must lie
 * in one of them: a folder link on the way (`.../linked-dir/x.jsonl`) cannot lead a read outside its place.
 *
 * Both shapes are here: the async one for the server's request paths (each read runs off the event loop) behind
 * the {@link FileReader} seam, so a test can count or hold every read; the sync one for code that already runs
 * off the event loop (read workers, the search Worker) or reads small files.
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A path asm will not read: not a regular file, a link, or outside its place; the message says which. */
export class RefusedFile extends Error {
  override name = "RefusedFile";
}

/** An open regular file. */
export interface ReadHandle {
  /** Its size when it was opened. */
  size: number;
  /** Reads into `into` from `position`; the bytes read (0 at the end). */
  read(into: Uint8Array, position: number): Promise<number>;
  close(): Promise<void>;
}

/** Where an opened file must be. */
export interface OpenOptions {
  /** Folders the file's real path must lie in (each resolved to its own real path); absent: anywhere. */
  within?: readonly string[];
  /**
   * `within` is already the folders' real paths (resolved once by a caller opening many files in them): each
   * open then reads only the file's own real path.
   */
  withinResolved?: boolean;
}

/** The seam every request-triggered file read goes through. */
export interface FileReader {
  /**
   * Opens a regular file. Throws `Deno.errors.NotFound` when there is none, {@link RefusedFile} for anything
   * else at that path (or a file outside `within`), and the system's error otherwise.
   */
  open(path: string, options?: OpenOptions): Promise<ReadHandle>;
}

/** The real path of an open descriptor, as the kernel has it (falls back to resolving the path elsewhere). */
function realPathOf(fd: number, path: string): string {
  try {
    return Deno.readLinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return Deno.realPathSync(path);
  }
}

/** True when `path` is one of `folders` or lies inside one (each folder resolved to its real path first). */
export function insideAny(path: string, folders: readonly string[], resolved = false): boolean {
  return (resolved ? folders : realFolders(folders)).some((real) =>
    path === real || path.startsWith(real.endsWith("/") ? real : `${real}/`)
  );
}

/** The real paths of `folders` (for {@link OpenOptions.withinResolved}); a folder that does not exist is left out. */
export function realFolders(folders: readonly string[]): string[] {
  const out: string[] = [];
  for (const folder of folders) {
    try {
      out.push(Deno.realPathSync(folder));
    } catch {
      // a folder that does not exist holds nothing
    }
  }
  return out;
}

/** Refuses an open file outside `within` (throws after the caller's cleanup runs). */
function checkPlace(fd: number, path: string, options: OpenOptions | undefined): void {
  if (!options?.within) return;
  const real = realPathOf(fd, path);
  if (!insideAny(real, options.within, options.withinResolved === true)) {
    throw new RefusedFile(`${path} leads outside the folders it belongs in (to ${real})`);
  }
}

/** What a stat says the thing is, in a word a person reads. */
function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isSocket()) return "a socket";
  if (stat.isDirectory()) return "a folder";
  return "not a regular file";
}

/** Node's errors carry a code; the ones that mean "nothing usable there" become typed answers. */
function translate(err: unknown, path: string): unknown {
  const code = (err as { code?: string }).code;
  if (code === "ENOENT" || code === "ENOTDIR") return new Deno.errors.NotFound(`${path} does not exist`);
  if (code === "ELOOP") return new RefusedFile(`${path} is a link, and asm does not follow links there`);
  return err;
}

/** The real file system, through node:fs (Deno's own open has no O_NOFOLLOW). */
export const NODE_FILES: FileReader = {
  async open(path: string, options?: OpenOptions): Promise<ReadHandle> {
    let handle;
    try {
      handle = await open(path, FLAGS);
    } catch (err) {
      throw translate(err, path);
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new RefusedFile(`${path} is ${kindOf(stat)}, not a regular file`);
      checkPlace(handle.fd, path, options);
      return {
        size: stat.size,
        read: async (into, position) => (await handle.read(into, 0, into.length, position)).bytesRead,
        close: () => handle.close(),
      };
    } catch (err) {
      await handle.close();
      throw err;
    }
  },
};

/** An open regular file, synchronously: its descriptor and what fstat said. Close it with `closeSync(fd)`. */
export interface RegularFile {
  fd: number;
  size: number;
  uid: number;
  /** Its permission bits (and type bits), as fstat gave them. */
  mode: number;
  mtimeMs: number;
  ino: number;
}

/** {@link FileReader.open}, synchronously. */
export function openRegularSync(path: string, options?: OpenOptions): RegularFile {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (err) {
    throw translate(err, path);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new RefusedFile(`${path} is ${kindOf(stat)}, not a regular file`);
    checkPlace(fd, path, options);
    return { fd, size: stat.size, uid: stat.uid, mode: stat.mode, mtimeMs: stat.mtimeMs, ino: stat.ino };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** A file open for positional reads, synchronously (a transcript handle is one). */
export interface SyncReader {
  /** Reads into `into` from `position`; the bytes read (0 at the end). */
  read(into: Uint8Array, position: number): number;
}

/**
 * Reads from `file` (an open descriptor, or a {@link SyncReader}) at `position` until `into` is full or the file
 * ends; the bytes read. A read may return fewer bytes than asked for: this is the one loop that asks again.
 */
export function readFullySync(file: number | SyncReader, into: Uint8Array, position: number): number {
  const read = typeof file === "number"
    ? (buf: Uint8Array, at: number) => readSync(file, buf, 0, buf.length, at)
    : (buf: Uint8Array, at: number) => file.read(buf, at);
  let got = 0;
  while (got < into.length) {
    const n = read(into.subarray(got), position + got);
    if (n <= 0) break; // the file ended (or shrank while we read): keep what we have
    got += n;
  }
  return got;
}

/**
 * {@link readFullySync} for a {@link ReadHandle}: reads of at most `step` bytes each, so the event loop runs
 * between them.
 */
export async function readFully(
  file: ReadHandle,
  into: Uint8Array,
  position: number,
  step = 1 << 20,
): Promise<number> {
  let got = 0;
  while (got < into.length) {
    const n = await file.read(into.subarray(got, Math.min(into.length, got + step)), position + got);
    if (n <= 0) break; // as above
    got += n;
  }
  return got;
}

export { closeSync };

/** The most {@link readRegularSync} reads of a config or state file (more is refused with a sentence). */
const CONFIG_MAX_BYTES = 16 << 20;

/**
 * A file asm reads whole (an agent's config, the lock, a unit file), following a link (dotfile managers link
 * configs) but never blocking: a FIFO or a device where the file should be is refused with a sentence, not waited
 * on, and so is a file past `maxBytes`. A missing file is `Deno.errors.NotFound`, as with `Deno.readFileSync`.
 */
export function readRegularSync(path: string, maxBytes = CONFIG_MAX_BYTES): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw translate(err, path);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new RefusedFile(`${path} is ${kindOf(stat)}, not a regular file`);
    if (stat.size > maxBytes) {
      throw new RefusedFile(`${path} is ${stat.size} bytes, more than asm reads of it`);
    }
    const bytes = new Uint8Array(stat.size);
    return bytes.subarray(0, readFullySync(fd, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

/** {@link readRegularSync} as text, decoded as `Deno.readTextFileSync` does (a byte order mark is kept). */
export function readRegularTextSync(path: string, maxBytes = CONFIG_MAX_BYTES): string {
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(readRegularSync(path, maxBytes));
}

/** True when something (a file, a folder, a link, even a dangling one) is at `path`. */
export function pathExists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
