/**
 * Which transcript files an import reads, and from where, pure: a file whose (size, mtime) match what was read
 * last time is skipped without being opened; the same file (same inode) that grew is read on from its saved
 * offset; anything else (new, shrunk, replaced, a file that is one JSON document rewritten whole, or one only
 * phase one has read the ends of) is read from the start. Newest first: on a first run the sessions a person
 * worked in last are derived first.
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
  /** phase one has not listed it as it is now (new, or listed before it changed): its ends are read first */
  unlisted: boolean;
}

/** The plan of one import. */
export interface ImportPlan {
  reads: ReadPlan[];
  unchanged: number;
}

/** True when the file is exactly what was read last time (ends or whole). */
function sameFile(file: TranscriptFile, known: KnownFile | undefined): boolean {
  return known !== undefined && known.size === file.size && known.mtime === isoAt(file.mtimeMs) &&
    (known.ino === null || file.ino === null || known.ino === file.ino);
}

/** True when the file is exactly what the full pass read last time. */
export function isUnchanged(file: TranscriptFile, known: KnownFile | undefined): boolean {
  return sameFile(file, known) && !known!.listed;
}

/** Plans the reads: unchanged files are only counted; the rest are read, newest first. */
export function planReads(files: TranscriptFile[], known: Map<string, KnownFile>): ImportPlan {
  const reads: ReadPlan[] = [];
  let unchanged = 0;
  for (const file of files) {
    const k = known.get(file.path);
    if (isUnchanged(file, k)) {
      unchanged++;
      continue;
    }
    const same = k !== undefined && k.agent === file.agent &&
      (k.ino === null || file.ino === null || k.ino === file.ino);
    const unlisted = k === undefined || (k.listed && !sameFile(file, k));
    if (
      same && !k.listed && !file.whole && file.size >= k.size && k.read_offset > 0 &&
      k.read_offset <= file.size
    ) {
      reads.push({ file, mode: "resume", from: k.read_offset, known: k, unlisted });
    } else reads.push({ file, mode: "full", from: 0, known: k ?? null, unlisted });
  }
  reads.sort((a, b) => b.file.mtimeMs - a.file.mtimeMs || a.file.path.localeCompare(b.file.path));
  return { reads, unchanged };
}
