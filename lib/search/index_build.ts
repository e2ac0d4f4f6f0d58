/**
 * The deep index's builder: after the import, read every transcript file the index has not caught up with, from
 * where it stopped (a file that only grew is read on from its offset; one that shrank or was rewritten is read
 * again), keep its message lines (the agent's own classifier: message text only) and write them through the
 * ledger. It reads at most `maxBytesPerRun` per run and yields to the event loop between steps, so a first build
 * over a large history spreads over several runs of the service; until a file is caught up, a deep search scans
 * it instead.
 * @module
 */
import { type AgentConfig, loadAgents } from "../agents/mod.ts";
import { classifiersOf } from "./classifiers.ts";
import { transcriptBytes } from "../history/mod.ts";
import { yieldToLoop } from "../derive/mod.ts";
import {
  type IndexedLine,
  type IndexTodo,
  isLedgerOpen,
  type Ledger,
  searchIndexTodo,
  writeIndexChunk,
} from "../ledger/mod.ts";
import type { Env } from "../config/mod.ts";
import { closeSync, openRegularSync, readFullySync, type RegularFile } from "../files/mod.ts";
import { type Classify, isSearched, lastCopies } from "./scan.ts";
import type { LogLine } from "../lang/mod.ts";

/** How often the server's index service runs (cheap when nothing changed: one query). */
export const SEARCH_INDEX_EVERY_MS = 60_000;

/** What one build did. */
export interface IndexReport {
  files: number;
  lines: number;
  bytes: number;
  /** files that could not be read (one log line each) */
  problems: number;
}

/** How a build runs. */
export interface IndexOptions {
  agents: AgentConfig[];
  /** bytes read per run, across files (default 64 MiB); the rest waits for the next run */
  maxBytesPerRun?: number;
  /** bytes read per step of one file (default 8 MiB) */
  chunkBytes?: number;
  log?(line: LogLine): void;
}

/** The message lines of some complete transcript lines, as one index step writes them. */
export interface LinesStep {
  lines: IndexedLine[];
  /** record ids whose last copy here has no message text: their older rows go */
  dropped: string[];
}

/**
 * The index rows of `text` (complete lines). Last copy of a record id wins within the step, through the scan's
 * own fold (scan.ts `lastCopies`), so the index and the scan count the same matches.
 */
export function linesOf(text: string, classify: Classify): LinesStep {
  const lines: IndexedLine[] = [];
  const dropped: string[] = [];
  for (const line of lastCopies(text, classify)) {
    if (isSearched(line)) lines.push({ rec_id: line.id, ts: line.ts, kind: line.kind, text: line.text });
    else if (line.id !== null) dropped.push(line.id);
  }
  return { lines, dropped };
}

/** Where a file's next step starts: from 0 (again) when it was never indexed or is now shorter than indexed. */
export function resumeAt(todo: IndexTodo): { from: number; reset: boolean } {
  if (!todo.known || todo.size < todo.read_offset) return { from: 0, reset: true };
  return { from: todo.read_offset, reset: false };
}

/** Builds the index for every file that is behind, within the run's byte budget. */
export async function buildSearchIndex(ledger: Ledger, options: IndexOptions): Promise<IndexReport> {
  const budget = options.maxBytesPerRun ?? 64 << 20;
  const chunkBytes = options.chunkBytes ?? 8 << 20;
  const classifiers = classifiersOf(options.agents);
  const report: IndexReport = { files: 0, lines: 0, bytes: 0, problems: 0 };
  for (const todo of searchIndexTodo(ledger)) {
    if (report.bytes >= budget || !isLedgerOpen(ledger)) break;
    try {
      await indexFile(ledger, todo, classifiers.get(todo.agent) ?? null, chunkBytes, report, budget);
      report.files++;
    } catch (err) {
      report.problems++;
      options.log?.({
        what: "search index: a transcript could not be read",
        path: todo.path,
        error: String(err),
      });
    }
  }
  return report;
}

async function indexFile(
  ledger: Ledger,
  todo: IndexTodo,
  classify: Classify | null,
  chunkBytes: number,
  report: IndexReport,
  budget: number,
): Promise<void> {
  let { from, reset } = resumeAt(todo);
  const source = openSource(todo);
  // a one-document file is rewritten whole, never appended to: read again from its start, its old rows replaced
  if (from > 0 && classify?.documentRecords) {
    const head = new TextDecoder().decode(source.read(0, 4096));
    if (classify.documentRecords(head.slice(0, head.indexOf("\n") + 1)) !== null) {
      from = 0;
      reset = true;
    }
  }
  try {
    while (true) {
      const chunk = classify === null ? new Uint8Array(0) : source.read(from, chunkBytes);
      const atEnd = chunk.length < chunkBytes;
      // whole lines only; at the end, a last line without its newline counts when it is a complete record
      const nl = chunk.lastIndexOf(0x0a);
      let used = nl + 1;
      let text = new TextDecoder().decode(chunk.subarray(0, used));
      if (atEnd && used < chunk.length) {
        const rest = new TextDecoder().decode(chunk.subarray(used));
        if (classify !== null && classify(rest) !== null) {
          text += rest;
          used = chunk.length;
        }
      } else if (!atEnd && used === 0) {
        used = chunk.length; // one line longer than a step: no record fits in it, skip it
        text = "";
      }
      const step = classify === null ? { lines: [], dropped: [] } : linesOf(text, classify);
      from += used;
      report.bytes += used;
      report.lines += step.lines.length;
      const done = atEnd || report.bytes >= budget;
      writeIndexChunk(ledger, {
        path: todo.path,
        asm_id: todo.asm_id,
        reset,
        ...step,
        read_offset: from,
        caught_up: atEnd ? { size: todo.size, mtime: todo.mtime } : null,
      });
      reset = false;
      if (done) return;
      await yieldToLoop(); // let the server answer between steps
    }
  } finally {
    source.close();
  }
}

/** Positional reads of a transcript, or of its copy when the agent deleted the original. */
function openSource(todo: IndexTodo): { read(from: number, length: number): Uint8Array; close(): void } {
  let file: RegularFile;
  try {
    // the import's open: a regular file, never a link, never blocking
    file = openRegularSync(todo.path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    const whole = transcriptBytes(todo.path, todo.copy) ?? new Uint8Array(0);
    return { read: (from, length) => whole.subarray(from, from + length), close: () => {} };
  }
  return {
    read(from, length) {
      const buf = new Uint8Array(length);
      return buf.subarray(0, readFullySync(file.fd, buf, from));
    },
    close: () => closeSync(file.fd),
  };
}

/** What the server's index service hands in. */
export interface SearchIndexContext {
  ledger: Ledger;
  asmHome: string;
  env: Env;
  log(line: LogLine): void;
}

/** The server's index service: catch the index up with what the import read. */
export async function searchIndexService(ctx: SearchIndexContext): Promise<void> {
  const report = await buildSearchIndex(ctx.ledger, {
    agents: loadAgents({ asmHome: ctx.asmHome, env: ctx.env }),
    log: ctx.log,
  });
  if (report.files > 0) ctx.log({ what: "search index", ...report });
}
