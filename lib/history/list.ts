/**
 * Phase one of a cold import: every transcript the ledger has no record of is listed from a bounded read of its
 * two ends (`list_read.ts`), in the read workers when there are many, newest files first, and written a
 * transaction per bundle of files: the rows the list shows (marked `listed`: their turns, project and closeout are
 * still being derived) and the files (on record as listed, so the full pass that follows, or the next start, reads
 * them whole and lists them no more).
 * A row the full pass derived is never written over.
 * @module
 */
import type { AgentConfig } from "../agents/mod.ts";
import type { Env } from "../config/mod.ts";
import {
  type EnrichInput,
  type SessionFacts,
  titleOf,
  type TranscriptCapability,
  type TranscriptFile,
  type TranscriptIo,
} from "../derive/mod.ts";
// deep on purpose: the same merge the agents' readers use for a session kept in several files
import { mergeFacts } from "../derive/facts.ts";
import {
  asmIdOf,
  isoAt,
  type Ledger,
  type ListedFile,
  type ListedSession,
  underHarnessRoot,
  writeListed,
} from "../ledger/mod.ts";
import { enrichSessions } from "./batch.ts";
import { type ListDone, listTranscript } from "./list_read.ts";
import type { ReadPool } from "./read_pool.ts";
import type { Clock, Log } from "../lang/mod.ts";

/** Which agent reads a file, by agent name. */
export type Readers = Map<string, { agent: AgentConfig; cap: TranscriptCapability }>;

/** What phase one needs. */
export interface ListOptions {
  ledger: Ledger;
  readers: Readers;
  env: Env;
  io: TranscriptIo;
  harnessRoots: readonly string[];
  /** starts the read workers, once the first bundle is read here (null: the rest is read here too) */
  startPool: () => ReadPool | null;
  /** each agent's own transcript folders, as real paths (a file elsewhere is refused, whatever led to it) */
  within: (agent: string) => readonly string[];
  problem: Log;
  now: Clock;
  /** after each bundle's rows are written (newest files first): how many files were read so far */
  onFiles?: (done: number) => void;
  /** files per bundle (default {@link LIST_BUNDLE}) */
  bundle?: number;
  /** true when the import must stop (its server is closing): nothing more is written */
  shouldStop?: () => boolean;
}

/** What phase one did. */
export interface ListReport {
  files: number;
  failed: number;
  bytes: number;
  /** rows written (a row the full pass derived already is left alone) */
  rows: number;
}

/**
 * Files per message to a read worker (a message costs more than a small file's two ends), and per write: small
 * bundles put the newest rows on the page soonest and overlap the writes with the reads, though larger
 * transactions cost less in all (a commit writes every page its rows touched; measured on the bench's corpus:
 * 1.19 s for 250 rows a transaction, 1.30 s for 1,000, 1.50 s for all 5,000 at once).
 */
const LIST_BUNDLE = 250;

/**
 * Lists `files` (their two ends) and writes the rows and the files' records, a transaction per bundle of files,
 * newest files first: the sessions a person looks for first (the top of the page, sorted by last activity) are
 * written first, whatever the rest costs. Every bundle's reads are sent at once, and each bundle is written as
 * soon as it and every newer bundle are back: the writes overlap the reads still running in the workers.
 */
export async function listFiles(files: TranscriptFile[], options: ListOptions): Promise<ListReport> {
  const report: ListReport = { files: files.length, failed: 0, bytes: 0, rows: 0 };
  // by last write, newest first (a session kept in several files listed apart is merged by the row's upsert)
  const sorted = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path));
  const size = Math.max(1, options.bundle ?? LIST_BUNDLE);
  const bundles: TranscriptFile[][] = [];
  for (let i = 0; i < sorted.length; i += size) {
    // within a bundle, by path: an agent's files side by side, as its folders hold them (measured: interleaving
    // the agents' files by time cost the whole list about 10 % more)
    bundles.push(sorted.slice(i, i + size).sort((a, b) => a.path.localeCompare(b.path)));
  }
  let read = 0;
  const take = (bundle: TranscriptFile[], done: ListDone[]) => {
    if (!options.shouldStop?.()) writeBundle(bundle, done, options, report);
    read += bundle.length;
    options.onFiles?.(read);
  };
  const readHere = (bundle: TranscriptFile[]): ListDone[] =>
    bundle.map((file) =>
      listTranscript(file, options.readers.get(file.agent)!.cap, options.io, {
        within: options.within(file.agent),
        withinResolved: true,
      })
    );
  if (bundles.length === 0) return report;
  // the newest bundle is read here, before any worker loads (a worker's first answer comes later than this
  // thread's reads), then the rest go to the workers at once; a pool answers every bundle (a worker that fails
  // answers with problem lines), never with a rejection
  take(bundles[0], readHere(bundles[0]));
  const pool = options.startPool();
  if (pool === null) {
    for (const bundle of bundles.slice(1)) take(bundle, readHere(bundle));
  } else {
    const readings = bundles.slice(1).map((bundle) =>
      pool.list(bundle.map((file) => ({
        file,
        adapter: options.readers.get(file.agent)!.agent.adapter,
        within: options.within(file.agent),
      })))
    );
    for (let i = 0; i < readings.length; i++) take(bundles[i + 1], await readings[i]);
  }
  return report;
}

