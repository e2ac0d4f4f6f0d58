/**
 * The import's reads, in parallel: a few workers (one per core, at most four) each run the byte pass on the files
 * they are sent, while the importing thread writes batches and answers requests. Files travel in bundles (a
 * message costs more than reading a small transcript), and a bundle goes to the worker with the fewest bytes
 * still to read, so one long transcript does not hold up a queue of short ones. The workers end with the import.
 * @module
 */
import { failedRead, type ReadDone, type ReadJob } from "./read_file.ts";
import type { WireDone, WireJob, WireListJob, WorkerAnswer, WorkerJobs } from "./read_worker.ts";
import { failedList, type ListDone } from "./list_read.ts";
import { errorText } from "../lang/mod.ts";

/** Workers reading transcripts for one import. */
export interface ReadPool {
  /** How many workers read. */
  readonly size: number;
  /**
   * Reads a bundle of files in one worker; one result per job, in order. A worker that fails answers with
   * problem lines, never a rejection.
   */
  read(jobs: ReadJob[]): Promise<ReadDone[]>;
  /** Phase one: reads the two ends of a bundle of files in one worker; one result per file, in order. */
  list(files: WireListJob[]): Promise<ListDone[]>;
  /** Ends every worker (bundles still being read are answered with problem lines). */
  close(): void;
}

/** The default number of read workers: one per core, at most four. */
export function defaultReadWorkers(): number {
  return Math.max(1, Math.min(4, navigator.hardwareConcurrency ?? 1));
}

interface Slot {
  worker: Worker;
  /** bytes of the bundles sent and not answered yet */
  queued: number;
  pending: Map<number, { jobs: ReadJob[]; resolve: (dones: ReadDone[]) => void; bytes: number }>;
  listing: Map<number, { files: WireListJob[]; resolve: (dones: ListDone[]) => void; bytes: number }>;
}

function bytesOf(jobs: ReadJob[]): number {
  return jobs.reduce((n, job) => n + Math.max(job.read.file.size - job.read.from, 1), 0);
}

function wireOf(job: ReadJob): WireJob {
  const { agent, ...input } = job;
  return { ...input, adapter: agent.adapter };
}

/** A worker's answer with the file and the state put back (the state travelled as its JSON). */
function doneOf(job: ReadJob, wire: WireDone | undefined): ReadDone {
  if (wire === undefined) return failedRead(job, "the read worker gave no answer for it");
  if (wire.data === null) return { data: null, problems: wire.problems };
  return {
    data: { ...wire.data, file: job.read.file, state: JSON.parse(wire.data.fold) },
    problems: wire.problems,
  };
}

/** Starts `size` read workers. */
export function startReadPool(size: number): ReadPool {
  const slots: Slot[] = [];
  let nextId = 0;
  let closed = false;
  const settleAll = (slot: Slot, why: string) => {
    for (const { jobs, resolve } of slot.pending.values()) resolve(jobs.map((job) => failedRead(job, why)));
    slot.pending.clear();
    for (const { files, resolve } of slot.listing.values()) {
      resolve(files.map((job) => failedList(job.file, why)));
    }
    slot.listing.clear();
    slot.queued = 0;
  };
  for (let i = 0; i < size; i++) {
    const worker = new Worker(new URL("./read_worker.ts", import.meta.url), { type: "module" });
    const slot: Slot = { worker, queued: 0, pending: new Map(), listing: new Map() };
    worker.onmessage = (event: MessageEvent<WorkerAnswer>) => {
      const answer = event.data;
      if ("listed" in answer) {
        const listing = slot.listing.get(answer.id);
        if (!listing) return;
        slot.listing.delete(answer.id);
        slot.queued -= listing.bytes;
        listing.resolve(
          listing.files.map((job, k) => answer.listed[k] ?? failedList(job.file, "no answer for it")),
        );
        return;
      }
      const entry = slot.pending.get(answer.id);
      if (!entry) return;
      slot.pending.delete(event.data.id);
      slot.queued -= entry.bytes;
      entry.resolve(entry.jobs.map((job, k) => doneOf(job, answer.dones[k])));
    };
    worker.onerror = (event: ErrorEvent) => {
      // a worker that dies takes its queue with it: each file costs one problem line and is read next time
      event.preventDefault();
      settleAll(slot, `the read worker stopped: ${event.message}`);
    };
    slots.push(slot);
  }
  return {
    size,
    read(jobs: ReadJob[]): Promise<ReadDone[]> {
      if (closed) return Promise.resolve(jobs.map((job) => failedRead(job, "the import stopped")));
      const slot = slots.reduce((a, b) => (b.queued < a.queued ? b : a));
      const id = nextId++;
      const bytes = bytesOf(jobs);
      slot.queued += bytes;
      return new Promise((resolve) => {
        slot.pending.set(id, { jobs, resolve, bytes });
        slot.worker.postMessage({ id, jobs: jobs.map(wireOf) } satisfies WorkerJobs);
      });
    },
    list(files: WireListJob[]): Promise<ListDone[]> {
      if (closed) return Promise.resolve(files.map((job) => failedList(job.file, "the import stopped")));
      const slot = slots.reduce((a, b) => (b.queued < a.queued ? b : a));
      const id = nextId++;
      // a list read costs about the same for every file: count files, not their size
      const bytes = files.length * LIST_COST;
      slot.queued += bytes;
      return new Promise((resolve) => {
        slot.listing.set(id, { files, resolve, bytes });
        slot.worker.postMessage({ id, lists: files } satisfies WorkerJobs);
      });
    },
    close() {
      if (closed) return;
      closed = true;
      for (const slot of slots) {
        slot.worker.terminate();
        settleAll(slot, "the import stopped");
      }
    },
  };
}

