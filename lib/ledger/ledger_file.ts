/**
 * The ledger's file: is the path still the file the ledger opened, and could it be opened for writing now. SQLite
 * writes through the descriptor it opened, so a ledger deleted while open takes every later write into a file
 * nobody can reach again (after a restart the ledger is empty), and a chmod changes nothing until the next open.
 * The Ledger checks the path's identity before every write ({@link identityProblem}); the server's watch probes
 * the modes and holds writes while the file or its folder is read-only. The sentences are decided here, pure
 * ({@link ledgerFileProblem}), so the refusal and the health model say the same thing.
 *
 * Nothing here opens the ledger file: closing ANY descriptor of a file drops every POSIX lock this process holds
 * on it, SQLite's included, and another connection could then checkpoint and delete the WAL under the server.
 * @module
 */

import { statfsSync } from "node:fs";

/** A file's identity: the same device and inode is the same file, whatever its path says. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** What a look at the ledger's path found. */
export interface LedgerFileFacts {
  path: string;
  /** the identity of the file the ledger opened (null: not known, e.g. `:memory:`) */
  opened: FileIdentity | null;
  /** the identity of what is at the path now; null when nothing is */
  current: FileIdentity | null;
  /** the file could be opened for writing now (the kernel's answer); null when not asked */
  fileWritable: boolean | null;
  /** a file could be created in its folder now (SQLite makes `-wal` and `-shm` there); null when not asked */
  folderWritable: boolean | null;
}

/** What is wrong with the ledger's file, in one sentence a person can act on. */
export interface LedgerFileProblem {
  kind: "deleted" | "replaced" | "read-only" | "folder read-only";
  sentence: string;
}

/** The ledger refuses to write: its file is not the one it opened, or it was found read-only. */
export class LedgerUnwritableError extends Error {
  override name = "LedgerUnwritableError";
}

/** The identity of what is at `path` (links followed, as SQLite's open does), or null when nothing is. */
export function fileIdentity(path: string): FileIdentity | null {
  try {
    const info = Deno.statSync(path);
    return { dev: info.dev, ino: info.ino ?? 0 };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return null;
    throw err;
  }
}

/** The deleted or replaced sentence, when the path no longer names the opened file. Pure. */
export function identityProblem(
  facts: Pick<LedgerFileFacts, "path" | "opened" | "current">,
): LedgerFileProblem | null {
  if (facts.opened === null) return null;
  if (facts.current === null) {
    return {
      kind: "deleted",
      sentence:
        `the ledger file ${facts.path} was deleted while asm had it open; asm stopped writing (hook ` +
        "events wait in the inbox): stop asm and run asm rebuild",
    };
  }
  if (facts.current.dev !== facts.opened.dev || facts.current.ino !== facts.opened.ino) {
    return {
      kind: "replaced",
      sentence:
        `the ledger file ${facts.path} was replaced by another file while asm had it open; asm stopped ` +
        "writing (hook events wait in the inbox): restart asm to use the new file, or put the old one back",
    };
  }
  return null;
}

/** The first thing wrong with the ledger's file, or null. Pure. */
export function ledgerFileProblem(facts: LedgerFileFacts): LedgerFileProblem | null {
  const moved = identityProblem(facts);
  if (moved) return moved;
  if (facts.fileWritable === false) {
    return {
      kind: "read-only",
      sentence: `the ledger file ${facts.path} is read-only; asm holds its writes (hook events wait in the ` +
        `inbox) until it is writable again (chmod u+w ${facts.path}), no restart needed`,
    };
  }
  if (facts.folderWritable === false) {
    return {
      kind: "folder read-only",
      sentence:
        `the ledger's folder ${dirOf(facts.path)} is not writable, so SQLite could not open the ledger ` +
        "there again; asm holds its writes (hook events wait in the inbox) until it is (chmod u+w), no restart " +
        "needed",
    };
  }
  return null;
}

/**
 * Free space below which the ledger's disk is reported (and no snapshot is taken): SQLite needs room for its WAL
 * and a checkpoint, and a disk this full fails the next large write.
 */
export const LEDGER_MIN_FREE_BYTES = 256 * 1024 * 1024;

/** The bytes an unprivileged writer may still use on the file system holding `path`; null when unknown. */
export function freeBytesAt(path: string): number | null {
  try {
    const fs = statfsSync(path);
    return Number(fs.bavail) * Number(fs.bsize);
  } catch {
    return null; // no statfs here (or the path is gone): the health model says "unknown", not "full"
  }
}

function dirOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at <= 0 ? "/" : path.slice(0, at);
}
