/**
 * One batch of the import: the files read are grouped by session (with the saved states of a session's other
 * files), folded into facts, enriched by each agent (titles, links), derived into rows (title, closeout,
 * project), and written in one transaction. (The copies of agents that keep copies were written by the reads.)
 * @module
 */
import type { AgentConfig, Env } from "../agents/protocol.ts";
import type {
  EnrichInput,
  SessionFacts,
  TranscriptCapability,
  TranscriptFile,
  TranscriptIo,
} from "../agents/transcript_types.ts";
import type { ProjectRules } from "../derive/project.ts";
import { deriveSession } from "../derive/session.ts";
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
import { errorText, type FileRead, parseFold } from "./read_file.ts";
import type { ProjectRoots } from "./roots.ts";

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
  problem: (line: Record<string, unknown>) => void;
  now: () => number;
}

/** Folds, enriches, derives and writes one batch of files read, in one transaction. */
export function writeBatch(batch: FileRead[], o: BatchOptions): WriteReport {
  const { io, roots, byPath, problem, now } = o;
  const known = o.sessionFiles;
  // group the files by session: a session may be kept in several files (some read earlier, saved in the ledger)
  const groups = new Map<string, { reads: FileRead[]; asmId: string }>();
  for (const read of batch) {
    if (read.sessionId === null) continue;
    const asmId = asmIdOf(read.agent.name, read.sessionId);
    const g = groups.get(asmId) ?? { reads: [], asmId };
    g.reads.push(read);
    groups.set(asmId, g);
  }
  const perAgent = new Map<
    string,
    { cap: TranscriptCapability; agent: AgentConfig; inputs: EnrichInput[] }
  >();
  const withPaths: { input: EnrichInput; asmId: string; agent: AgentConfig }[] = [];
  for (const g of groups.values()) {
    const { agent, cap } = g.reads[0];
    const fresh = new Map(g.reads.map((r) => [r.file.path, r]));
    const entries: { file: TranscriptFile; state: unknown }[] = g.reads.map((r) => ({
      file: r.file,
      state: r.state,
    }));
    // only a session with another file on record (a Gemini resume) needs the saved states of the others
    const others = known.get(g.asmId)?.some((p) => !fresh.has(p)) ? filesOfSession(o.ledger, g.asmId) : [];
    for (const other of others) {
      if (fresh.has(other.path)) continue;
      const state = parseFold(other.fold);
      if (state === null) continue;
      const file = byPath.get(other.path) ?? cap.fileOf(other.path, o.env, io) ??
        stubFile(agent.name, other.path);
      entries.push({ file, state });
    }
    entries.sort((a, b) => a.file.path.localeCompare(b.file.path));
    const facts: SessionFacts = cap.facts(entries.map((e) => e.state), entries.map((e) => e.file));
    if (facts.session_id === null) facts.session_id = g.reads[0].sessionId;
    // a file with no readable record at all (garbage, only unknown lines) is not a session: no row
    if (isEmpty(facts)) continue;
    const input: EnrichInput = {
      facts,
      states: entries.map((e) => e.state),
      files: entries.map((e) => e.file),
    };
    const slot = perAgent.get(agent.name) ?? { cap, agent, inputs: [] };
    slot.inputs.push(input);
    perAgent.set(agent.name, slot);
    withPaths.push({ input, asmId: g.asmId, agent });
  }
  for (const { cap, agent, inputs } of perAgent.values()) {
    if (!cap.enrich) continue;
    try {
      for (const why of cap.enrich(inputs, o.env, io)) {
        problem({ what: "enrich", agent: agent.name, error: why });
      }
    } catch (err) {
      problem({ what: "enrich failed", agent: agent.name, error: errorText(err) });
    }
  }

  // the copies the reads made (agents that may delete their own files), stored before the rows that name them
  const copied = new Set<string>();
  const copies = batch.map((read) => read.copy).filter((c) => c !== null);
  try {
    writeCopies(copies);
    for (const c of copies) copied.add(c.ref);
  } catch (err) {
    problem({ what: "transcript copies failed", error: errorText(err), copies: copies.length });
  }

  const closeoutSkills = o.agents.map((a) => a.closeout_skill).filter((s) => s !== "");
  const sessions: DerivedSession[] = [];
  for (const { input, agent } of withPaths) {
    const cap = perAgent.get(agent.name)!.cap;
    const main = input.files[0];
    const copy = agent.keep_copies ? copyRefOf(o.asmHome, agent.name, main.rel) : null;
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
        projectFolders: roots.rollUp(mentions),
        home: cwd === null ? null : roots.rootOf(cwd) ?? cwd,
        rules: o.rules ?? { skillFolders: {}, excludedSkills: [] },
        closeoutSkills,
        harnessRoots: o.harnessRoots,
      }));
    } catch (err) {
      problem({ what: "derive failed", agent: agent.name, path: main.path, error: errorText(err) });
    }
  }

  const files: ImportStateRow[] = batch.map((read) => ({
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
  const written = writeDerived(o.ledger, { sessions, files, now: isoAt(now()) });
  // a later batch of this import may hold another file of these sessions
  for (const f of files) {
    if (f.asm_id === null) continue;
    const list = known.get(f.asm_id) ?? [];
    if (!list.includes(f.path)) list.push(f.path);
    known.set(f.asm_id, list);
  }
  return written;
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
