/**
 * The inbox drain: hook event files into the ledger, idempotent on event_id. A file is moved to
 * `processed/<date>/` only after its transaction committed, so a crash between the two re-reads a file whose
 * event is already stored, and the ledger discards it as a duplicate: nothing lost, nothing applied twice.
 *
 * Every file is on its own: one the drain cannot read, parse or move never stops the pass. It goes to `rejected/`
 * with one `server.log` line naming it and why, or, when even that move fails, its name is remembered and skipped
 * (one line). A skipped name is not given up on: its cause (a folder made unwritable, a file where `processed/`
 * should be) is often fixed by hand while the server runs, so each pass tries a few skipped names again, the
 * least recently tried first, and one line says when one finally goes through. Only a regular `*.json` file is
 * ever opened, through the no-follow, non-blocking open of lib/files; a link, a folder, a FIFO or a name that is
 * not UTF-8 is moved aside as the entry it is.
 *
 * Every value of an event is checked on the way in (lib/ledger `parseEvent`, the ranges in `bounds.ts`): one out
 * of range is stored as null, the rest of the event kept, and one log line per event names what was dropped.
 * @module
 */
import { join } from "node:path";
import { BadEventError, type HookEvent, isoAt, Ledger, LedgerError, parseEvent } from "../ledger/mod.ts";
import { RefusedFile } from "../files/mod.ts";
import { type Clock, errorText, type Log, type LogLine } from "../lang/mod.ts";
import { type DrainIo, type InboxEntry, REAL_DRAIN_IO } from "./io.ts";
import { type DrainMemory, judgePass, newDrainMemory, type PassFacts } from "./health.ts";

/** The hook's own limit on an agent's payload (`MAX_PAYLOAD_BYTES` in hooks/hook.ts; a test keeps them equal). */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * The largest event file the drain reads: the hook's payload limit plus room for what the hook adds around the
 * payload (ancestors, paths, notes). A larger file cannot have come from the hook; it is rejected having read
 * at most this + 1 bytes.
 */
export const MAX_EVENT_FILE_BYTES = MAX_PAYLOAD_BYTES + 256 * 1024;

/**
 * Skipped names that fail again when tried, per pass, before the pass stops trying them: while the cause lasts,
 * a thousand skipped names cost each pass this many failed renames, not a thousand; once it is gone, every
 * skipped name goes through in one pass (up to the batch), since a success does not count.
 */
export const SKIPPED_RETRY_FAILURES = 4;

/** A name the drain could not move aside: why, and what a later pass tries with it. */
export interface SkippedName {
  /** why it is skipped, as the log and the health say it (with the latest failure of its move) */
  why: string;
  /**
   * what a later pass tries: `processed`, the move to `processed/<date>/` of a file whose event is stored;
   * `rejected`, the move to `rejected/`; null, nothing (a name that is not UTF-8, which asm cannot move at all)
   */
  retry: "processed" | "rejected" | null;
  /** why it is being rejected (`rejected`), kept while the move's own failure changes */
  rejectedFor: string | null;
  /** the stored event's id (`processed`): the move is made only while the ledger holds it */
  eventId: string | null;
  /** when it was first skipped (epoch ms) */
  since: number;
}

/** What the drain keeps between passes (the server keeps one in its state). */
export interface DrainState extends DrainMemory {
  /**
   * names that could not be moved aside, least recently tried first: each pass tries a few again, and a name is
   * forgotten once it went through or is gone
   */
  remembered: Map<string, SkippedName>;
  /** the last pass-wide error logged, so the same one is not logged again every 2 s */
  lastLogged: string | null;
}

/** A drain's state before its first pass. */
export function newDrainState(): DrainState {
  return { ...newDrainMemory(), remembered: new Map(), lastLogged: null };
}

