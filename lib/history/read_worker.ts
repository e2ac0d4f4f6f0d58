/**
 * A read worker: runs {@link readTranscript} on the jobs it is sent, with the real file system, and posts each
 * result back under the job's id. Started by `read_pool.ts`; it holds no state between jobs but the byte pass's
 * buffers.
 * @module
 */
/// <reference lib="deno.worker" />
// deep on purpose: the transcript readers alone; the agents' face would load the registry into each worker
import { transcriptReader } from "../agents/transcripts.ts";
import { denoIo } from "./io.ts";
import { failedRead, type FileReadData, type ReadInput, readTranscript } from "./read_file.ts";
import { failedList, type ListDone, listTranscript } from "./list_read.ts";
import type { TranscriptFile } from "../derive/mod.ts";
import { errorText, type LogLine } from "../lang/mod.ts";

/** One file to read, as a worker is sent it: the adapter by name (agent configs stay with the writer). */
export interface WireJob extends ReadInput {
  adapter: string;
}

/** Phase one's read of one file's two ends, as a worker is sent it. */
export interface WireListJob {
  file: TranscriptFile;
  adapter: string;
  /** the agent's own transcript folders, as real paths: the file is read only when it lies in one */
  within: readonly string[];
}

/** Jobs as the pool sends them: several per message (a message costs more than reading a small file). */
export type WorkerJobs = { id: number; jobs: WireJob[] } | { id: number; lists: WireListJob[] };

/**
 * A result as a worker answers it: the file and the parsed state stay behind (the writer has the file, and the
 * state travels once, as its JSON).
 */
export interface WireDone {
  data: Omit<FileReadData, "file" | "state"> | null;
  problems: LogLine[];
}

/** The answer to a message: one result per job, in order. */
export type WorkerAnswer = { id: number; dones: WireDone[] } | { id: number; listed: ListDone[] };

async function readOne(job: WireJob): Promise<WireDone> {
  try {
    const cap = transcriptReader(job.adapter);
    const { data, problems } = await readTranscript(job, cap, denoIo);
    if (data === null) return { data: null, problems };
    const { file: _file, state: _state, ...rest } = data;
    return { data: rest, problems };
  } catch (err) {
    return failedRead(job, errorText(err));
  }
}

function listOne(job: WireListJob): ListDone {
  try {
    return listTranscript(job.file, transcriptReader(job.adapter), denoIo, {
      within: job.within,
      withinResolved: true,
    });
  } catch (err) {
    return failedList(job.file, errorText(err));
  }
}

// Bundles are read one after another: a message can arrive while a read awaits (messages are promise-driven in
// Deno), and interleaved bundles would all finish late, together, instead of one at a time.
const queue: WorkerJobs[] = [];
let reading = false;

async function drain(): Promise<void> {
  reading = true;
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if ("lists" in next) {
      self.postMessage({ id: next.id, listed: next.lists.map(listOne) } satisfies WorkerAnswer);
      continue;
    }
    const dones: WireDone[] = [];
    for (const job of next.jobs) dones.push(await readOne(job));
    self.postMessage({ id: next.id, dones } satisfies WorkerAnswer);
  }
  reading = false;
}

self.onmessage = (event: MessageEvent<WorkerJobs>) => {
  queue.push(event.data);
  if (!reading) drain();
};
