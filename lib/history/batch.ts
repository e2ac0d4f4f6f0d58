/**
 * One batch of the import: the files read are grouped by session (with the saved states of a session's other
 * files), folded into facts, enriched by each agent (titles, links), derived into rows (title, closeout,
 * project), and written in one transaction. (The copies of agents that keep copies were written by the reads.)
 * @module
 */
import type { AgentConfig } from "../agents/mod.ts";
import type { Env } from "../config/mod.ts";
import {
  deriveSession,
  type EnrichInput,
  type ProjectRules,
  type SessionFacts,
  type TranscriptCapability,
  type TranscriptFile,
  type TranscriptIo,
} from "../derive/mod.ts";
import {
  asmIdOf,
  type DerivedSession,
  filesOfSession,
  type ImportStateRow,
  isoAt,
  type Ledger,
  writeDerived,
  type WriteReport,
} from "../ledger/mod.ts";
import { copyRefOf, hasCopy, writeCopies } from "./copies.ts";
import { type FileRead, parseFold } from "./read_file.ts";
import type { ProjectRoots } from "./roots.ts";
import { type Clock, errorText, type Log } from "../lang/mod.ts";

/** What writing a batch needs. */
export interface BatchOptions {
  ledger: Ledger;
  agents: AgentConfig[];
  env: Env;
  asmHome: string;
  harnessRoots: readonly string[];
  rules?: ProjectRules;
  io: TranscriptIo;
  roots: ProjectRoots;
  /** every file the walk found, by path (the other files of a session) */
  byPath: Map<string, TranscriptFile>;
  /** asm id -> its files on record; kept up to date as batches are written */
  sessionFiles: Map<string, string[]>;
  problem: Log;
  now: Clock;
}

/** One session of a batch, folded: its facts and the files they came from, for its agent to enrich. */
interface FoldedSession {
  input: EnrichInput;
  asmId: string;
  agent: AgentConfig;
  cap: TranscriptCapability;
}

/** Folds, enriches, derives and writes one batch of files read, in one transaction. */
export function writeBatch(batch: FileRead[], options: BatchOptions): WriteReport {
  const folded = foldSessions(batch, options);
  enrichSessions(folded, options);
  const copied = storeCopies(batch, options);
  const sessions = deriveRows(folded, copied, options);
  const files = importStates(batch);
  const written = writeDerived(options.ledger, { sessions, files, now: isoAt(options.now()) });
  rememberFiles(files, options.sessionFiles);
  // a transcript is as hostile as an event file: what the ledger's door left out is named, one line a session
  for (const d of written.dropped) {
    options.problem({
      what: "import values dropped",
      asm_id: d.asm_id,
      path: d.transcript_path,
      dropped: d.dropped,
    });
  }
  return written;
}

/**
 * Groups the files read by session (a session may be kept in several files, some read in an earlier import and
 * saved in the ledger) and folds each session's states into its facts. A session with nothing readable in any of
 * its files (garbage, only unknown lines) is not a session: no row.
 */
function foldSessions(batch: FileRead[], options: BatchOptions): FoldedSession[] {
  const groups = new Map<string, FileRead[]>();
  for (const read of batch) {
    if (read.sessionId === null) continue;
    const asmId = asmIdOf(read.agent.name, read.sessionId);
    const reads = groups.get(asmId);
    if (reads) reads.push(read);
    else groups.set(asmId, [read]);
  }
  const out: FoldedSession[] = [];
  for (const [asmId, reads] of groups) {
    const { agent, cap } = reads[0];
    const entries = [
      ...reads.map((r) => ({ file: r.file, state: r.state })),
      ...savedOthers(asmId, reads, options),
    ];
    entries.sort((a, b) => a.file.path.localeCompare(b.file.path));
    const facts: SessionFacts = cap.facts(entries.map((e) => e.state), entries.map((e) => e.file));
    if (facts.session_id === null) facts.session_id = reads[0].sessionId;
    if (isEmpty(facts)) continue;
    out.push({
      input: { facts, states: entries.map((e) => e.state), files: entries.map((e) => e.file) },
      asmId,
      agent,
      cap,
    });
  }
  return out;
}

/** The saved fold states of a session's files on record that this batch did not read (a Gemini resume). */
function savedOthers(
  asmId: string,
  reads: FileRead[],
  options: BatchOptions,
): { file: TranscriptFile; state: unknown }[] {
  const fresh = new Set(reads.map((r) => r.file.path));
  // only a session with another file on record needs the ledger asked at all
  if (!options.sessionFiles.get(asmId)?.some((p) => !fresh.has(p))) return [];
  const { agent, cap } = reads[0];
  const out: { file: TranscriptFile; state: unknown }[] = [];
  for (const other of filesOfSession(options.ledger, asmId)) {
    if (fresh.has(other.path)) continue;
    const state = parseFold(other.fold);
    if (state === null) continue;
    const file = options.byPath.get(other.path) ?? cap.fileOf(other.path, options.env, options.io) ??
      stubFile(agent.name, other.path);
    out.push({ file, state });
  }
  return out;
}

