/**
 * The history import, the shell around the byte pass: walk every agent's transcript store, skip the files whose
 * (size, mtime) are unchanged (import_state loaded once, nothing opened), and, on a first run ({@link
 * ImportOptions.list}), list the new files first from their two ends (phase one, `list.ts`: every row the list
 * shows before anything is read whole). Then read the rest, newest first (a grown file on from its saved offset,
 * with its saved fold state), fold each session's files into facts, let each agent add what lives outside its
 * transcripts, derive the rows (title, closeout, project) and write them in batches, one transaction per batch
 * (phase two: a batch written is done; a server killed mid-way goes on from the files not yet derived). Bad input
 * never stops it: a file that cannot be read, or reads badly, costs one log line.
 * @module
 */
import { type Env, homeDir } from "../config/mod.ts";
import { realFolders } from "../files/mod.ts";
import { adapterOf, type AgentConfig } from "../agents/mod.ts";
import {
  type ProjectRules,
  type TranscriptCapability,
  type TranscriptFile,
  type TranscriptIo,
  yieldToLoop,
} from "../derive/mod.ts";
import { foldStateOf, isoAt, knownFiles, type Ledger, settleCloseouts, settleListed } from "../ledger/mod.ts";
import { writeBatch } from "./batch.ts";
import { denoIo } from "./io.ts";
import { planReads } from "./plan.ts";
import { type ImportProgress, progressOf } from "./progress.ts";
import { closeCopyStores, copyRefOf } from "./copies.ts";
import { bundles, completions, defaultReadWorkers, type ReadPool, startReadPool } from "./read_pool.ts";
import { type FileRead, type ReadDone, type ReadJob, readTranscript } from "./read_file.ts";
import { listFiles, type Readers } from "./list.ts";
import { projectRoots } from "./roots.ts";
import { type Clock, errorText, type Log, type LogLine } from "../lang/mod.ts";

/** What one import needs. */
export interface ImportOptions {
  ledger: Ledger;
  agents: AgentConfig[];
  /** Where the agents' folders are (HOME, CODEX_HOME, GEMINI_CLI_HOME). */
  env: Env;
  asmHome: string;
  /** Folders whose sessions are the harness's own (hidden). */
  harnessRoots: readonly string[];
  /** One line per notable thing (a file that reads badly, a walk that failed). */
  log: Log;
  io?: TranscriptIo;
  onProgress?: (progress: ImportProgress) => void;
  rules?: ProjectRules;
  /** The server lets the event loop run this often during a long import; the CLI never yields. */
  yieldEveryMs?: number;
  /** The refresh: only these transcripts (a path no agent's store shapes is nobody's), and only when they grew. */
  only?: { agent: string; path: string }[];
  /**
   * With `only`: read them on any change, as the walk would (a file shrunk or replaced is read from its start);
   * the watch's reading of the files it saw change, so it and the walk agree.
   */
  anyChange?: boolean;
  /** Files that failed to read, by path -> "size:mtime": skipped until they change (the refresh). */
  failed?: Map<string, string>;
  /**
   * Read workers: 0 reads in this thread. Default: {@link defaultReadWorkers} when the reads are many. With an
   * `io` handed in, always 0: it is only reachable from this thread.
   */
  workers?: number;
  /**
   * Sessions per write transaction. Default: 500 when the import yields to a server's requests (a batch holds the
   * thread while it writes), 2,000 when nothing else waits (each commit rewrites the index pages it touched).
   */
  batchSessions?: number;
  chunkBytes?: number;
  maxLineBytes?: number;
  /** The clock (epoch ms); tests pin it. */
  now?: Clock;
  /** True when the import must stop (its server is closing): it stops between files, writing nothing more. */
  shouldStop?: () => boolean;
  /**
   * Phase one: list the files the ledger has no record of from their two ends before any derived row is written
   * (never for `only`). Default: when {@link LIST_FIRST_FILES} or more are new (a first run).
   */
  list?: boolean;
  /** Phase one's files per bundle (read and written together); default 250. */
  listBundle?: number;
}

/** What one import did. */
export interface ImportReport {
  started_at: string;
  finished_at: string;
  ms: number;
  files_seen: number;
  files_unchanged: number;
  files_read: number;
  files_resumed: number;
  files_failed: number;
  bytes_read: number;
  sessions_inserted: number;
  sessions_updated: number;
  /** log lines written about bad input */
  problems: number;
  /** it stopped early because it was asked to (shouldStop) */
  stopped: boolean;
  /** read workers that read the files (0: they were read in the importing thread) */
  read_workers: number;
  /** phase one: files listed from their two ends, and when their rows were written (ms from the start); null: none */
  files_listed: number;
  list_ms: number | null;
  /** phase one: when the rows of its first bundle, the newest files, were written (ms from the start); null: none */
  list_first_ms: number | null;
}

