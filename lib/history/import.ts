/**
 * The history import, the shell around the byte pass: walk every agent's transcript store, skip the files whose
 * (size, mtime) are unchanged (import_state loaded once, nothing opened), read the rest (a grown file on from its
 * saved offset, with its saved fold state), fold each session's files into facts, let each agent add what lives
 * outside its transcripts, derive the rows (title, closeout, project) and write them in batches, one transaction
 * per batch. Bad input never stops it: a file that cannot be read, or reads badly, costs one log line.
 * @module
 */
import { homeDir } from "../config/paths.ts";
import type { AgentConfig, Env } from "../agents/protocol.ts";
import { adapterOf } from "../agents/registry.ts";
import type { TranscriptCapability, TranscriptFile, TranscriptIo } from "../agents/transcript_types.ts";
import type { ProjectRules } from "../derive/project.ts";
import { foldStateOf, isoAt, knownFiles, type Ledger } from "../ledger/mod.ts";
import { yieldToLoop } from "../derive/byte_pass.ts";
import { writeBatch } from "./batch.ts";
import { denoIo } from "./io.ts";
import { planReads } from "./plan.ts";
import { type ImportProgress, progressOf } from "./progress.ts";
import { closeCopyStores, copyRefOf } from "./copies.ts";
import { bundles, completions, defaultReadWorkers, type ReadPool, startReadPool } from "./read_pool.ts";
import { errorText, type FileRead, type ReadDone, type ReadJob, readTranscript } from "./read_file.ts";
import { projectRoots } from "./roots.ts";

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
  log: (line: Record<string, unknown>) => void;
  io?: TranscriptIo;
  onProgress?: (progress: ImportProgress) => void;
  rules?: ProjectRules;
  /** The server lets the event loop run this often during a long import; the CLI never yields. */
  yieldEveryMs?: number;
  /** The refresh: only these known transcripts, and only when they grew. */
  only?: { agent: string; path: string }[];
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
  now?: () => number;
  /** True when the import must stop (its server is closing): it stops between files, writing nothing more. */
  shouldStop?: () => boolean;
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

/** Runs one import. Unchanged files cost a stat each and nothing is written when nothing changed. */
export async function importOnce(o: ImportOptions): Promise<ImportReport> {
  // the read workers, once started, end with the import whatever happens in it
  const workers: { pool: ReadPool | null } = { pool: null };
  try {
    return await runImport(o, workers);
  } finally {
    workers.pool?.close();
    closeCopyStores();
  }
}

