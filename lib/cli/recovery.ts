/**
 * `./asm health` (the running server's health model, printed) and `./asm rebuild` (the ledger restored from its
 * newest snapshot, the retained hook events replayed, the transcripts imported again). A rebuild replaces the
 * ledger file, so it refuses while a server runs; it holds the writer lock while it restores and replays, then
 * runs the import as `./asm import` does.
 * @module
 */
import { join } from "node:path";
import { asmHome as defaultAsmHome, type Env, harnessRoots } from "../config/paths.ts";
import { isoAt, Ledger } from "../ledger/mod.ts";
import {
  acquireWriterLock,
  AlreadyRunningError,
  callServer,
  currentHolder,
  healthText,
  registryOrphanReason,
  runningServer,
} from "../server/mod.ts";
import { replayProcessed, restoreNewestSnapshot, snapshotsDir } from "../recovery/mod.ts";
import { type CliOutput, consoleOutput, importCli } from "./history.ts";
import { errorText } from "../lang/mod.ts";

/** `./asm health [--json]`: exit 0 when the server says ok, 1 when it does not or does not answer. */
export async function healthCli(
  options: { asmHome?: string; json?: boolean; out?: CliOutput } = {},
): Promise<number> {
  const home = options.asmHome ?? defaultAsmHome();
  const out = options.out ?? consoleOutput();
  const server = runningServer(home);
  if (server === null) {
    out.line(`asm health: no server is running for ${home}; start one with asm serve`);
    return 1;
  }
  let body: { ok?: boolean; error?: string };
  try {
    const res = await callServer(server, "/api/health");
    body = await res.json();
    if (!res.ok) {
      out.line(`asm health: the server answered ${res.status}: ${body.error ?? "no reason given"}`);
      return 1;
    }
  } catch (err) {
    out.line(`asm health: asm is not answering on port ${server.port} (${errorText(err)})`);
    return 1;
  }
  out.line(
    options.json ? JSON.stringify(body, null, 2) : healthText(body as Parameters<typeof healthText>[0]),
  );
  return body.ok === true ? 0 : 1;
}

/** Prints at most one progress line a second (on a terminal, one rewritten line), and the last one. */
function replayPrinter(out: CliOutput): (done: number, total: number) => void {
  let last = 0;
  return (done, total) => {
    const text = `replaying retained events: ${done} of ${total} file(s)`;
    if (out.status) {
      out.status(done === total ? "" : text);
      return;
    }
    if (done === total || Date.now() - last >= 1000) {
      last = Date.now();
      out.line(text);
    }
  };
}

function inboxCount(home: string): number {
  try {
    return [...Deno.readDirSync(join(home, "inbox"))].filter((e) => e.isFile && e.name.endsWith(".json"))
      .length;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return 0;
    throw err;
  }
}

/** `./asm rebuild`: returns the exit code. */
export async function rebuildCli(
  options: { asmHome?: string; env?: Env; out?: CliOutput } = {},
): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  const home = options.asmHome ?? defaultAsmHome(env);
  const out = options.out ?? consoleOutput();
  const say = (text: string) => out.line(`asm rebuild: ${text}`);
  const holder = currentHolder(home);
  if (holder !== null) {
    say(`${new AlreadyRunningError(holder).message}; a rebuild replaces the ledger that process has open`);
    return 1;
  }
  const lock = acquireWriterLock(home, { mode: "rebuild" });
  try {
    const restore = restoreNewestSnapshot(home);
    say(
      restore.asideAs
        ? `the old ledger is kept as ${restore.asideAs} (asm never deletes it)`
        : "there was no ledger file to keep",
    );
    const ledger = Ledger.open(join(home, "ledger.sqlite"), { harnessRoots: harnessRoots(home) });
    try {
      const sessions = ledger.counts().sessions;
      say(
        restore.snapshot
          ? `restored the snapshot of ${isoAt(restore.snapshot.takenAt)} (${restore.snapshot.path}): ` +
            `${sessions} session(s)`
          : `no snapshot in ${snapshotsDir(home)}: the ledger starts empty`,
      );
      const replay = replayProcessed({
        asmHome: home,
        ledger,
        orphanReason: registryOrphanReason(home),
        onProgress: replayPrinter(out),
      });
      say(
        `${replay.files} retained event file(s) in processed/: ${replay.applied} applied again, ` +
          `${replay.duplicates} already in the ledger, ${replay.ignored} kept as evidence only, ` +
          `${replay.unreadable} could not be used` +
          (replay.dropped > 0
            ? `; ${replay.dropped} with values out of range left out (as the drain does)`
            : ""),
      );
      for (const problem of replay.problems) say(`  ${problem}`);
    } finally {
      ledger.close();
    }
  } finally {
    lock.release();
  }
  say("importing the transcripts again");
  const code = await importCli({ asmHome: home, env, out });
  const waiting = inboxCount(home);
  say(
    `done${waiting ? `; ${waiting} event file(s) wait in the inbox, applied when the server starts` : ""}. ` +
      "Start asm again with asm serve",
  );
  return code;
}
