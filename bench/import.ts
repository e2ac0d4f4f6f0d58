/**
 * The history import's speed against the physical limit and against ccusage, on a generated corpus
 * (`bench/corpus.ts`) in a temporary folder, in one run:
 *
 * - raw read: every corpus byte read in 1 MiB chunks by a Deno process doing nothing else (the limit);
 * - the I/O floor of the list: the agents' own walk, then each file opened as phase one opens it (no link, a
 *   regular file, its real path inside its agent's folders) and its first and last 16 KiB read, in one thread,
 *   nothing parsed and nothing written (`list_io_ms`; its walk alone is `walk_ms`, what an unchanged re-import
 *   cannot skip): the part of phase one no fold or ledger work can remove, so a target below it is a target below
 *   this machine's system calls;
 * - asm cold import: `importOnce` into an empty ledger, both phases: phase one lists every transcript from its two
 *   ends, newest first (`list_ms`: from the start until those rows are written, the walk included: when the whole
 *   list shows; `list_first_ms`: until the first bundle's, the 250 newest transcripts', are: the top of the page),
 *   then the full pass derives every fact (`full_ms`: the whole import);
 * - asm unchanged re-import: `importOnce` again in a new process, nothing changed;
 * - ccusage (`ccusage@20.0.24`, its native linux-x64 reader) `claude daily --json --offline` on the Claude part;
 * - notify to row: after the first cold import, a server's watch and runner on the same ledger; a prompt line is
 *   appended to one Claude transcript at a time (0.6 s apart, past the watch's gap) and timed until that session's
 *   row counts the turn.
 *
 * Each asm measure runs in its own `deno run` process, timed inside it (module loading is not the import), and
 * reports its peak RSS (VmHWM). All reads are from the page cache: the corpus was just written (and flushed with
 * `sync` before anything is timed). The measures run in `--runs` rounds (default 3), interleaved, and each time is
 * the median of its rounds: a slow spell of a shared machine then falls on asm and ccusage alike.
 * Run as main (`./asm bench import [--bytes N] [--sessions N] [--seed N] [--runs N]`) it prints one JSON line.
 * @module
 */
import { join } from "node:path";
import { type Corpus, type CorpusAgent, writeCorpus } from "./corpus.ts";

/** Options of {@linkcode benchImport}. */
export interface ImportBenchOptions {
  /** corpus size in bytes (default 1e9) */
  bytes?: number;
  /** sessions in the corpus (default 5,000) */
  sessions?: number;
  /** corpus seed (default 1) */
  seed?: number;
  /** the ccusage program (default: the native reader under .tools/bench, installed with npm when missing) */
  ccusage?: string;
  /** rounds of every measure; each figure is the median (default 3) */
  runs?: number;
}

/** The figures of one bench run. Throughputs are corpus MB (1e6 bytes) per second. */
export interface ImportBench {
  /** rounds measured; every time below is the median of its rounds */
  runs: number;
  corpus_mb: number;
  claude_mb: number;
  files: number;
  /** sessions written per agent */
  sessions: Record<CorpusAgent, number>;
  /** session rows the cold import made per agent (sub-agents and all hidden rows included) */
  imported: Record<string, number>;
  corpus_ms: number;
  raw_read_ms: number;
  raw_read_mb_s: number;
  /** phase one: from the start of the cold import until every listed row is written (the walk included) */
  list_ms: number;
  /** ccusage_ms / list_ms: the whole list against ccusage's token sum (target >= 1.0) */
  list_vs_ccusage: number;
  /** rows phase one listed */
  listed: number;
  /** phase one: from the start until its first bundle's rows (the 250 newest transcripts) are written */
  list_first_ms: number;
  /** ccusage_ms / list_first_ms: the top of the list against ccusage's token sum */
  list_first_vs_ccusage: number;
  /** the walk and each file's two bounded ends read as phase one reads them, nothing parsed or written */
  list_io_ms: number;
  /** ccusage_ms / list_io_ms: the list's I/O alone against ccusage's token sum */
  list_io_vs_ccusage: number;
  /** the agents' own walk alone (a stat of every transcript): what an unchanged re-import cannot skip */
  walk_ms: number;
  /** the whole cold import: both phases */
  full_ms: number;
  import_mb_s: number;
  /** the deep-search index build, once the import has one (null: not built yet) */
  fts_ms: number | null;
  reimport_ms: number;
  ccusage_ms: number;
  /** Claude MB per second of ccusage */
  ccusage_mb_s: number;
  /** import_mb_s / raw_read_mb_s */
  vs_raw_read: number;
  /** import_mb_s / ccusage_mb_s */
  vs_ccusage: number;
  /** read workers the cold import used (0: it read in its own thread) */
  read_workers: number;
  /** how the byte pass found newlines: "simd" (WebAssembly) or "indexOf" */
  newline_search: "simd" | "indexOf";
  /** the highest VmHWM of the two import processes, MB */
  peak_rss_mb: number;
  reimport_rss_mb: number;
  /** a line appended to a transcript until its row shows it, through the watch (p50 and p90 of the samples) */
  notify_to_row_ms: number;
  notify_to_row_p90_ms: number;
  notify_samples: number;
}