/** What the drain needs. */
export interface DrainDeps {
  asmHome: string;
  ledger: Ledger;
  /** one line per notable thing (a rejected file, an ignored event) */
  log: Log;
  /** parse failures per file name, kept between drains: the second failure rejects the file */
  failures: Map<string, number>;
  /**
   * what the drain keeps between passes (skipped names, its health); without one, each pass starts afresh and
   * its health is thrown away
   */
  state?: DrainState;
  /**
   * the rule for an event whose session has no row yet: a reason to store it as evidence without applying it
   * (e.g. Codex's notify for a thread that has no transcript), or null; never asked about a known session
   */
  orphanReason?: (event: HookEvent) => string | null;
  /** most event files per pass; the rest wait for the next pass */
  batch?: number;
  /** the clock, for the processed/<date> folder and the health's times */
  now?: Clock;
  /** the file operations (default: the real file system) */
  io?: DrainIo;
}

/** What one drain pass did. */
export interface DrainReport {
  listed: number;
  applied: number;
  duplicates: number;
  ignored: number;
  /** files that failed to parse for the first time: retried next pass */
  failed: number;
  /** files moved to `rejected/` */
  rejected: number;
  /** files whose event the ledger could not write (a full disk): left in the inbox for the next pass */
  write_failed: number;
  /**
   * files the process could not open (out of file descriptors or memory): the trouble is the server's, not the
   * file's, so they are left in the inbox for the next pass, never rejected
   */
  unread: number;
  /** names newly skipped: not even a move aside worked */
  remembered: number;
  /** skipped names that went through this pass (moved to `processed/` or `rejected/`, or applied) */
  recovered: number;
  /** files waiting in the inbox at the end of the pass */
  backlog: number;
}

const WORDS: Record<Exclude<InboxEntry["kind"], "file" | "unnameable">, string> = {
  link: "a link",
  folder: "a folder",
  fifo: "a FIFO",
  socket: "a socket",
  device: "a device",
};