/** What one file's list read weighs in a worker's queue, in bytes of a full read. */
const LIST_COST = 64 << 10;

/** Jobs cut into bundles of at most `files` files and about `bytes` bytes (a bigger file is a bundle alone). */
export function* bundles(jobs: Iterable<ReadJob>, files: number, bytes: number): Generator<ReadJob[]> {
  let bundle: ReadJob[] = [];
  let size = 0;
  for (const job of jobs) {
    const n = Math.max(job.read.file.size - job.read.from, 1);
    if (bundle.length > 0 && (bundle.length >= files || size + n > bytes)) {
      yield bundle;
      bundle = [];
      size = 0;
    }
    bundle.push(job);
    size += n;
  }
  if (bundle.length > 0) yield bundle;
}

/** A job with what its read did. */
export interface Completion {
  job: ReadJob;
  done: ReadDone;
}

/** How much {@link completions} keeps going at once. */
export interface CompletionLimits {
  /** bundles being read at once */
  running: number;
  /** bundles read and not taken by the consumer yet; no new bundle starts while this many wait */
  waiting: number;
  /** file bytes of the bundles running and waiting together; one bundle always runs, however large */
  bytes: number;
}

/**
 * Runs bundles of jobs through `run` and yields each job with its result as its bundle completes (not in job
 * order). A bundle that finishes starts the next at once, so readers never wait for a consumer busy writing, until
 * the limits are reached: results held in memory stay bounded. A consumer that stops early (its server closed)
 * starts nothing new.
 */
export async function* completions(
  units: Iterable<ReadJob[]>,
  run: (jobs: ReadJob[]) => Promise<ReadDone[]>,
  limits: CompletionLimits,
): AsyncGenerator<Completion> {
  const source = units[Symbol.iterator]();
  const settled: { bytes: number; completions: Completion[] }[] = [];
  let running = 0;
  let held = 0; // file bytes of the bundles running and waiting
  let stopped = false;
  let wake: (() => void) | null = null;
  const launch = () => {
    while (!stopped && running < limits.running && settled.length < limits.waiting) {
      if (running + settled.length > 0 && held >= limits.bytes) return;
      const next = source.next();
      if (next.done) return;
      const jobs = next.value;
      const bytes = bytesOf(jobs);
      running++;
      held += bytes;
      run(jobs)
        .catch((err) => jobs.map((job) => failedRead(job, errorText(err))))
        .then((dones) => {
          running--;
          settled.push({
            bytes,
            completions: jobs.map((job, k) => ({ job, done: dones[k] ?? failedRead(job, "no result") })),
          });
          launch();
          wake?.();
        });
    }
  };
  try {
    launch();
    while (running > 0 || settled.length > 0) {
      const first = settled.shift();
      if (first === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      yield* first.completions;
      held -= first.bytes;
      launch();
    }
  } finally {
    stopped = true;
  }
}