const DENO = Deno.execPath();
const SELF = new URL(import.meta.url).pathname;
const REPO = new URL("..", import.meta.url).pathname;
const CCUSAGE_VERSION = "20.0.24";
const CCUSAGE_DIR = join(REPO, ".tools", "bench");
const CCUSAGE_NATIVE = join(CCUSAGE_DIR, "node_modules", "@ccusage", "ccusage-linux-x64", "bin", "ccusage");

/** What a child process reports on its stdout, as one JSON line. */
interface ChildReport {
  ms: number;
  workers?: number;
  simd?: boolean;
  rss_mb: number;
  bytes: number;
  imported?: Record<string, number>;
  files_unchanged?: number;
  files_read?: number;
  problems?: number;
  /** the notify child: each sample's time from the append to the row (ms) */
  samples?: number[];
  /** phase one: when its rows were written (ms from the start), and the rows it listed */
  list_ms?: number | null;
  list_first_ms?: number | null;
  listed?: number;
  /** the I/O floor child: its walk alone (ms) and the files it opened */
  walk_ms?: number;
  files?: number;
}

function round(n: number, places = 1): number {
  const f = 10 ** places;
  return Math.round(n * f) / f;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Asks the kernel to write dirty pages back (`sync`); where there is no `sync` program, it does nothing. */
async function flushWrites(): Promise<void> {
  try {
    await new Deno.Command("sync", { stdout: "null", stderr: "null" }).output();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

function mbPerS(bytes: number, ms: number): number {
  return bytes / 1e6 / (ms / 1000);
}

/** Peak resident set of this process, MB (VmHWM in /proc/self/status). */
function peakRssMb(): number {
  const kb = Deno.readTextFileSync("/proc/self/status").match(/^VmHWM:\s+(\d+) kB/m)?.[1];
  return kb ? Number(kb) / 1024 : NaN;
}

/** Runs this file as a child in one mode and returns its one JSON line. */
async function child(mode: string, corpus: Corpus, asmHome: string): Promise<ChildReport> {
  const out = await new Deno.Command(DENO, {
    args: ["run", "-A", "--no-prompt", SELF, mode, corpus.root, asmHome],
    // the agents' homes are the corpus: nothing may read the real ones
    env: { ...corpus.env, ASM_HOME: asmHome },
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) {
    throw new Error(`the ${mode} process failed: ${new TextDecoder().decode(out.stderr).slice(-2000)}`);
  }
  return JSON.parse(text.split("\n").pop() ?? "");
}

/** Makes the native reader executable: npm unpacks a package's binary without its mode on some setups. */
function executable(path: string): string {
  const mode = Deno.statSync(path).mode ?? 0;
  if ((mode & 0o111) === 0) Deno.chmodSync(path, mode | 0o755);
  return path;
}

/** The native ccusage reader, installed into .tools/bench with npm when it is not there yet. */
async function ccusageProgram(): Promise<string> {
  try {
    Deno.statSync(CCUSAGE_NATIVE);
    return executable(CCUSAGE_NATIVE);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const out = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      CCUSAGE_DIR,
      `ccusage@${CCUSAGE_VERSION}`,
      `@ccusage/ccusage-linux-x64@${CCUSAGE_VERSION}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `npm could not install ccusage@${CCUSAGE_VERSION}: ${new TextDecoder().decode(out.stderr).slice(-500)}`,
    );
  }
  return executable(CCUSAGE_NATIVE);
}

/** Times ccusage's full daily report on the corpus's Claude folder; throws unless it reported the corpus's days. */
async function timeCcusage(program: string, corpus: Corpus): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(program, {
    args: ["claude", "daily", "--json", "--offline"],
    clearEnv: true,
    env: {
      HOME: corpus.env.HOME,
      CLAUDE_CONFIG_DIR: corpus.claudeDir,
      PATH: "/usr/bin:/bin",
      NO_COLOR: "1",
      // loopback only: a pricing fetch, if it tried one, fails at once instead of leaving the machine
      HTTP_PROXY: "http://127.0.0.1:9",
      HTTPS_PROXY: "http://127.0.0.1:9",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t0;
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`ccusage failed: ${new TextDecoder().decode(out.stderr).slice(-1000)}`);
  const report = JSON.parse(text) as { daily?: unknown[] };
  if (!Array.isArray(report.daily) || report.daily.length === 0) {
    throw new Error(`ccusage found no Claude usage in the corpus: ${text.slice(0, 300)}`);
  }
  return ms;
}

/** Builds a corpus in a temporary folder, measures, removes the folder, and returns the figures. */
export async function benchImport(options: ImportBenchOptions = {}): Promise<ImportBench> {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-bench-import-" }));
  try {
    const ccusage = options.ccusage ?? await ccusageProgram();
    const c0 = performance.now();
    const corpus = writeCorpus({
      root,
      bytes: options.bytes,
      sessions: options.sessions,
      seed: options.seed,
    });
    const corpusMs = performance.now() - c0;
    // the corpus's pages are written back before anything is timed: no measure pays for the writer's flush
    await flushWrites();

    // rounds interleave the measures, so a slow spell of the machine falls on all of them alike
    const runs = Math.max(1, Math.floor(options.runs ?? 3));
    const raws: ChildReport[] = [];
    const floors: ChildReport[] = [];
    const colds: ChildReport[] = [];
    const agains: ChildReport[] = [];
    const ccusages: number[] = [];
    for (let round = 0; round < runs; round++) {
      const asmHome = join(root, `asm-${round}`);
      Deno.mkdirSync(asmHome);
      const raw = await child("--raw-read", corpus, asmHome);
      if (raw.bytes !== corpus.totalBytes) {
        throw new Error(`the raw read saw ${raw.bytes} bytes of ${corpus.totalBytes}`);
      }
      raws.push(raw);
      const floor = await child("--list-io", corpus, asmHome);
      if (floor.files !== corpus.files) {
        throw new Error(`the list's I/O floor opened ${floor.files} of ${corpus.files} files`);
      }
      floors.push(floor);
      colds.push(await child("--import", corpus, asmHome));
      const again = await child("--import", corpus, asmHome);
      if (again.files_read !== 0) throw new Error(`the unchanged re-import read ${again.files_read} files`);
      agains.push(again);
      ccusages.push(await timeCcusage(ccusage, corpus));
      await Deno.remove(asmHome, { recursive: true });
    }
    // the watch, once, on the first round's ledger (made again: each round removed its own)
    const notifyHome = join(root, "asm-notify");
    Deno.mkdirSync(notifyHome);
    await child("--import", corpus, notifyHome);
    const notified = await child("--notify", corpus, notifyHome);
    const samples = notified.samples ?? [];
    if (samples.length === 0) throw new Error("the notify measure took no sample");
    const cold = colds[0];
    const rawMs = median(raws.map((r) => r.ms));
    const importMs = median(colds.map((r) => r.ms));
    if (colds.some((r) => r.list_ms === null || r.list_ms === undefined)) {
      throw new Error("a cold import did not list first");
    }
    const listMs = median(colds.map((r) => r.list_ms!));
    const listFirstMs = median(colds.map((r) => r.list_first_ms ?? NaN));
    const reimportMs = median(agains.map((r) => r.ms));
    const listIoMs = median(floors.map((r) => r.ms));
    const ccusageMs = median(ccusages);

    const importMbS = mbPerS(corpus.totalBytes, importMs);
    const rawMbS = mbPerS(corpus.totalBytes, rawMs);
    const ccusageMbS = mbPerS(corpus.bytes.claude, ccusageMs);
    return {
      runs,
      corpus_mb: round(corpus.totalBytes / 1e6),
      claude_mb: round(corpus.bytes.claude / 1e6),
      files: corpus.files,
      sessions: corpus.sessions,
      imported: cold.imported ?? {},
      corpus_ms: Math.round(corpusMs),
      raw_read_ms: round(rawMs),
      raw_read_mb_s: round(rawMbS),
      list_ms: round(listMs),
      list_vs_ccusage: round(ccusageMs / listMs, 3),
      listed: cold.listed ?? 0,
      list_first_ms: round(listFirstMs),
      list_first_vs_ccusage: round(ccusageMs / listFirstMs, 3),
      list_io_ms: round(listIoMs),
      list_io_vs_ccusage: round(ccusageMs / listIoMs, 3),
      walk_ms: round(median(floors.map((r) => r.walk_ms ?? NaN))),
      full_ms: round(importMs),
      import_mb_s: round(importMbS),
      fts_ms: null,
      reimport_ms: round(reimportMs),
      ccusage_ms: round(ccusageMs),
      ccusage_mb_s: round(ccusageMbS),
      vs_raw_read: round(importMbS / rawMbS, 3),
      vs_ccusage: round(importMbS / ccusageMbS, 3),
      read_workers: cold.workers ?? 0,
      newline_search: cold.simd ? "simd" : "indexOf",
      peak_rss_mb: round(Math.max(...colds.map((r) => r.rss_mb), ...agains.map((r) => r.rss_mb))),
      reimport_rss_mb: round(Math.max(...agains.map((r) => r.rss_mb))),
      notify_to_row_ms: round(median(samples)),
      notify_to_row_p90_ms: round(
        [...samples].sort((a, b) => a - b)[Math.floor(samples.length * 0.9)] ?? NaN,
      ),
      notify_samples: samples.length,
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

// ---- the child processes ----

function filesUnder(dir: string, out: string[]): string[] {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return out;
    throw err;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory) filesUnder(path, out);
    else if (e.isFile && e.name.endsWith(".jsonl")) out.push(path);
  }
  return out;
}

/** Reads every transcript byte under the homes in 1 MiB chunks: the walk and the reads, nothing else. */
function rawRead(root: string): ChildReport {
  const t0 = performance.now();
  const buf = new Uint8Array(1 << 20);
  let bytes = 0;
  for (const path of filesUnder(join(root, "home"), [])) {
    const file = Deno.openSync(path);
    try {
      for (let n = file.readSync(buf); n !== null; n = file.readSync(buf)) bytes += n;
    } finally {
      file.close();
    }
  }
  return { ms: performance.now() - t0, rss_mb: peakRssMb(), bytes };
}

/**
 * The list's I/O floor: the agents' own walk, then every file opened the way phase one opens it (the same `denoIo`
 * open with the same checks) and its first and last 16 KiB read into one buffer; nothing is parsed or written.
 */
async function listIoChild(asmHome: string): Promise<ChildReport> {
  const { loadAgents } = await import("../lib/agents/registry.ts");
  const { adapterOf } = await import("../lib/agents/mod.ts");
  const { denoIo } = await import("../lib/history/io.ts");
  const { realFolders } = await import("../lib/files/mod.ts");
  const env = Deno.env.toObject();
  const agents = loadAgents({ asmHome, env });
  const window = 16 << 10;
  const buf = new Uint8Array(window);
  const t0 = performance.now();
  const walked: { path: string; size: number; within: string[] }[] = [];
  for (const agent of agents) {
    const cap = adapterOf(agent).transcripts;
    if (!cap) continue;
    const within = realFolders(cap.stores(env));
    for (const file of cap.discover(env, denoIo, () => {})) {
      walked.push({ path: file.path, size: file.size, within });
    }
  }
  const walkMs = performance.now() - t0;
  let bytes = 0;
  for (const file of walked) {
    const handle = denoIo.open(file.path, { within: file.within, withinResolved: true });
    try {
      bytes += handle.read(buf, 0);
      if (file.size > window) bytes += handle.read(buf, file.size - window);
    } finally {
      handle.close();
    }
  }
  return { ms: performance.now() - t0, walk_ms: walkMs, files: walked.length, rss_mb: peakRssMb(), bytes };
}

/**
 * One import into the ledger under `asmHome`, the way `./asm import` runs it (no server, no progress line), phase
 * one first whatever the corpus's size (a first run lists first from 500 new files on).
 */
async function importChild(asmHome: string): Promise<ChildReport> {
  const { Ledger } = await import("../lib/ledger/mod.ts");
  const { loadAgents } = await import("../lib/agents/registry.ts");
  const { importOnce } = await import("../lib/history/import.ts");
  const { harnessRoots } = await import("../lib/config/paths.ts");
  const { simdAvailable } = await import("../lib/derive/newline_scan.ts");
  const env = Deno.env.toObject();
  const roots = harnessRoots(asmHome);
  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"), { harnessRoots: roots });
  try {
    const t0 = performance.now();
    const report = await importOnce({
      ledger,
      agents: loadAgents({ asmHome, env }),
      env,
      asmHome,
      harnessRoots: roots,
      log: () => {},
      list: true,
    });
    const ms = performance.now() - t0;
    const imported: Record<string, number> = {};
    for (const row of ledger.query("SELECT agent, count(*) AS n FROM sessions GROUP BY agent")) {
      imported[String(row.agent)] = Number(row.n);
    }
    return {
      ms,
      workers: report.read_workers,
      simd: simdAvailable(),
      rss_mb: peakRssMb(),
      bytes: report.bytes_read,
      imported,
      files_unchanged: report.files_unchanged,
      files_read: report.files_read,
      problems: report.problems,
      list_ms: report.list_ms,
      list_first_ms: report.list_first_ms,
      listed: report.files_listed,
    };
  } finally {
    ledger.close();
  }
}

/** How many transcripts the notify measure appends to (fewer when the corpus has fewer Claude files). */
const NOTIFY_SAMPLES = 10;

/**
 * The watch as a server runs it, on a ledger the cold import filled: one line appended to a Claude transcript at
 * a time, each timed until its session's row counts the new turn.
 */
async function notifyChild(root: string, asmHome: string): Promise<ChildReport> {
  const { Ledger, asmIdOf } = await import("../lib/ledger/mod.ts");
  const { ImportRunner, TranscriptWatch, transcriptRoots, WATCH_MIN_GAP_MS } = await import(
    "../lib/history/mod.ts"
  );
  const { harnessRoots } = await import("../lib/config/paths.ts");
  const env = Deno.env.toObject();
  const roots = harnessRoots(asmHome);
  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"), { harnessRoots: roots });
  const runner = new ImportRunner({ ledger, asmHome, env, log: () => {}, harnessRoots: roots });
  const watch = new TranscriptWatch({
    log: () => {},
    onChange: async (paths) => void await runner.refreshFiles(paths),
  });
  try {
    await watch.arm(transcriptRoots({ asmHome, env }));
    const turns = (id: string) =>
      Number(ledger.query("SELECT turns FROM sessions WHERE asm_id = ?", id)[0]?.turns ?? -1);
    const files = filesUnder(join(root, "home", ".claude", "projects"), []).filter((p) =>
      !p.includes("/subagents/")
    )
      .sort().slice(0, NOTIFY_SAMPLES);
    const samples: number[] = [];
    for (const path of files) {
      const sid = path.slice(path.lastIndexOf("/") + 1, -".jsonl".length);
      const id = asmIdOf("claude", sid);
      const before = turns(id);
      if (before < 0) continue;
      await new Promise((r) => setTimeout(r, WATCH_MIN_GAP_MS + 100));
      const line = JSON.stringify({
        parentUuid: null,
        isSidechain: false,
        type: "user",
        message: { role: "user", content: "one more turn" },
        promptSource: "typed",
        timestamp: new Date().toISOString(),
        sessionId: sid,
      });
      const t0 = performance.now();
      Deno.writeTextFileSync(path, line + "\n", { append: true });
      while (turns(id) <= before) {
        if (performance.now() - t0 > 30_000) {
          throw new Error(`${path}: its row did not count the turn in 30 s`);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      samples.push(performance.now() - t0);
    }
    return { ms: 0, rss_mb: peakRssMb(), bytes: 0, samples };
  } finally {
    await watch.close();
    ledger.close();
  }
}

/** The import bench's options, as the command table parsed them (absent: the bench's defaults). */
export interface BenchImportCliOptions {
  bytes?: number;
  sessions?: number;
  seed?: number;
  runs?: number;
}

/** `./asm bench import`: prints one JSON line. */
export async function benchImportCli(options: BenchImportCliOptions = {}): Promise<number> {
  const figures = await benchImport({
    bytes: options.bytes,
    sessions: options.sessions,
    seed: options.seed,
    runs: options.runs,
  });
  console.log(JSON.stringify(figures));
  return 0;
}

if (import.meta.main) {
  const [mode, root, asmHome] = Deno.args;
  if (mode === "--raw-read") console.log(JSON.stringify(rawRead(root)));
  else if (mode === "--list-io") console.log(JSON.stringify(await listIoChild(asmHome)));
  else if (mode === "--import") console.log(JSON.stringify(await importChild(asmHome)));
  else if (mode === "--notify") console.log(JSON.stringify(await notifyChild(root, asmHome)));
  else {
    // its options are parsed by main.ts's command table, in one place
    console.error(
      "asm: run the import bench as ./asm bench import (./asm bench import --help lists its options)",
    );
    Deno.exit(2);
  }
}