function byAge(a: InboxEntry, b: InboxEntry): number {
  return a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** One pass over the inbox. Events of the pass are applied in timestamp order. */
export function drainOnce(deps: DrainDeps): DrainReport {
  const io = deps.io ?? REAL_DRAIN_IO;
  const state = deps.state ?? newDrainState();
  const now = deps.now ?? Date.now;
  const inbox = join(deps.asmHome, "inbox");
  const day = new Date(now()).toISOString().slice(0, 10);
  const processed = join(deps.asmHome, "processed", day);
  const rejected = join(deps.asmHome, "rejected");
  const report: DrainReport = {
    listed: 0,
    applied: 0,
    duplicates: 0,
    ignored: 0,
    failed: 0,
    rejected: 0,
    write_failed: 0,
    unread: 0,
    remembered: 0,
    recovered: 0,
    backlog: 0,
  };

  let entries: InboxEntry[];
  try {
    entries = io.list(inbox);
  } catch (err) {
    const why = `the drain cannot list ${inbox}: ${errorText(err)}`;
    // the health first: on a full disk the log line itself may fail
    settle(state, { at: now(), ran: false, backlog: 0, rejected: 0, failing: 0, error: why });
    logOnce(state, deps.log, why, { what: "drain failed", why });
    return report;
  }

  // what is still in the inbox as the pass goes: the backlog is what is left at its end
  const waiting = new Set<string>();
  // names of this pass that were skipped before (tried again, or back in the pass to be read as any file), and
  // when each was first skipped: the line that says one went through is written once, and a skip is not said twice
  const skippedBefore = new Map<string, number>();
  const remember = (name: string, skipped: Omit<SkippedName, "since">) => {
    const since = skippedBefore.get(name);
    state.remembered.set(name, { ...skipped, since: since ?? now() });
    waiting.delete(name);
    if (since !== undefined) return; // said when it was first skipped
    const next = skipped.retry === null
      ? "asm skips it until it is gone"
      : "asm tries again on later passes and says so when it goes through";
    deps.log({ what: "drain skips file", file: name, why: `${skipped.why}; ${next}` });
    report.remembered++;
  };
  const tookSkipped = (name: string, to: string) => {
    const since = skippedBefore.get(name);
    if (since === undefined) return;
    deps.log({ what: "drain took skipped file", file: name, to, skipped_since: isoAt(since) });
    report.recovered++;
  };
  const reject = (name: string, why: string) => {
    deps.failures.delete(name);
    let movedAs: string;
    try {
      movedAs = io.move(join(inbox, name), rejected, name);
    } catch (err) {
      remember(name, { why: rejectedWhy(why, err), retry: "rejected", rejectedFor: why, eventId: null });
      return;
    }
    waiting.delete(name);
    deps.log({ what: "rejected", file: name, why, ...(movedAs === name ? {} : { as: movedAs }) });
    report.rejected++;
    tookSkipped(name, `rejected/${movedAs}`);
  };
  const fail = (name: string, why: string) => {
    const count = (deps.failures.get(name) ?? 0) + 1;
    if (count >= 2) return reject(name, why);
    deps.failures.set(name, count);
    report.failed++;
  };

  const listedNames = new Set(entries.map((e) => e.name));
  // a name someone removed by hand is forgotten, so the health recovers without a restart
  for (const name of state.remembered.keys()) if (!listedNames.has(name)) state.remembered.delete(name);
  for (const name of deps.failures.keys()) if (!listedNames.has(name)) deps.failures.delete(name);

  // the skipped names whose cause may have gone since (a folder fixed by hand): tried again, least recently
  // tried first, until SKIPPED_RETRY_FAILURES of them fail again
  const retried = retrySkipped(state, {
    tries: deps.batch ?? 2000,
    stored: (eventId) => deps.ledger.hasEvent(eventId),
    move: (name, to) => io.move(join(inbox, name), to === "processed" ? processed : rejected, name),
  });
  for (const { name, since } of [...retried.readmitted, ...retried.moved]) skippedBefore.set(name, since);
  for (const { name, to, movedAs } of retried.moved) {
    if (to === "rejected") report.rejected++;
    tookSkipped(name, to === "processed" ? `processed/${day}/${movedAs}` : `rejected/${movedAs}`);
  }
  const moved = new Set(retried.moved.map((m) => m.name));

  const files: InboxEntry[] = [];
  for (const entry of entries) {
    // never a .tmp: the hook renames a file into place only when it is complete
    if (entry.name.endsWith(".tmp") || state.remembered.has(entry.name) || moved.has(entry.name)) continue;
    waiting.add(entry.name);
    if (entry.kind === "file" && entry.name.endsWith(".json")) files.push(entry);
    else if (entry.kind === "unnameable") {
      report.listed++;
      remember(entry.name, {
        why: "its name is not valid UTF-8, so asm cannot name it to move it aside; remove it by hand " +
          "(`ls -b` shows it)",
        retry: null,
        rejectedFor: null,
        eventId: null,
      });
    } else {
      report.listed++;
      // moved as the entry it is (rename never follows a link), never opened
      reject(
        entry.name,
        entry.kind === "file" ? "its name does not end in .json" : `it is ${WORDS[entry.kind]}`,
      );
    }
  }
  const batch = files.sort(byAge).slice(0, deps.batch ?? 2000);
  report.listed += batch.length;

  const events: { name: string; event: HookEvent }[] = [];
  let unreadError: { file: string; error: string } | null = null;
  for (const { name } of batch) {
    const event = readEvent(io, join(inbox, name), now, {
      reject: (why) => reject(name, why),
      fail: (why) => fail(name, why),
      wait: (why) => {
        report.unread++;
        unreadError ??= { file: name, error: why };
      },
    });
    if (event === "gone") waiting.delete(name);
    else if (event) events.push({ name, event });
  }
  events.sort((
    a,
    b,
  ) => (a.event.ts < b.event.ts ? -1 : a.event.ts > b.event.ts ? 1 : a.name < b.name ? -1 : 1));

  let writeError: { file: string; error: string } | null = null;
  for (const { name, event } of events) {
    try {
      const ignore = deps.orphanReason && !deps.ledger.hasSession(event.asm_id)
        ? deps.orphanReason(event)
        : null;
      const outcome = ignore === null
        ? deps.ledger.applyEvent(event)
        : deps.ledger.recordIgnored(event, ignore);
      if (outcome === "applied") report.applied++;
      else if (outcome === "duplicate") report.duplicates++;
      else {
        report.ignored++;
        deps.log({ what: "ignored", file: name, event: event.event, agent: event.agent, why: ignore });
      }
      // once, as it is stored (a duplicate was named when it first went in)
      if (outcome !== "duplicate" && event.dropped) {
        deps.log({
          what: "event values dropped",
          file: name,
          event_id: event.event_id,
          asm_id: event.asm_id,
          event: event.event,
          dropped: event.dropped,
        });
      }
    } catch (err) {
      if (err instanceof LedgerError) {
        fail(name, err.message);
        continue;
      }
      // the ledger could not write (a full disk, a read-only file): not the file's fault, and likely to pass,
      // so it stays for the next pass; any other file may still go in
      report.write_failed++;
      writeError ??= { file: name, error: errorText(err) };
      continue;
    }
    deps.failures.delete(name);
    let movedAs: string;
    try {
      movedAs = io.move(join(inbox, name), processed, name);
      waiting.delete(name);
    } catch (err) {
      // its event is stored: rejected/ would say it was not, and a re-read each pass would only find a duplicate
      remember(name, {
        why: processedWhy(err),
        retry: "processed",
        rejectedFor: null,
        eventId: event.event_id,
      });
      continue;
    }
    tookSkipped(name, `processed/${day}/${movedAs}`);
  }

  report.backlog = waiting.size;
  let error: string | null = null;
  if (writeError) {
    error = `the ledger could not store ${report.write_failed} event(s), first ${writeError.file}: ` +
      `${writeError.error}; they stay in the inbox for the next pass`;
  } else if (unreadError) {
    const { file, error: why } = unreadError as { file: string; error: string };
    error =
      `asm could not open ${report.unread} event file(s), first ${file}: ${why}; they stay in the inbox ` +
      "for the next pass";
  } else if (state.remembered.size > 0) {
    const [name, { why }] = state.remembered.entries().next().value!;
    error = `${state.remembered.size} name(s) in the inbox are skipped because they could not be moved, ` +
      `first ${name}: ${why}`;
  }
  // the health first: on a full disk the log line itself may fail
  settle(state, {
    at: now(),
    ran: true,
    backlog: report.backlog,
    rejected: report.rejected,
    failing: report.failed + report.write_failed + report.unread,
    error,
  });
  if (writeError) {
    // keyed by the cause alone: the count moves with every pass, and a full disk must not fill the log too
    logOnce(state, deps.log, writeError.error, {
      what: "drain write failed",
      ...writeError,
      files: report.write_failed,
    });
  } else state.lastLogged = null;
  return report;
}

/** Why a file whose event is stored is skipped. */
function processedWhy(err: unknown): string {
  return `its event is stored, but the file could not be moved to processed/: ${errorText(err)}`;
}

/** Why a file being rejected is skipped: the reason it was rejected, then why the move failed. */
function rejectedWhy(why: string, err: unknown): string {
  return `${why}, and it could not be moved to rejected/: ${errorText(err)}`;
}

/** What {@link retrySkipped} may do. */
interface RetryOps {
  /** moves at most this many */
  tries: number;
  /** whether the ledger holds this event */
  stored(eventId: string): boolean;
  /** moves the inbox's `name` into `processed/<date>/` or `rejected/`; returns the name it got there */
  move(name: string, to: "processed" | "rejected"): string;
}

/** What {@link retrySkipped} did: names moved, and names put back in the pass to be read as any file. */
interface Retried {
  moved: { name: string; to: "processed" | "rejected"; movedAs: string; since: number }[];
  readmitted: { name: string; since: number }[];
}

/**
 * Tries the skipped names again, least recently tried first: a stored event's file is moved to processed/ (not
 * read again: its event went in), a file being rejected to rejected/. One whose event the ledger no longer holds
 * is put back in the pass, to be read and applied as usual. A name whose move fails again goes to the back of
 * the line with the move's new cause; after {@link SKIPPED_RETRY_FAILURES} such failures the pass stops trying.
 * A name that is not UTF-8 is never tried: asm cannot name it.
 */
function retrySkipped(state: DrainState, ops: RetryOps): Retried {
  const out: Retried = { moved: [], readmitted: [] };
  let failuresLeft = SKIPPED_RETRY_FAILURES;
  let tries = ops.tries;
  for (const [name, skipped] of [...state.remembered]) {
    if (failuresLeft === 0 || tries === 0) break;
    const to = skipped.retry;
    if (to === null) continue;
    tries--;
    state.remembered.delete(name);
    if (to === "processed" && !ops.stored(skipped.eventId!)) {
      out.readmitted.push({ name, since: skipped.since });
      continue;
    }
    try {
      out.moved.push({ name, to, movedAs: ops.move(name, to), since: skipped.since });
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) continue; // removed by hand since the listing: forgotten
      failuresLeft--;
      const why = to === "processed" ? processedWhy(err) : rejectedWhy(skipped.rejectedFor!, err);
      state.remembered.set(name, { ...skipped, why });
    }
  }
  return out;
}