/**
 * Lets each agent add what lives outside its transcripts (titles, links), all its sessions of the batch at once
 * (the full pass's batches and phase one's bundles alike). A failing agent costs one log line.
 */
export function enrichSessions(
  folded: readonly Pick<FoldedSession, "input" | "agent" | "cap">[],
  options: Pick<BatchOptions, "env" | "io" | "problem">,
): void {
  const perAgent = new Map<
    string,
    { cap: TranscriptCapability; agent: AgentConfig; inputs: EnrichInput[] }
  >();
  for (const { input, agent, cap } of folded) {
    const slot = perAgent.get(agent.name) ?? { cap, agent, inputs: [] };
    slot.inputs.push(input);
    perAgent.set(agent.name, slot);
  }
  for (const { cap, agent, inputs } of perAgent.values()) {
    if (!cap.enrich) continue;
    try {
      for (const why of cap.enrich(inputs, options.env, options.io)) {
        options.problem({ what: "enrich", agent: agent.name, error: why });
      }
    } catch (err) {
      options.problem({ what: "enrich failed", agent: agent.name, error: errorText(err) });
    }
  }
}

/**
 * Stores the copies the reads made (agents that may delete their own files), before the rows that name them.
 * Returns the references stored.
 */
function storeCopies(batch: FileRead[], options: BatchOptions): Set<string> {
  const copied = new Set<string>();
  const copies = batch.map((read) => read.copy).filter((c) => c !== null);
  try {
    writeCopies(copies);
    for (const c of copies) copied.add(c.ref);
  } catch (err) {
    options.problem({ what: "transcript copies failed", error: errorText(err), copies: copies.length });
  }
  return copied;
}

/** Derives each session's row: title, closeout, project (from the folders it touched) and its copy. */
function deriveRows(folded: FoldedSession[], copied: Set<string>, options: BatchOptions): DerivedSession[] {
  const closeoutSkills = options.agents.map((a) => a.closeout_skill).filter((s) => s !== "");
  const sessions: DerivedSession[] = [];
  for (const { input, agent, cap } of folded) {
    const main = input.files[0];
    const copy = agent.keep_copies ? copyRefOf(options.asmHome, agent.name, main.rel) : null;
    const cwd = input.facts.cwd;
    // the working folder is named once (every line carries it; counting each would drown what was touched)
    const mentions = { ...input.facts.folders };
    if (cwd !== null) mentions[cwd] = (mentions[cwd] ?? 0) + 1;
    try {
      sessions.push(deriveSession(input.facts, {
        agent: agent.name,
        transcriptPath: main.path,
        transcriptCopy: copy !== null && (copied.has(copy) || hasCopy(copy)) ? copy : null,
        closeoutSkill: agent.closeout_skill,
        skillMarkers: cap.skillMarkers,
        projectFolders: options.roots.rollUp(mentions),
        home: cwd === null ? null : options.roots.rootOf(cwd) ?? cwd,
        rules: options.rules ?? { skillFolders: {}, excludedSkills: [] },
        closeoutSkills,
        harnessRoots: options.harnessRoots,
      }));
    } catch (err) {
      options.problem({ what: "derive failed", agent: agent.name, path: main.path, error: errorText(err) });
    }
  }
  return sessions;
}

/** Each file's import state: where the next read starts and the fold state there. */
function importStates(batch: FileRead[]): ImportStateRow[] {
  return batch.map((read) => ({
    path: read.file.path,
    agent: read.agent.name,
    size: read.file.size,
    mtime: isoAt(read.file.mtimeMs),
    ino: read.file.ino,
    asm_id: read.sessionId === null ? null : asmIdOf(read.agent.name, read.sessionId),
    read_offset: read.outcome.offset,
    tail: read.tail,
    fold: read.fold,
    problem: read.problem,
  }));
}

/** A later batch of this import may hold another file of these sessions: keep the map of files on record true. */
function rememberFiles(files: ImportStateRow[], sessionFiles: Map<string, string[]>): void {
  for (const f of files) {
    if (f.asm_id === null) continue;
    const list = sessionFiles.get(f.asm_id) ?? [];
    if (!list.includes(f.path)) list.push(f.path);
    sessionFiles.set(f.asm_id, list);
  }
}

function stubFile(agent: string, path: string): TranscriptFile {
  return {
    agent,
    path,
    sessionHint: null,
    role: "main",
    parentSessionId: null,
    cwd: null,
    rel: path.replace(/^\/+/, ""),
    size: 0,
    mtimeMs: 0,
    ino: null,
  };
}

/** Nothing at all was read: no moment, no turn, no title. */
function isEmpty(f: SessionFacts): boolean {
  return f.started_at === null && f.last_seen === null && f.turns === 0 && f.name === null &&
    f.title === null &&
    f.summary === null && f.model === null;
}
