/**
 * The inbox drain: hook event files into the ledger, idempotent on event_id. A file is moved to
 * `processed/<date>/` only after its transaction committed, so a crash between the two re-reads a file whose
 * event is already stored, and the ledger discards it as a duplicate: nothing lost, nothing applied twice.
 *
 * Every file is on its own: one the drain cannot read, parse or move never stops the pass. It goes to `rejected/`
 * with one `server.log` line naming it and why, or, when even that move fails, its name is remembered and skipped
 * from then on (one line). Only a regular `*.json` file is ever opened, through the no-follow, non-blocking open
 * of lib/files; a link, a folder, a FIFO or a name that is not UTF-8 is moved aside as the entry it is.
 *
 * Every value of an event is checked on the way in (lib/ledger `parseEvent`, the ranges in `bounds.ts`): one out
 * of range is stored as null, the rest of the event kept, and one log line per event names what was dropped.
 * @module
 */
import { join } from "node:path";
import { BadEventError, type HookEvent, Ledger, LedgerError, parseEvent } from "../ledger/mod.ts";
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

/** What the drain keeps between passes (the server keeps one in its state). */
export interface DrainState extends DrainMemory {
  /** names that could not even be moved aside, and why: skipped from then on, forgotten once gone */
  remembered: Map<string, string>;
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
  /** names newly skipped for good: not even a move aside worked */
  remembered: number;
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
  const processed = join(deps.asmHome, "processed", new Date(now()).toISOString().slice(0, 10));
  const rejected = join(deps.asmHome, "rejected");
  const report: DrainReport = {
    listed: 0,
    applied: 0,
    duplicates: 0,
    ignored: 0,
    failed: 0,
    rejected: 0,
    write_failed: 0,
    remembered: 0,
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
  const remember = (name: string, why: string) => {
    state.remembered.set(name, why);
    waiting.delete(name);
    deps.log({ what: "drain skips file", file: name, why: `${why}; asm skips it from now on` });
    report.remembered++;
  };
  const reject = (name: string, why: string) => {
    deps.failures.delete(name);
    let movedAs: string;
    try {
      movedAs = io.move(join(inbox, name), rejected, name);
    } catch (err) {
      remember(name, `${why}, and it could not be moved to rejected/: ${errorText(err)}`);
      return;
    }
    waiting.delete(name);
    deps.log({ what: "rejected", file: name, why, ...(movedAs === name ? {} : { as: movedAs }) });
    report.rejected++;
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

  const files: InboxEntry[] = [];
  for (const entry of entries) {
    // never a .tmp: the hook renames a file into place only when it is complete
    if (entry.name.endsWith(".tmp") || state.remembered.has(entry.name)) continue;
    waiting.add(entry.name);
    if (entry.kind === "file" && entry.name.endsWith(".json")) files.push(entry);
    else if (entry.kind === "unnameable") {
      report.listed++;
      remember(
        entry.name,
        "its name is not valid UTF-8, so asm cannot name it to move it aside; remove it by hand (`ls -b` shows it)",
      );
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
  for (const { name } of batch) {
    const event = readEvent(io, join(inbox, name), now, {
      reject: (why) => reject(name, why),
      fail: (why) => fail(name, why),
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
    try {
      io.move(join(inbox, name), processed, name);
      waiting.delete(name);
    } catch (err) {
      // its event is stored: rejected/ would say it was not, and a re-read each pass would only find a duplicate
      remember(name, `its event is stored, but the file could not be moved to processed/: ${errorText(err)}`);
    }
  }

  report.backlog = waiting.size;
  let error: string | null = null;
  if (writeError) {
    error = `the ledger could not store ${report.write_failed} event(s), first ${writeError.file}: ` +
      `${writeError.error}; they stay in the inbox for the next pass`;
  } else if (state.remembered.size > 0) {
    const [name, why] = state.remembered.entries().next().value!;
    error = `${state.remembered.size} name(s) in the inbox are skipped because they could not be moved, ` +
      `first ${name}: ${why}`;
  }
  // the health first: on a full disk the log line itself may fail
  settle(state, {
    at: now(),
    ran: true,
    backlog: report.backlog,
    rejected: report.rejected,
    failing: report.failed + report.write_failed,
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

/** How a read ended badly: rejected at once (it will not get better) or failed (retried once). */
interface ReadOutcome {
  reject(why: string): void;
  fail(why: string): void;
}

/** One event file: its event, or `"gone"` when it vanished, or null when `outcome` was told why not. */
function readEvent(io: DrainIo, path: string, now: Clock, outcome: ReadOutcome): HookEvent | "gone" | null {
  let bytes: Uint8Array;
  try {
    bytes = io.read(path, MAX_EVENT_FILE_BYTES + 1);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return "gone";
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