/**
 * How a read ended badly: rejected at once (it will not get better), failed (retried once), or waiting (the
 * process itself could not open it: tried again next pass, as often as it takes).
 */
interface ReadOutcome {
  reject(why: string): void;
  fail(why: string): void;
  wait(why: string): void;
}

/** An error of the reading process, not of the file: out of file descriptors (its own or the system's) or memory. */
function processTrouble(err: unknown): boolean {
  return /\(os error (24|23|12)\)|too many open files|file table overflow|cannot allocate memory/i.test(
    errorText(err),
  );
}

/** One event file: its event, or `"gone"` when it vanished, or null when `outcome` was told why not. */
function readEvent(io: DrainIo, path: string, now: Clock, outcome: ReadOutcome): HookEvent | "gone" | null {
  let bytes: Uint8Array;
  try {
    bytes = io.read(path, MAX_EVENT_FILE_BYTES + 1);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return "gone";
    // the server out of descriptors: a good event must not go to rejected/ for it
    if (processTrouble(err)) {
      outcome.wait(`it could not be opened: ${errorText(err)}`);
      return null;
    }
    // a link, a FIFO or a folder swapped in after the listing, or a file asm may not read (another uid's, mode
    // 000): neither gets better by waiting
    outcome.reject(err instanceof RefusedFile ? err.message : `it could not be read: ${errorText(err)}`);
    return null;
  }
  if (bytes.length > MAX_EVENT_FILE_BYTES) {
    outcome.reject(`it is larger than ${MAX_EVENT_FILE_BYTES} bytes, more than the hook ever writes`);
    return null;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    outcome.fail("it is not UTF-8 text");
    return null;
  }
  try {
    return parseEvent(text, { now });
  } catch (err) {
    // a BadEventError says what is wrong with the file; anything else thrown while parsing one file is still
    // that file's trouble, and must not stop the pass for the others
    outcome.fail(err instanceof BadEventError ? err.message : `it could not be parsed: ${errorText(err)}`);
    return null;
  }
}

/** Logs a pass-wide error once, not again until a different one (or a pass without one) comes. */
function logOnce(state: DrainState, log: Log, key: string, line: LogLine): void {
  if (state.lastLogged === key) return;
  state.lastLogged = key;
  log(line);
}

/** Carries the judge's verdict on one pass into the state. */
function settle(state: DrainState, pass: Omit<PassFacts, "remembered">): void {
  const next = judgePass(state, { ...pass, remembered: state.remembered.size });
  state.health = next.health;
  state.stalledPasses = next.stalledPasses;
}
