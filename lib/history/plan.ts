/**
 * Which transcript files an import reads, and from where, pure: a file whose (size, mtime) match what was read
 * last time is skipped without being opened; the same file (same inode) that grew is read on from its saved
 * offset; anything else (new, shrunk, replaced, or a file that is one JSON document rewritten whole) is read from
 * the start.
 * @module
 */
import type { TranscriptFile } from "../derive/mod.ts";
import { isoAt, type KnownFile } from "../ledger/mod.ts";

/** One file to read. */
export interface ReadPlan {
  file: TranscriptFile;
  /** "resume": read on from `from` with the saved fold state; "full": from byte 0, a fresh fold. */
  mode: "full" | "resume";
  from: number;
  known: KnownFile | null;
}

/** The plan of one import. */
export interface ImportPlan {
  reads: ReadPlan[];
  unchanged: number;
}

/** True when the file is exactly what was read last time. */
export function isUnchanged(file: TranscriptFile, known: KnownFile | undefined): boolean {
  return known !== undefined && known.size === file.size && known.mtime === isoAt(file.mtimeMs) &&
    (known.ino === null || file.ino === null || known.ino === file.ino);
}

/** Plans the reads: unchanged files are only counted; the rest are read, in path order. */
export function planReads(files: TranscriptFile[], known: Map<string, KnownFile>): ImportPlan {
  const reads: ReadPlan[] = [];
  let unchanged = 0;
  for (const file of files) {
    const k = known.get(file.path);
    if (isUnchanged(file, k)) {
      unchanged++;
      continue;
    }
    const sameFile = k !== undefined && k.agent === file.agent &&
      (k.ino === null || file.ino === null || k.ino === file.ino);
    if (sameFile && !file.whole && file.size >= k.size && k.read_offset > 0 && k.read_offset <= file.size) {
      reads.push({ file, mode: "resume", from: k.read_offset, known: k });
    } else reads.push({ file, mode: "full", from: 0, known: k ?? null });
  }
  reads.sort((a, b) => a.file.agent.localeCompare(b.file.agent) || a.file.path.localeCompare(b.file.path));
  return { reads, unchanged };
}