/** Reads come back: grouped by session, their rows derived and written with the files' records. */
function writeBundle(
  files: TranscriptFile[],
  done: ListDone[],
  options: ListOptions,
  report: ListReport,
): void {
  const groups = new Map<string, { file: TranscriptFile; facts: SessionFacts; state: unknown }[]>();
  const records: ListedFile[] = [];
  files.forEach((file, i) => {
    const { data, problems } = done[i];
    for (const line of problems) options.problem(line);
    if (data === null) {
      report.failed++;
      return;
    }
    report.bytes += data.bytesRead;
    const asmId = data.sessionId === null ? null : asmIdOf(file.agent, data.sessionId);
    records.push({
      path: file.path,
      agent: file.agent,
      size: file.size,
      mtime: isoAt(file.mtimeMs),
      ino: file.ino,
      asm_id: asmId,
    });
    if (asmId === null || data.facts === null) return;
    if (data.facts.session_id === null) data.facts.session_id = data.sessionId;
    const group = groups.get(asmId);
    const entry = { file, facts: data.facts, state: data.state };
    if (group) group.push(entry);
    else groups.set(asmId, [entry]);
  });
  const sessions = listedSessions(groups, options);
  report.rows += writeListed(options.ledger, { sessions, files: records, now: isoAt(options.now()) }).rows;
}

/** Each session's row from its files' ends, after its agent added what lives outside its transcripts. */
function listedSessions(
  groups: Map<string, { file: TranscriptFile; facts: SessionFacts; state: unknown }[]>,
  options: ListOptions,
): ListedSession[] {
  const perAgent = new Map<string, { asmIds: string[]; inputs: EnrichInput[] }>();
  for (const [asmId, entries] of groups) {
    entries.sort((a, b) => a.file.path.localeCompare(b.file.path));
    const facts = mergeFacts(entries.map((e) => e.facts));
    const slot = perAgent.get(entries[0].file.agent) ?? { asmIds: [], inputs: [] };
    slot.asmIds.push(asmId);
    slot.inputs.push({ facts, states: entries.map((e) => e.state), files: entries.map((e) => e.file) });
    perAgent.set(entries[0].file.agent, slot);
  }
  const out: ListedSession[] = [];
  for (const [agentName, { asmIds, inputs }] of perAgent) {
    const { agent, cap } = options.readers.get(agentName)!;
    enrichSessions(inputs.map((input) => ({ input, agent, cap })), options);
    inputs.forEach(({ facts, files }, i) => {
      if (facts.session_id === null || isEmpty(facts)) return;
      out.push({
        asm_id: asmIds[i],
        agent: agent.name,
        agent_session_id: facts.session_id,
        parent_asm_id: facts.parent_session_id === null ? null : asmIdOf(agent.name, facts.parent_session_id),
        source: facts.source,
        thread_source: facts.thread_source,
        cwd: facts.cwd,
        transcript_path: files[0].path,
        started_at: facts.started_at,
        last_seen: facts.last_seen,
        first_message: facts.first_message,
        name: facts.name,
        title: titleOf(facts),
        summary: facts.summary,
        model: facts.model,
        context_tokens: facts.context_tokens,
        context_window: facts.context_window,
        agent_version: facts.agent_version,
        harness: underHarnessRoot(facts.cwd, options.harnessRoots),
      });
    });
  }
  return out;
}

/** Nothing was read at either end: no moment, no title, no model (the full pass decides what it is). */
function isEmpty(f: SessionFacts): boolean {
  return f.started_at === null && f.last_seen === null && f.name === null && f.title === null &&
    f.summary === null && f.model === null && f.first_message === null;
}
