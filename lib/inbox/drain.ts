/**
 * The inbox drain: hook event files into the ledger, idempotent on event_id. A file is moved to
 * `processed/<date>/` only after its transaction committed, so a crash between the two re-reads a file whose
 * event is already stored, and the ledger discards it as a duplicate: nothing lost, nothing applied twice.
 * @module
 */
import { join } from "node:path";
import { BadEventError, type HookEvent, Ledger, LedgerError, parseEvent } from "../ledger/mod.ts";
import type { Clock, Log } from "../lang/mod.ts";

/** What the drain needs. */
export interface DrainDeps {
  asmHome: string;
  ledger: Ledger;
  /** one line per notable thing (a rejected file, an ignored event) */
  log: Log;
  /** parse failures per file name, kept between drains: the second failure rejects the file */
  failures: Map<string, number>;
  /**
   * the rule for an event whose session has no row yet: a reason to store it as evidence without applying it
   * (e.g. Codex's notify for a thread that has no transcript), or null; never asked about a known session
   */
  orphanReason?: (event: HookEvent) => string | null;
  /** most files per pass; the rest wait for the next pass */
  batch?: number;
  /** the clock, for the processed/<date> folder */
  now?: Clock;
}

/** What one drain pass did. */
export interface DrainReport {
  listed: number;
  applied: number;
  duplicates: number;
  ignored: number;
  failed: number;
  rejected: number;
}

interface Listed {
  name: string;
  mtime: number;
}

function listInbox(inbox: string): Listed[] {
  const out: Listed[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(inbox)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  for (const entry of entries) {
    // never a .tmp: the hook renames a file into place only when it is complete
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    try {
      out.push({ name: entry.name, mtime: Deno.statSync(join(inbox, entry.name)).mtime?.getTime() ?? 0 });
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return out.sort((a, b) => a.mtime - b.mtime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function moveInto(from: string, dir: string, name: string): void {
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  Deno.renameSync(from, join(dir, name));
}

/** One pass over the inbox. Events of the pass are applied in timestamp order. */
export function drainOnce(deps: DrainDeps): DrainReport {
  const inbox = join(deps.asmHome, "inbox");
  const today = new Date(deps.now?.() ?? Date.now()).toISOString().slice(0, 10);
  const processed = join(deps.asmHome, "processed", today);
  const rejected = join(deps.asmHome, "rejected");
  const report: DrainReport = { listed: 0, applied: 0, duplicates: 0, ignored: 0, failed: 0, rejected: 0 };
  const listed = listInbox(inbox).slice(0, deps.batch ?? 2000);
  report.listed = listed.length;

  const fail = (name: string, why: string) => {
    const count = (deps.failures.get(name) ?? 0) + 1;
    if (count >= 2) {
      deps.failures.delete(name);
      moveInto(join(inbox, name), rejected, name);
      deps.log({ what: "rejected", file: name, why });
      report.rejected++;
    } else {
      deps.failures.set(name, count);
      report.failed++;
    }
  };

  const events: { name: string; event: HookEvent }[] = [];
  for (const { name } of listed) {
    let text: string;
    try {
      text = Deno.readTextFileSync(join(inbox, name));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) continue;
      throw err;
    }
    try {
      events.push({ name, event: parseEvent(text) });
    } catch (err) {
      if (!(err instanceof BadEventError)) throw err;
      fail(name, err.message);
    }
  }
  events.sort((
    a,
    b,
  ) => (a.event.ts < b.event.ts ? -1 : a.event.ts > b.event.ts ? 1 : a.name < b.name ? -1 : 1));

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
    } catch (err) {
      if (!(err instanceof LedgerError)) throw err;
      fail(name, err.message);
      continue;
    }
    deps.failures.delete(name);
    moveInto(join(inbox, name), processed, name);
  }
  return report;
}
