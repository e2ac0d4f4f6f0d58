/**
 * `./asm health` (the running server's health model, printed) and `./asm rebuild` (the ledger restored from its
 * newest snapshot, the retained hook events replayed, the board's card links restored, the transcripts imported
 * again). A rebuild replaces the ledger file, so it refuses while a server runs; it holds the writer lock while it
 * restores, replays and restores the links, then runs the import as `./asm import` does.
 * @module
 */
import { join } from "node:path";
import { asmHome as defaultAsmHome, type Env, harnessRoots } from "../config/paths.ts";
import { loadSettings } from "../config/mod.ts";
import type { BoardRead } from "../board/mod.ts";
import { configuredOutliner } from "../reconcile/mod.ts";
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
import {
  type CardLinkReport,
  replayProcessed,
  restoreCardLinks,
  restoreNewestSnapshot,
  snapshotsDir,
} from "../recovery/mod.ts";
import { type CliOutput, consoleOutput, importCli } from "./history.ts";
import { errorText } from "../lang/mod.ts";
import { pathExists } from "../files/mod.ts";

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

/**
 * The board as the next server will see it (config.toml's `[board]`, in its mode: `ASM_MODE=testing` forces
 * testing, as it does for the server), read without writing anything: a board file that is not there is said,
 * not made.
 */
function boardReader(home: string, env: Env): () => Promise<BoardRead> {
  return async () => {
    const loaded = loadSettings(home);
    const forced = env.ASM_MODE === "testing";
    if (!forced && loaded.refusal !== null) throw new Error(loaded.refusal);
    const mode = forced ? "testing" : loaded.settings.mode;
    const outliner = configuredOutliner(home, mode, loaded.settings.board);
    if (typeof outliner === "string") throw new Error(outliner);
    if (outliner.backend === "markdown" && !pathExists(outliner.location)) {
      throw new Error(`there is no board file at ${outliner.location}`);
    }
    return await outliner.read({ fresh: true, create: false });
  };
}

/** Up to five card ids, and how many more. */
function someCards(ids: readonly string[]): string {
  return ids.slice(0, 5).join(", ") + (ids.length > 5 ? ` and ${ids.length - 5} more` : "");
}

/** What a rebuild says of the card links: how many it restored, from where, how many it could not, and why. */
export function cardLinkLines(report: CardLinkReport, snapshotAt: string | null): string[] {
  const lines: string[] = [];
  if (report.asideProblem !== null) {
    lines.push(`the ledger set aside cannot give its card links: ${report.asideProblem}`);
  }
  if (report.source === null) {
    const why = report.asideProblem === null
      ? "no ledger was set aside"
      : "the ledger set aside could not give them";
    lines.push(`card links: none restored: there is no snapshot, and ${why}`);
  } else {
    const from = report.source === "aside"
      ? "from the ledger set aside"
      : `from the snapshot of ${snapshotAt}, their dropped and completed marks as the board shows the cards now`;
    const launched = report.boundByLaunch.length;
    const gone = report.notRestored.map((n) => n.cardId);
    lines.push(
      `card links: ${report.links.length} restored ${from}` +
        (launched > 0 ? ` (${launched} bound to the session their card's launch made)` : "") +
        (gone.length > 0
          ? `; ${gone.length} not restored: their card is no longer on the board (${someCards(gone)})`
          : "; 0 not restored"),
    );
  }
  if (report.boardProblem !== null) {
    lines.push(
      `the board could not be read (${report.boardProblem}), so the links were restored without checking that ` +
        "their cards are still on it",
    );
  }
  if (report.source === "aside") return lines;
  const lost = report.source === "snapshot"
    ? `links made or changed after ${snapshotAt} cannot be restored`
    : "links made before this rebuild cannot be restored";
  const unlinked = report.unlinkedInProcess;
  if (unlinked.length > 0) {
    lines.push(
      `${lost}: ${unlinked.length} card(s) in IN PROCESS have no session now (${
        someCards(unlinked)
      }); the next ` +
        "pass gives each the live session whose title matches it, or drops it to SPRINT PLAN",
    );
  } else if (report.source === "snapshot") {
    lines.push(lost + (report.boardProblem === null ? "; every card in IN PROCESS has its session" : ""));
  }
  return lines;
}

/**
 * The record a rebuild keeps while it runs (`$ASM_HOME/rebuild.pending`): the path of the ledger it set aside,
 * removed once the card links are restored from it.
 */
export const REBUILD_PENDING = "rebuild.pending";

/** The set-aside ledger a rebuild cut short names, when its record and that file are both still there. */
function pendingAside(path: string): string | null {
  let named: string;
  try {
    named = Deno.readTextFileSync(path).trim();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  return named !== "" && pathExists(named) ? named : null;
}

/** Writes the record (0600, whole or not at all). */
function writePendingAside(path: string, asideAs: string): void {
  Deno.writeTextFileSync(`${path}.tmp`, asideAs + "\n", { mode: 0o600 });
  Deno.renameSync(`${path}.tmp`, path);
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
    // a rebuild cut short (killed, a full disk) left a ledger that holds only the snapshot: the card links are
    // in the ledger that rebuild set aside, which its record names; this rebuild takes them from there
    const pending = join(home, REBUILD_PENDING);
    const earlier = pendingAside(pending);
    const restore = restoreNewestSnapshot(home, Date.now, (asideAs) => {
      // written before the snapshot is copied in: a rebuild cut short from here on leaves the record behind
      if (earlier === null && asideAs !== null) writePendingAside(pending, asideAs);
    });
    say(
      restore.asideAs
        ? `the old ledger is kept as ${restore.asideAs} (asm never deletes it)`
        : "there was no ledger file to keep",
    );
    if (earlier !== null) {
      say(
        `an earlier rebuild was cut short: the card links come from the ledger it set aside, ${earlier}, not ` +
          "from the one it left",
      );
    }
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
      const links = await restoreCardLinks({
        ledger,
        asidePath: earlier ?? restore.asideAs,
        fromSnapshot: restore.snapshot !== null,
        readBoard: boardReader(home, env),
      });
      const snapshotAt = restore.snapshot ? isoAt(restore.snapshot.takenAt) : null;
      for (const line of cardLinkLines(links, snapshotAt)) say(line);
      // the links are in: nothing of the earlier ledger is needed any more
      if (pathExists(pending)) Deno.removeSync(pending);
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
