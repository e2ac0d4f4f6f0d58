/**
 * The cutover's journal: `$ASM_HOME/cutover/journal.jsonl`, one JSON record per line, each appended and synced
 * before the step it announces runs; and its copies: `$ASM_HOME/cutover/blobs/<sha256>`, the bytes every file a
 * step touches had before it (content-addressed, so a file two steps touch is kept once). The rollback reads
 * only these, so it works after any crash: what the journal says began is what gets undone.
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { errorText, isRecord } from "../lang/mod.ts";
import { identityOf, isSameProcess } from "../procs/mod.ts";

/** A file as the journal keeps it: its content's hash (null: no file there) and its permission bits. */
export interface FileState {
  sha256: string | null;
  mode: number | null;
}

/** A file before a step: its state, and where a copy of its bytes is kept (null: there was no file). */
export interface FileBefore extends FileState {
  path: string;
  blob: string | null;
}

/** A file after a step. */
export interface FileAfter extends FileState {
  path: string;
}

/** Facts a step records beside its files (what systemd and the server were), as JSON. */
export type StepFacts = Record<string, unknown>;

/** One line of the journal. */
export type JournalRecord =
  | { kind: "cutover"; run: string; at: string; options: StepFacts; preflight: string[] }
  | {
    kind: "begin";
    run: string;
    at: string;
    step: number;
    name: string;
    files: FileBefore[];
    facts: StepFacts;
  }
  | {
    kind: "done";
    run: string;
    at: string;
    step: number;
    files: FileAfter[];
    facts: StepFacts;
    detail: string;
  }
  | { kind: "failed"; run: string; at: string; step: number; error: string }
  | { kind: "finished"; run: string; at: string }
  | { kind: "undo"; run: string; at: string; step: number; lines: string[] }
  | { kind: "rolled-back"; run: string; at: string; lines: string[] };

/** A record without its time (the journal stamps it). */
export type NewRecord = JournalRecord extends infer R ? R extends JournalRecord ? Omit<R, "at"> : never
  : never;

/** Files at or above this size are kept by a hard link (asm's own binaries, replaced by rename), not copied. */
const LINK_AT_BYTES = 8 * 1024 * 1024;

/** The journal and its copies, in a data folder. */
export class Journal {
  readonly folder: string;
  readonly path: string;
  readonly blobs: string;

  constructor(asmHome: string) {
    this.folder = join(asmHome, "cutover");
    this.path = join(this.folder, "journal.jsonl");
    this.blobs = join(this.folder, "blobs");
  }

  /** Every record, oldest first; a last line cut short by a crash is left out (it never finished being said). */
  records(): JournalRecord[] {
    let text: string;
    try {
      text = Deno.readTextFileSync(this.path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return [];
      throw err;
    }
    const out: JournalRecord[] = [];
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        const record = JSON.parse(line);
        if (isRecord(record) && typeof record.kind === "string") out.push(record as JournalRecord);
      } catch (err) {
        if (i < lines.length - 1 && lines.slice(i + 1).some((l) => l.trim() !== "")) {
          throw new Error(
            `${this.path} line ${i + 1} is not JSON (${errorText(err)}); the journal was edited`,
          );
        }
      }
    });
    return out;
  }

  /** Appends one record and syncs it to disk before returning. */
  append(record: NewRecord): JournalRecord {
    Deno.mkdirSync(this.blobs, { recursive: true, mode: 0o700 });
    const full = { ...record, at: new Date().toISOString() } as JournalRecord;
    const file = Deno.openSync(this.path, { append: true, create: true, mode: 0o600 });
    try {
      file.writeSync(new TextEncoder().encode(JSON.stringify(full) + "\n"));
      file.syncSync();
    } finally {
      file.close();
    }
    return full;
  }

  /** The state of a file now and, when it exists, a kept copy of its bytes. */
  keep(path: string): FileBefore {
    const state = fileState(path);
    if (state.sha256 === null) return { path, ...state, blob: null };
    if (state.mode === null) {
      throw new Error(`${path} is ${state.sha256}; the cutover keeps regular files only`);
    }
    Deno.mkdirSync(this.blobs, { recursive: true, mode: 0o700 });
    const blob = join(this.blobs, state.sha256);
    if (fileState(blob).sha256 !== state.sha256) {
      const partial = `${blob}.partial-${Deno.pid}`;
      let linked = false;
      if (Deno.statSync(path).size >= LINK_AT_BYTES) {
        try {
          Deno.linkSync(Deno.realPathSync(path), partial);
          linked = true;
        } catch { /* another file system: copied instead */ }
      }
      if (!linked) {
        Deno.copyFileSync(path, partial);
        // a copy is the data folder's: private, whatever the original's mode (recorded in the journal)
        Deno.chmodSync(partial, 0o600);
      }
      Deno.renameSync(partial, blob);
    }
    return { path, ...state, blob: state.sha256 };
  }

  /** The kept bytes of a hash, or null when the copy is gone or no longer those bytes. */
  kept(sha256: string): Uint8Array | null {
    try {
      const bytes = Deno.readFileSync(join(this.blobs, sha256));
      return sha256Of(bytes) === sha256 ? bytes : null;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  }
}

/** sha256 of bytes, hex. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A file's state now (through links, as the agents read it); no file: both null. */
export function fileState(path: string): FileState {
  try {
    const info = Deno.statSync(path);
    if (!info.isFile) {
      return { sha256: `not a file (${info.isDirectory ? "a folder" : "special"})`, mode: null };
    }
    return {
      sha256: sha256Of(Deno.readFileSync(path)),
      mode: info.mode === null ? null : info.mode & 0o7777,
    };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { sha256: null, mode: null };
    throw err;
  }
}

/**
 * One cutover or rollback at a time in a data folder: `cutover/lock` holds the running one's identity (pid, start
 * ticks, boot id). A lock whose process is gone is taken over; a live one is refused with who holds it. Returns
 * the release, or the sentence of the refusal.
 */
export function takeCutoverLock(asmHome: string, what: string): (() => void) | string {
  const folder = join(asmHome, "cutover");
  Deno.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, "lock");
  const me = identityOf(Deno.pid);
  const text = JSON.stringify({
    pid: Deno.pid,
    procStart: me?.procStart ?? null,
    bootId: me?.bootId ?? null,
    what,
  });
  // the lock appears whole or not at all (written aside, then linked in): a second run never reads it half-written
  // and takes it for a dead one's
  const aside = `${path}.${Deno.pid}`;
  Deno.writeTextFileSync(aside, text, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        Deno.linkSync(aside, path);
        return () => {
          try {
            if (Deno.readTextFileSync(path) === text) Deno.removeSync(path);
          } catch { /* gone already */ }
        };
      } catch (err) {
        if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
      }
      let held: { pid?: number; procStart?: number; bootId?: string | null; what?: string } = {};
      try {
        held = JSON.parse(Deno.readTextFileSync(path));
      } catch {
        /* unreadable (it is never half written): no live process is named, so it is stale */
      }
      if (
        typeof held.pid === "number" && typeof held.procStart === "number" &&
        isSameProcess({ pid: held.pid, procStart: held.procStart, bootId: held.bootId ?? null })
      ) {
        return `asm ${held.what ?? "cutover"} (pid ${held.pid}) is running on ${asmHome}: wait for it to end`;
      }
      // its process is gone (killed mid-step): the journal says what it did; the lock is taken over
      Deno.removeSync(path);
    }
    return `${path} could not be taken`;
  } finally {
    Deno.removeSync(aside);
  }
}