/** The agents that can read transcripts, with their capability. */
function readers(agents: AgentConfig[]): { agent: AgentConfig; cap: TranscriptCapability }[] {
  const out: { agent: AgentConfig; cap: TranscriptCapability }[] = [];
  for (const agent of agents) {
    const cap = adapterOf(agent).transcripts;
    if (cap) out.push({ agent, cap });
  }
  return out;
}

/** Each agent's closeout skill as its rows read it: "" where nobody can say (lib/derive `closeoutOf`). */
function closeoutSkillsOf(agents: AgentConfig[]): Record<string, string> {
  return Object.fromEntries(
    readers(agents).map(({ agent, cap }) => [agent.name, cap.skillMarkers ? agent.closeout_skill : ""]),
  );
}

/** Runs one import. Unchanged files cost a stat each and nothing is written when nothing changed. */
export async function importOnce(options: ImportOptions): Promise<ImportReport> {
  // the read workers, once started, end with the import whatever happens in it
  const workers: { pool: ReadPool | null } = { pool: null };
  try {
    return await runImport(options, workers);
  } finally {
    workers.pool?.close();
    closeCopyStores();
  }
}

/** One planned read (what `planReads` chose). */
type PlannedRead = ReturnType<typeof planReads>["reads"][number];

/**
 * One import in progress: its options, its clock, the report it fills and the progress it announces as its
 * phases run (walk, plan, read and write, finish).
 */
class ImportRun {
  readonly io: TranscriptIo;
  readonly now: Clock;
  readonly t0: number;
  readonly report: ImportReport;
  readonly totals = { files: 0, bytes: 0 };
  filesDone = 0;
  bytesDone = 0;
  /** the walk met a folder it could not read (its files may only seem gone) */
  walkFailed = false;
  /** phase one's files, while it lists them */
  listing: { done: number; total: number } | null = null;
  #stores = new Map<string, string[]>();
  #lastProgress = 0;

  constructor(readonly options: ImportOptions, readonly workers: { pool: ReadPool | null }) {
    this.now = options.now ?? Date.now;
    this.t0 = this.now();
    this.io = options.io ?? denoIo;
    this.report = {
      started_at: isoAt(this.t0),
      finished_at: "",
      ms: 0,
      files_seen: 0,
      files_unchanged: 0,
      files_read: 0,
      files_resumed: 0,
      files_failed: 0,
      bytes_read: 0,
      sessions_inserted: 0,
      sessions_updated: 0,
      problems: 0,
      stopped: false,
      read_workers: 0,
      files_listed: 0,
      list_ms: null,
      list_first_ms: null,
    };
  }

  /**
   * An agent's own transcript folders as real paths, resolved once per import (each read then checks only its
   * own file's real path against them): a file a linked folder leads elsewhere is refused, in both phases.
   */
  storesOf(agent: string, readers: Readers): string[] {
    let list = this.#stores.get(agent);
    if (list === undefined) {
      this.#stores.set(agent, list = realFolders(readers.get(agent)!.cap.stores(this.options.env)));
    }
    return list;
  }

  #logged = new Set<string>();