async function runImport(o: ImportOptions, workers: { pool: ReadPool | null }): Promise<ImportReport> {
  const now = o.now ?? Date.now;
  const t0 = now();
  const io = o.io ?? denoIo;
  const report: ImportReport = {
    started_at: isoAt(t0),
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
  };
  const problem = (line: Record<string, unknown>) => {
    report.problems++;
    o.log(line);
  };
  o.onProgress?.(
    progressOf({ phase: "walk", files_total: 0, files_done: 0, bytes_total: 0, bytes_done: 0 }, 0),
  );

  // 1. the walk: every agent's files (or, for the refresh, the named ones)
  const known = knownFiles(o.ledger);
  // a ledger that knows (almost) no file is about to read every transcript: the workers load during the walk
  const workersAllowed = o.io !== undefined
    ? 0
    : o.workers ?? (o.only === undefined ? defaultReadWorkers() : 0);
  let pool: ReadPool | null = workers.pool = workersAllowed > 0 && known.size < PARALLEL_FILES
    ? startReadPool(workersAllowed)
    : null;
  const capOf = new Map<string, { agent: AgentConfig; cap: TranscriptCapability }>();
  const files: TranscriptFile[] = [];
  for (const r of readers(o.agents)) {
    capOf.set(r.agent.name, r);
    try {
      const found = o.only
        ? o.only.filter((f) => f.agent === r.agent.name).map((f) => r.cap.fileOf(f.path, o.env, io))
          .filter((f): f is TranscriptFile => f !== null)
        : r.cap.discover(
          o.env,
          io,
          (path, why) =>
            problem({ what: "transcript folder unreadable", agent: r.agent.name, path, error: why }),
        );
      for (const f of found) files.push({ ...f, agent: r.agent.name });
    } catch (err) {
      problem({ what: "transcript walk failed", agent: r.agent.name, error: errorText(err) });
    }
  }
  report.files_seen = files.length;

  // 2. the plan: skip what is unchanged; the refresh takes only files that grew
  const plan = planReads(files, known);
  report.files_unchanged = plan.unchanged;
  let reads = plan.reads;
  if (o.only) reads = reads.filter((r) => r.known === null || r.file.size > r.known.size);
  if (o.failed) {
    const failed = o.failed;
    reads = reads.filter((r) => failed.get(r.file.path) !== `${r.file.size}:${r.file.mtimeMs}`);
  }
  const byPath = new Map(files.map((f) => [f.path, f]));
  const totals = {
    files: reads.length,
    bytes: reads.reduce((n, r) => n + Math.max(r.file.size - r.from, 0), 0),
  };
  let filesDone = 0;
  let bytesDone = 0;
  let lastProgress = 0;
  const progress = (force: boolean, current = 0) => {
    if (!o.onProgress) return;
    const t = now();
    if (!force && t - lastProgress < 200) return;
    lastProgress = t;
    o.onProgress(progressOf({
      phase: "read",
      files_total: totals.files,
      files_done: filesDone,
      bytes_total: totals.bytes,
      bytes_done: bytesDone + current,
    }, t - t0));
  };
  progress(true);

  // 3. read, in batches: each batch is folded, derived and written in one transaction
  const roots = projectRoots(io, [safeHome(o.env)]);
  // the files on record of each session: a session with more than one needs the others' saved states
  const sessionFiles = new Map<string, string[]>();
  for (const k of known.values()) {
    if (k.asm_id === null) continue;
    const list = sessionFiles.get(k.asm_id) ?? [];
    list.push(k.path);
    sessionFiles.set(k.asm_id, list);
  }
  const batchSize = o.batchSessions ?? (o.yieldEveryMs === undefined ? 2000 : 500);
  const batchOptions = { ...o, io, roots, byPath, sessionFiles, problem, now };
  const write = (files: FileRead[]) => {
    const written = writeBatch(files, batchOptions);
    report.sessions_inserted += written.inserted;
    report.sessions_updated += written.updated;
  };
  // the reads: in workers when there are many (the writer keeps this thread), else here
  const many = reads.length >= PARALLEL_FILES || totals.bytes >= PARALLEL_BYTES;
  if (pool === null && workersAllowed > 0 && (many || o.workers !== undefined)) {
    pool = workers.pool = startReadPool(workersAllowed);
  } else if (pool !== null && !many && o.workers === undefined) {
    pool.close();
    pool = workers.pool = null;
  }
  const jobOf = (read: (typeof reads)[number]): ReadJob => {
    const agent = capOf.get(read.file.agent)!.agent;
    return {
      read,
      agent,
      // only a grown file is read on from its offset, with the state saved there
      savedFold: read.mode === "resume" ? foldStateOf(o.ledger, read.file.path) : null,
      copyTo: agent.keep_copies ? copyRefOf(o.asmHome, agent.name, read.file.rel) : null,
      chunkBytes: o.chunkBytes,
      maxLineBytes: o.maxLineBytes,
      yieldEveryMs: pool ? undefined : o.yieldEveryMs,
    };
  };
  const readHere = async ([job]: ReadJob[]): Promise<ReadDone[]> => [
    await readTranscript(job, capOf.get(job.agent.name)!.cap, io, (n) => progress(false, n)),
  ];
  const jobs = reads.map(jobOf);
  report.read_workers = pool?.size ?? 0;
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
    if (o.shouldStop?.()) {
      report.stopped = true;
      break;
    }
    const { read } = job;
    for (const line of done.problems) problem(line);
    filesDone++;
    bytesDone += Math.max(read.file.size - read.from, 0);
    if (done.data === null) {
      report.files_failed++;
      o.failed?.set(read.file.path, `${read.file.size}:${read.file.mtimeMs}`);
    } else {
      o.failed?.delete(read.file.path);
      report.files_read++;
      if (done.data.resumed) report.files_resumed++;
      report.bytes_read += done.data.outcome.bytesRead;
      const r = capOf.get(read.file.agent)!;
      batch.push({ ...done.data, agent: r.agent, cap: r.cap });
      for (const part of done.data.copy?.parts ?? []) copyBytes += part.length;
    }
    progress(false);
    // copies wait in memory for their batch: a batch holding many large ones is written early
    if ((batch.length >= batchSize || copyBytes >= COPY_BYTES_PER_BATCH) && !o.shouldStop?.()) {
      write(batch);
      batch = [];
      copyBytes = 0;
      // the server answers requests between batches
      if (pool) await yieldToLoop();
    }
  }
  pool?.close();
  if (batch.length && !o.shouldStop?.()) write(batch);
  else if (batch.length) report.stopped = true;
  const t1 = now();
  report.finished_at = isoAt(t1);
  report.ms = t1 - t0;
  o.onProgress?.(progressOf({
    phase: "done",
    files_total: totals.files,
    files_done: filesDone,
    bytes_total: totals.bytes,
    bytes_done: bytesDone,
  }, t1 - t0));
  return report;
}

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
