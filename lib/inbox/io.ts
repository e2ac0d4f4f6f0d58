/**
 * The drain's file operations, behind a small seam ({@link DrainIo}) so a test can hand in a fake: list the
 * inbox, read one file (bounded), move one entry. The real one never follows a link and never blocks: the inbox
 * is listed with `lstat`, a file is opened through lib/files (`O_NOFOLLOW | O_NONBLOCK`, then `fstat` on the open
 * descriptor, so a file swapped for a FIFO after the listing is refused instead of freezing the server), and a
 * move renames the directory entry itself.
 * @module
 */
import { join } from "node:path";
import { closeSync, openRegularSync, readFullySync } from "../files/mod.ts";

/**
 * What an inbox entry is, from `lstat` (links are not followed). `unnameable`: its name is not valid UTF-8, so
 * Deno can list it only with U+FFFD in place of the bad bytes, and no call can open or move it by that name.
 */
export type EntryKind = "file" | "link" | "folder" | "fifo" | "socket" | "device" | "unnameable";

/** One entry of the inbox. */
export interface InboxEntry {
  name: string;
  kind: EntryKind;
  /** its modification time (epoch ms; 0 when unknown) */
  mtimeMs: number;
}

/** The drain's file operations. */
export interface DrainIo {
  /** The entries of `folder`; none when it does not exist. */
  list(folder: string): InboxEntry[];
  /**
   * At most `limit` bytes of the regular file at `path`, from its start. Throws `Deno.errors.NotFound` when
   * nothing is there, `RefusedFile` (lib/files) for a link, a FIFO, a device, a socket or a folder (nothing is
   * read from it), and the system's error otherwise.
   */
  read(path: string, limit: number): Uint8Array;
  /**
   * Moves the entry at `from` (the entry itself, never what a link points to) into `folder`, created 0700 when
   * missing, under `name`, or under `name.1`, `name.2`, ... when that is taken: nothing already there is
   * replaced. Returns the name it got.
   */
  move(from: string, folder: string, name: string): string;
}

function kindOf(info: Deno.FileInfo): EntryKind {
  if (info.isSymlink) return "link";
  if (info.isFile) return "file";
  if (info.isDirectory) return "folder";
  if (info.isFifo) return "fifo";
  if (info.isSocket) return "socket";
  return "device";
}

function list(folder: string): InboxEntry[] {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(folder)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const out: InboxEntry[] = [];
  for (const { name } of entries) {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(join(folder, name));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      // Deno lists a name that is not UTF-8 with U+FFFD in place of its bad bytes, and that name leads
      // nowhere; any other name that vanished was taken by someone between the two calls
      if (name.includes("\uFFFD")) out.push({ name, kind: "unnameable", mtimeMs: 0 });
      continue;
    }
    out.push({ name, kind: kindOf(info), mtimeMs: info.mtime?.getTime() ?? 0 });
  }
  return out;
}

function read(path: string, limit: number): Uint8Array {
  const file = openRegularSync(path);
  try {
    // an event is a few KB: a buffer of the file's size (one byte more, to see a file that grew since the
    // fstat), never more than the limit, so a 600 MB file costs `limit` bytes and one read, not 600 MB
    let bytes = new Uint8Array(Math.min(file.size + 1, limit));
    let got = readFullySync(file.fd, bytes, 0);
    if (got === bytes.length && got < limit) {
      const grown = new Uint8Array(limit);
      grown.set(bytes);
      got += readFullySync(file.fd, grown.subarray(got), got);
      bytes = grown;
    }
    return bytes.subarray(0, got);
  } finally {
    closeSync(file.fd);
  }
}

function taken(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

function move(from: string, folder: string, name: string): string {
  Deno.mkdirSync(folder, { recursive: true, mode: 0o700 });
  let target = name;
  // rename(2) replaces a file silently: a second `x.json` must not erase the first one's evidence
  for (let n = 1; taken(join(folder, target)); n++) target = `${name}.${n}`;
  Deno.renameSync(from, join(folder, target));
  return target;
}

/** The real file system. */
export const REAL_DRAIN_IO: DrainIo = { list, read, move };
