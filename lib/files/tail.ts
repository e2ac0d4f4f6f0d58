/**
 * The bounded tail read: the last `maxBytes` of a file that an agent keeps appending to (a transcript, a
 * rollout). Its newest records are at the end, and a file of any size (500 MB, or one that never ends) costs at
 * most `maxBytes` of reading and memory. When the bound cuts the file, the window starts after its first newline:
 * a cut line is not a line. One more byte than the bound is read, so a window that starts exactly on a line keeps
 * that line.
 * @module
 */
import {
  closeSync,
  type FileReader,
  NODE_FILES,
  type OpenOptions,
  openRegularSync,
  readFully,
  readFullySync,
} from "./regular.ts";

/** The tail of one file. */
export interface Tail {
  bytes: Uint8Array;
  /** True when the bound cut the file's start off. */
  truncated: boolean;
  /** The file's size when it was read. */
  size: number;
}

/** The last `maxBytes` of `bytes`, whole lines only, and whether anything was cut. */
export function tailOf(bytes: Uint8Array, maxBytes: number): { bytes: Uint8Array; truncated: boolean } {
  if (bytes.length <= maxBytes) return { bytes, truncated: false };
  return { bytes: afterFirstNewline(bytes.subarray(bytes.length - maxBytes - 1)), truncated: true };
}

function afterFirstNewline(window: Uint8Array): Uint8Array {
  const nl = window.indexOf(0x0a);
  return nl === -1 ? window.subarray(window.length) : window.subarray(nl + 1);
}

/**
 * The tail of a regular file, read asynchronously through `reader` (the seam tests count reads through).
 * Throws like {@link FileReader.open}: NotFound, RefusedFile.
 */
export async function readTail(
  path: string,
  maxBytes: number,
  reader: FileReader = NODE_FILES,
  options?: OpenOptions,
): Promise<Tail> {
  const file = await reader.open(path, options);
  try {
    const cut = file.size > maxBytes;
    const from = cut ? file.size - maxBytes - 1 : 0;
    const buf = new Uint8Array(file.size - from);
    const bytes = buf.subarray(0, await readFully(file, buf, from));
    return { bytes: cut ? afterFirstNewline(bytes) : bytes, truncated: cut, size: file.size };
  } finally {
    await file.close();
  }
}

/** {@link readTail}, synchronously (for code already off the event loop, or small files). */
export function readTailSync(path: string, maxBytes: number, options?: OpenOptions): Tail {
  const file = openRegularSync(path, options);
  try {
    const cut = file.size > maxBytes;
    const from = cut ? file.size - maxBytes - 1 : 0;
    const buf = new Uint8Array(file.size - from);
    const bytes = buf.subarray(0, readFullySync(file.fd, buf, from));
    return { bytes: cut ? afterFirstNewline(bytes) : bytes, truncated: cut, size: file.size };
  } finally {
    closeSync(file.fd);
  }
}

/** What a file gained past an offset: whole lines only. */
export interface Growth {
  /** The complete lines from `from` (each ending in a newline), at most the bound asked for. */
  bytes: Uint8Array;
  /** Where the next read starts: after the last newline read. */
  next: number;
  /** The file's size when it was read; below `from` means it shrank (it was rewritten, not appended to). */
  size: number;
}

/**
 * The complete lines a file gained past `from`, at most `maxBytes` of them (a line still being written waits for
 * its newline; one longer than the bound is skipped whole, so a reader never stalls on it). A file that shrank
 * below `from` gains nothing: its `size` says so. Throws like {@link FileReader.open}.
 */
export async function readGrowth(
  path: string,
  from: number,
  maxBytes: number,
  reader: FileReader = NODE_FILES,
  options?: OpenOptions,
): Promise<Growth> {
  const file = await reader.open(path, options);
  try {
    if (file.size <= from) return { bytes: new Uint8Array(0), next: from, size: file.size };
    const buf = new Uint8Array(Math.min(file.size - from, maxBytes));
    const got = buf.subarray(0, await readFully(file, buf, from));
    const last = got.lastIndexOf(0x0a);
    if (last === -1) {
      // no newline within the bound: a whole window of one unfinished line is skipped; a short one waits
      const skip = got.length === maxBytes ? got.length : 0;
      return { bytes: new Uint8Array(0), next: from + skip, size: file.size };
    }
    return { bytes: got.subarray(0, last + 1), next: from + last + 1, size: file.size };
  } finally {
    await file.close();
  }
}