  /** Bad input: one log line, counted; the same line once in an import (both phases may meet a bad file). */
  problem = (line: LogLine): void => {
    const key = typeof line.path === "string" ? `${line.what}\0${line.path}\0${String(line.error)}` : null;
    if (key !== null) {
      if (this.#logged.has(key)) return;
      this.#logged.add(key);
    }
    this.report.problems++;
    this.options.log(line);
  };

  /** Tells the caller how far the import is (at most every 200 ms unless `force`). */
  progress(phase: ImportProgress["phase"], force: boolean, current = 0): void {
    if (!this.options.onProgress) return;
    const t = this.now();
    if (!force && t - this.#lastProgress < 200) return;
    this.#lastProgress = t;
    // while phase one lists, its files are what a person waits for (phase two's reads queue behind them)
    const listing = this.listing;
    this.options.onProgress(progressOf(
      listing !== null && phase !== "done"
        ? {
          phase: "list",
          files_total: listing.total,
          files_done: listing.done,
          bytes_total: 0,
          bytes_done: 0,
        }
        : {
          phase,
          files_total: this.totals.files,
          files_done: this.filesDone,
          bytes_total: this.totals.bytes,
          bytes_done: this.bytesDone + current,
        },
      t - this.t0,
    ));
  }

  /** Closes the report. */
  finish(): ImportReport {
    const t1 = this.now();
    this.report.finished_at = isoAt(t1);
    this.report.ms = t1 - this.t0;
    this.progress("done", true);
    return this.report;
  }
}

async function runImport(options: ImportOptions, workers: { pool: ReadPool | null }): Promise<ImportReport> {
  const run = new ImportRun(options, workers);
  run.progress("walk", true);
  // an unchanged file is not read again: rows read under another closeout skill are settled from their skills
  const settled = settleCloseouts(options.ledger, closeoutSkillsOf(options.agents));
  if (settled.rows > 0) options.log({ what: "closeout settled", agents: settled.agents, rows: settled.rows });
  const known = knownFiles(options.ledger);
  // an io handed in is only reachable from this thread; the refresh reads a few files here
  const workersAllowed = options.io !== undefined
    ? 0
    : options.workers ?? (options.only === undefined ? defaultReadWorkers() : 0);
  const { files, readers } = walkStores(run);
  const reads = planImport(run, files, known);
  // phase one's first bundle is read in this thread, and only then do the workers load: loading, they take both
  // cores from it (measured: the top of the page written in about half the time). Its other bundles go to the
  // workers first; phase two's reads queue behind them, so the workers never wait for the list's writes, and the
  // list's rows are written before any derived row
  const sizePool = () => sizeThePool(run, reads, workersAllowed);
  const listing = listFirst(run, reads, readers, sizePool);
  // when there was no list to start them (sizing twice changes nothing)
  sizePool();
  // handled from here on: a list write that fails (a full disk, a locked ledger) before phase two awaits it would
  // otherwise end a server as an unhandled rejection; phase two's first write, or its end, rethrows it
  listing.catch(() => {});
  await readAndWrite(run, reads, { files, readers, known }, listing);
  settle(run, files, known);
  return run.finish();
}

/**
 * After a whole walk that met no unreadable folder and ran to its end: listed files gone from disk are forgotten,
 * and rows with no listed file left stop saying "deriving".
 */
function settle(run: ImportRun, files: TranscriptFile[], known: ReturnType<typeof knownFiles>): void {
  const { options, report } = run;
  if (options.only !== undefined || report.stopped || run.walkFailed) return;
  const seen = new Set(files.map((f) => f.path));
  const gone = [...known.values()].filter((k) => k.listed && !seen.has(k.path)).map((k) => k.path);
  settleListed(options.ledger, gone);
}

/** The walk: every agent's files (or, for the refresh, the named ones). A store that fails is one problem. */
function walkStores(run: ImportRun): { files: TranscriptFile[]; readers: Readers } {
  const { options, io } = run;
  const readersByName: Readers = new Map();
  const files: TranscriptFile[] = [];
  for (const r of readers(options.agents)) {
    readersByName.set(r.agent.name, r);
    try {
      const found = options.only
        ? options.only.filter((f) => f.agent === r.agent.name).map((f) =>
          r.cap.fileOf(f.path, options.env, io)
        )
          .filter((f): f is TranscriptFile => f !== null)
        : r.cap.discover(
          options.env,
          io,
          (path, why) => {
            run.walkFailed = true;
            run.problem({ what: "transcript folder unreadable", agent: r.agent.name, path, error: why });
          },
        );
      for (const f of found) files.push({ ...f, agent: r.agent.name });
    } catch (err) {
      run.walkFailed = true;
      run.problem({ what: "transcript walk failed", agent: r.agent.name, error: errorText(err) });
    }
  }
  run.report.files_seen = files.length;
  return { files, readers: readersByName };
}

/** The plan: skip what is unchanged; the refresh takes only files that grew; a file that failed waits for a change. */
function planImport(
  run: ImportRun,
  files: TranscriptFile[],
  known: ReturnType<typeof knownFiles>,
): PlannedRead[] {
  const { options } = run;
  const plan = planReads(files, known);
  run.report.files_unchanged = plan.unchanged;
  let reads = plan.reads;
  if (options.only && !options.anyChange) {
    reads = reads.filter((r) => r.known === null || r.file.size > r.known.size);
  }
  const failed = options.failed;
  if (failed) reads = reads.filter((r) => failed.get(r.file.path) !== `${r.file.size}:${r.file.mtimeMs}`);
  run.totals.files = reads.length;
  run.totals.bytes = reads.reduce((n, r) => n + Math.max(r.file.size - r.from, 0), 0);
  run.progress("read", true);
  return reads;
}

/**
 * Phase one, on a first run (or when asked): the new files' rows, from their two ends, newest first, before any
 * derived row is written. Its first bundle is read here; then `sizePool` starts the read workers, the other bundles
 * are all sent to them at once, and it resolves when every row is written.
 */
async function listFirst(
  run: ImportRun,
  reads: PlannedRead[],
  readers: Readers,
  sizePool: () => void,
): Promise<void> {
  const { options } = run;
  if (options.only !== undefined || options.shouldStop?.()) return;
  const unlisted = reads.filter((r) => r.unlisted).map((r) => r.file);
  if (unlisted.length === 0 || !(options.list ?? unlisted.length >= LIST_FIRST_FILES)) return;
  run.listing = { done: 0, total: unlisted.length };
  run.progress("list", true);
  const listed = await listFiles(unlisted, {
    onFiles: (done) => {
      run.report.list_first_ms ??= run.now() - run.t0;
      run.listing = { done, total: unlisted.length };
      run.progress("list", false);
    },
    shouldStop: options.shouldStop,
    bundle: options.listBundle,
    ledger: options.ledger,
    readers,
    env: options.env,
    io: run.io,
    harnessRoots: options.harnessRoots,
    startPool: () => {
      sizePool();
      return run.workers.pool;
    },
    within: (agent) => run.storesOf(agent, readers),
    problem: run.problem,
    now: run.now,
  });
  run.report.files_listed = listed.files - listed.failed;
  run.report.list_ms = run.now() - run.t0;
  run.listing = { done: unlisted.length, total: unlisted.length };
  run.progress("list", true);
  run.listing = null;
  run.progress("read", true);
}

/** Reads go to workers when they are many (the writer keeps this thread); a few are read here. */
function sizeThePool(run: ImportRun, reads: PlannedRead[], workersAllowed: number): void {
  const { workers, options } = run;
  const many = reads.length >= PARALLEL_FILES || run.totals.bytes >= PARALLEL_BYTES;
  if (workers.pool === null && workersAllowed > 0 && (many || options.workers !== undefined)) {
    workers.pool = startReadPool(workersAllowed);
  } else if (workers.pool !== null && !many && options.workers === undefined) {
    workers.pool.close();
    workers.pool = null;
  }
  run.report.read_workers = workers.pool?.size ?? 0;
}

/**
 * Read, in batches: each file is read (in a worker or here) as a self-contained job; its result joins the batch,
 * and each batch is folded, derived and written in one transaction. The import stops between files when asked.
 */
async function readAndWrite(
  run: ImportRun,
  reads: PlannedRead[],
  walked: { files: TranscriptFile[]; readers: Readers; known: ReturnType<typeof knownFiles> },
  listing: Promise<void>,
): Promise<void> {
  const { options, io, report } = run;
  const pool = run.workers.pool;
  const writeBatch = batchWriter(run, walked);
  // the list's rows first: a derived row is never written before phase one's are
  const write = async (batch: FileRead[]) => {
    await listing;
    writeBatch(batch);
  };
  const storesOf = (agent: string) => run.storesOf(agent, walked.readers);
  const jobOf = (read: PlannedRead): ReadJob => {
    const agent = walked.readers.get(read.file.agent)!.agent;
    return {
      read,
      agent,
      // only a grown file is read on from its offset, with the state saved there
      savedFold: read.mode === "resume" ? foldStateOf(options.ledger, read.file.path) : null,
      copyTo: agent.keep_copies ? copyRefOf(options.asmHome, agent.name, read.file.rel) : null,
      // a hook-reported path through a linked folder must not lead the read out of the agent's own folders
      within: storesOf(read.file.agent),
      withinResolved: true,
      chunkBytes: options.chunkBytes,
      maxLineBytes: options.maxLineBytes,
      yieldEveryMs: pool ? undefined : options.yieldEveryMs,
    };
  };
  const readHere = async ([job]: ReadJob[]): Promise<ReadDone[]> => [
    await readTranscript(
      job,
      walked.readers.get(job.agent.name)!.cap,
      io,
      (n) => run.progress("read", false, n),
    ),
  ];
  const jobs = reads.map(jobOf);
  const batchSize = options.batchSessions ?? (options.yieldEveryMs === undefined ? 2000 : 500);
  let batch: FileRead[] = [];
  let copyBytes = 0;
  for await (
    const { job, done } of completions(
      pool ? bundles(jobs, BUNDLE_FILES, BUNDLE_BYTES) : jobs.map((job) => [job]),
      pool ? pool.read : readHere,
      pool
        ? {
          running: pool.size * IN_FLIGHT_PER_WORKER,
          waiting: pool.size * WAITING_PER_WORKER,
          bytes: HELD_BYTES,
        }
        : { running: 1, waiting: 1, bytes: 0 },
    )
  ) {
    if (options.shouldStop?.()) {
      report.stopped = true;
      break;
    }
    const read = takeRead(run, job.read, done);
    if (read !== null) {
      const r = walked.readers.get(job.read.file.agent)!;
      batch.push({ ...read, agent: r.agent, cap: r.cap });
      for (const part of read.copy?.parts ?? []) copyBytes += part.length;
    }
    run.progress("read", false);
    // copies wait in memory for their batch: a batch holding many large ones is written early
    if ((batch.length >= batchSize || copyBytes >= COPY_BYTES_PER_BATCH) && !options.shouldStop?.()) {
      await write(batch);
      batch = [];
      copyBytes = 0;
      // the server answers requests between batches
      if (pool) await yieldToLoop();
    }
  }
  // a list still being written keeps the pool (its reads are in the workers), unless the import stops
  if (options.shouldStop?.()) pool?.close();
  await listing;
  pool?.close();
  if (batch.length && !options.shouldStop?.()) await write(batch);
  else if (batch.length) report.stopped = true;
}

/** Counts one finished read; its data when it read, null when it failed (remembered until the file changes). */
function takeRead(run: ImportRun, read: PlannedRead, done: ReadDone): ReadDone["data"] {
  const { options, report } = run;
  for (const line of done.problems) run.problem(line);
  run.filesDone++;
  run.bytesDone += Math.max(read.file.size - read.from, 0);
  if (done.data === null) {
    report.files_failed++;
    options.failed?.set(read.file.path, `${read.file.size}:${read.file.mtimeMs}`);
    return null;
  }
  options.failed?.delete(read.file.path);
  report.files_read++;
  if (done.data.resumed) report.files_resumed++;
  report.bytes_read += done.data.outcome.bytesRead;
  return done.data;
}

/** Writes one batch of reads (one transaction), counting what it inserted and updated. */
function batchWriter(
  run: ImportRun,
  walked: { files: TranscriptFile[]; known: ReturnType<typeof knownFiles> },
): (reads: FileRead[]) => void {
  const { options, io, report } = run;
  // the files on record of each session: a session with more than one needs the others' saved states
  const sessionFiles = new Map<string, string[]>();
  for (const k of walked.known.values()) {
    if (k.asm_id === null) continue;
    const list = sessionFiles.get(k.asm_id) ?? [];
    list.push(k.path);
    sessionFiles.set(k.asm_id, list);
  }
  const batchOptions = {
    ...options,
    io,
    roots: projectRoots(io, [safeHome(options.env)]),
    byPath: new Map(walked.files.map((f) => [f.path, f])),
    sessionFiles,
    problem: run.problem,
    now: run.now,
  };
  return (reads) => {
    const written = writeBatch(reads, batchOptions);
    report.sessions_inserted += written.inserted;
    report.sessions_updated += written.updated;
  };
}

/**
 * New files from which a first run lists before it derives (phase one): below it the full pass takes a fraction of
 * a second and a list first only adds its own time (decision 196).
 */
export const LIST_FIRST_FILES = 500;
/** Reads worth workers: this many files, or this many bytes. */
const PARALLEL_FILES = 64;
const PARALLEL_BYTES = 32 << 20;
/** Compressed copy bytes a batch may hold before it is written. */
const COPY_BYTES_PER_BATCH = 64 << 20;
/**
 * Bundles sent to each worker ahead of its answers: enough to keep it reading through the writer's longest batch
 * (the writer's thread cannot hand out more work while it writes).
 */
const IN_FLIGHT_PER_WORKER = 16;
/** Bundles read per worker that may wait for the writer. */
const WAITING_PER_WORKER = 16;
/** File bytes of the bundles out at once: bounds what their results (and copies) hold in memory. */
const HELD_BYTES = 64 << 20;
/** A bundle: at most this many files, about this many bytes. */
const BUNDLE_FILES = 64;
const BUNDLE_BYTES = 8 << 20;

function safeHome(env: Env): string {
  try {
    return homeDir(env);
  } catch {
    return "/";
  }
}
