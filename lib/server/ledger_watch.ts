/**
 * The server's watch over the ledger's file (the shell of the ledger part of the health model): is the path
 * still the file the server opened, can the file and its folder be written, how much room is left. It holds the
 * ledger's writes while the file or its folder is read-only and lets them go when the mode is fixed (no restart:
 * the connection was never closed), says so in one `server.log` line per change, and when the ledger was deleted
 * or replaced under the server it saves what the open connection still reads into a snapshot at once.
 *
 * It also says, once per statement, when a read met a stored number too large to be one (beyond 2^53: no value
 * asm stores is that large, so an older asm or a hand edit put it there) and read it as empty instead of failing
 * (lib/ledger `wide_reads.ts`).
 *
 * Whether a file can be written is asked of the kernel in a child (`test -w`, which is faccessat): Deno's
 * node:fs `access` answers from the mode bits (wrong for root, blind to `chattr +i`), and opening the ledger file
 * in this process would drop SQLite's locks on it when closed.
 * @module
 */
import { dirname } from "node:path";
import { freeBytesAt, type Ledger, type LedgerFileFacts, ledgerFileProblem } from "../ledger/mod.ts";
import { takeSnapshot } from "../recovery/mod.ts";
import { type Clock, errorText, type Log } from "../lang/mod.ts";

/** Whether `file` can be opened for writing and a file created in `folder`, by this process's user. */
export type WritableProbe = (file: string, folder: string) => Promise<{ file: boolean; folder: boolean }>;

/** The kernel's answer, from `test -w` in a child process (a few ms). */
export async function probeWritable(
  file: string,
  folder: string,
): Promise<{ file: boolean; folder: boolean }> {
  const out = await new Deno.Command("sh", {
    args: ["-c", 'test -w "$1"; echo $?; test -w "$2"; echo $?', "sh", file, folder],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  const [fileCode, folderCode] = new TextDecoder().decode(out.stdout).trim().split("\n");
  return { file: fileCode === "0", folder: folderCode === "0" };
}

/** The ledger part's facts. */
export type LedgerWatchFacts = LedgerFileFacts & { freeBytes: number | null };

/** What the watch needs. */
export interface LedgerWatchDeps {
  ledger: Ledger;
  asmHome: string;
  log: Log;
  /** default {@link probeWritable} */
  probe?: WritableProbe;
  /** the probe's answer is reused for this long (default 1.5 s: the watch service looks every 2 s) */
  probeEveryMs?: number;
  now?: Clock;
}

/** One server's watch. */
export class LedgerWatch {
  #deps: LedgerWatchDeps;
  #probed: { at: number; file: boolean; folder: boolean } | null = null;
  /** the problem last logged (null: none), so a lasting problem is one line, not one per look */
  #announced: string | null = null;
  #looking: Promise<LedgerWatchFacts> | null = null;

  constructor(deps: LedgerWatchDeps) {
    this.#deps = deps;
  }

  /** Looks now (or joins the look in progress); holds or lets go the ledger's writes; returns the facts. */
  check(): Promise<LedgerWatchFacts> {
    this.#looking ??= this.#look().finally(() => (this.#looking = null));
    return this.#looking;
  }

  async #look(): Promise<LedgerWatchFacts> {
    const { ledger } = this.#deps;
    for (const sql of ledger.takeWideReads()) {
      this.#deps.log({
        what: "ledger: a stored number too large to be one was read as empty",
        read: sql.replace(/\s+/g, " ").trim().slice(0, 200),
      });
    }
    const now = this.#deps.now ?? Date.now;
    const folder = dirname(ledger.path);
    if (ledger.fileIdentities().opened !== null) {
      if (this.#probed === null || now() - this.#probed.at >= (this.#deps.probeEveryMs ?? 1500)) {
        try {
          const answer = await (this.#deps.probe ?? probeWritable)(ledger.path, folder);
          this.#probed = { at: now(), ...answer };
        } catch {
          // no child could be started (the process is out of file descriptors): the last answer stands, and
          // the server's own faults say why (lib/server faults.ts); the health must still answer
        }
      }
    }
    // the identity after the probe's await: it is what the ledger checks before its next write
    const ids = ledger.fileIdentities();
    const moved = ids.opened !== null &&
      (ids.current === null || ids.current.dev !== ids.opened.dev || ids.current.ino !== ids.opened.ino);
    const facts: LedgerFileFacts = {
      ...ids,
      // a deleted file's modes mean nothing; the probe answered for whatever is at the path
      fileWritable: moved || this.#probed === null ? null : this.#probed.file,
      folderWritable: this.#probed === null ? null : this.#probed.folder,
    };
    const problem = ledgerFileProblem(facts);
    // the ledger checks deleted and replaced itself before every write; read-only is the watch's to hold
    ledger.holdWrites(problem && !moved ? problem.sentence : null);
    const sentence = problem?.sentence ?? null;
    if (sentence !== this.#announced) {
      this.#announced = sentence;
      if (problem === null) this.#deps.log({ what: "ledger writable again" });
      else if (moved) {
        this.#deps.log({ what: "ledger refuses writes", why: sentence, ...await this.#rescue() });
      } else this.#deps.log({ what: "ledger writes held", why: sentence });
    }
    return { ...facts, freeBytes: freeBytesAt(folder) };
  }

  /** What the open connection still reads, saved as the newest snapshot: a deleted file is readable only here. */
  async #rescue(): Promise<{ saved: string } | { not_saved: string }> {
    const { ledger, asmHome } = this.#deps;
    try {
      const report = await takeSnapshot({ asmHome, copy: (target) => ledger.snapshotInto(target) });
      return { saved: report.snapshot.path };
    } catch (err) {
      return { not_saved: errorText(err) };
    }
  }
}
