/**
 * Gemini CLI's session format (agents/gemini.md section 3), read in one byte pass.
 *
 * A file is a header line (`sessionId`, `projectHash`, `startTime`, `kind`), `{"$set": {...}}` lines merging into
 * it (`messages` replaces the whole list, `summary`, `lastUpdated`), and message records keyed by `id`; a record
 * re-appended under the same id replaces the earlier copy (last copy wins). The fold keeps a small summary per
 * record id, so a record updated later (a reply gaining its tool calls) is counted once, and a session kept in
 * two files (a resume in a later minute) is the union of both by id. The earliest header's `startTime` is kept (a
 * resume appends another header with the resume time: after it in 0.61, before it when 0.39 resumed a `.json`).
 * Versions before 0.39 wrote one JSON document per session (`.json`, rewritten whole, no `$set`): json_chat.ts
 * reads it into the same state, so a session kept as `.json` and `.jsonl` (resumed after an upgrade) is one union.
 * Message types the reader does not know (nor the info/error/warning notes it ignores) are counted, not read.
 *
 * Turns: `type:"user"` records with text the person typed: `displayContent` when present (what the person
 * saw), else the text parts, with `<hook_context>` blocks removed. Not turns: the synthetic `<session_context>`
 * record, records that are only hook context, tool results (`functionResponse` parts).
 * Source: interactive when the folder's `logs.json` (Gemini's own record of typed input, written only by the
 * interactive CLI) names the session or one of its prompts; otherwise not known (null, shown): no file Gemini
 * writes says a session was headless, and a logs.json that does not know a session is no evidence (it may be
 * missing, cleaned, or another machine's). A `kind` other than "main" is a sub-agent. Context: the `tokens.total`
 * of the last `gemini` record. The summary is model-generated: it is the title, never the person's `name`.
 * Skills: the `activate_skill` calls the CLI ran with success (skills.ts), kept per record like its tool paths.
 * @module
 */
import { join } from "node:path";
// deep on purpose: the read workers load this file; the derive face would load the ledger into each
import {
  absolutePaths,
  clip,
  headOf,
  isoOf,
  num,
  obj,
  parseLine,
  parseObject,
  str,
  textOf,
  utcDay,
} from "../../derive/bytes.ts";
import { addSkill, mentionPath, newFacts, seenAt, skipUnknown } from "../../derive/facts.ts";
import type {
  EnrichInput,
  SessionFacts,
  TranscriptCapability,
  TranscriptFile,
  TranscriptFold,
  TranscriptIo,
  TranscriptLine,
} from "../../derive/mod.ts";
import type { Env } from "../../config/mod.ts";
import { discoverGemini, geminiDir, geminiFileOf, geminiFileTag, geminiLogsPath } from "./discover.ts";
import { partsText, typedGeminiText } from "./user_text.ts";
import { viewGeminiLine } from "./view_line.ts";
import { jsonChatScanner } from "./json_chat.ts";
import { geminiSkillsOf } from "./skills.ts";
import { errorText, isRecord } from "../../lang/mod.ts";

export { typedGeminiText } from "./user_text.ts";

/** What the fold keeps of one record. */
export interface GeminiRecord {
  /** prompt (typed), injected (context), tool (a tool result), gemini (a reply), other (info, error...) */
  t: "prompt" | "injected" | "tool" | "gemini" | "other";
  ts: string | null;
  /** the typed text (prompts only) */
  text?: string;
  tokens?: number | null;
  model?: string | null;
  /** absolute paths the reply's tool calls named */
  paths?: string[];
  /** the skills the reply's tool calls loaded */
  skills?: string[];
}

/**
 * A chat of the versions before 0.39 (one pretty-printed JSON document, its first line a lone `{`): each of its
 * messages as one line, the shape the JSONL files append and `viewGeminiLine` reads. Null for a JSONL file.
 */
export function geminiChatRecords(text: string): string[] | null {
  if (text.slice(0, text.indexOf("\n")).trim() !== "{") return null;
  const records: string[] = [];
  const scanner = jsonChatScanner({
    member() {},
    message: (m) => void (isRecord(m) && records.push(JSON.stringify(m))),
    bad() {},
  });
  for (const line of text.split("\n")) scanner.line(line);
  scanner.end();
  return records;
}

/** The fold state of one Gemini session file (JSON). */
export interface GeminiState {
  v: 1;
  sid: string | null;
  startTime: string | null;
  lastUpdated: string | null;
  kind: string | null;
  summary: string | null;
  records: [string, GeminiRecord][];
  bad: number;
  /** lines (or messages) of a type the reader does not know -> count; absent in states saved before it was kept */
  unknown?: Record<string, number>;
}

/** The message types the CLI writes: prompts and replies, and the info/error/warning notes the reader ignores. */
const MESSAGE_TYPES = new Set(["user", "gemini", "info", "error", "warning"]);

function noteUnknown(state: GeminiState, type: string): void {
  // the shared verb bounds and clips the names; it works on facts, so it is handed the state's own map
  const tally = newFacts();
  tally.unknown_types = state.unknown ??= {};
  skipUnknown(tally, type);
}

/** Keeps a message record under `id`, or counts it when its type is not one the reader knows. */
function keep(
  state: GeminiState,
  records: Map<string, GeminiRecord>,
  id: string,
  m: Record<string, unknown>,
): void {
  if (typeof m.type === "string" && MESSAGE_TYPES.has(m.type)) records.set(id, summarise(m));
  else noteUnknown(state, typeof m.type === "string" ? m.type : "(no type)");
}

function earliest(a: string | null, b: string | null): string | null {
  return a === null || (b !== null && b < a) ? b : a;
}

/**
 * The context window of a Gemini model as Google documents the 2.5 and later models Gemini CLI runs: 1,048,576
 * tokens. Null for any other name: never a guess.
 */
export function geminiContextWindow(model: string): number | null {
  return /^gemini-/i.test(model) ? 1_048_576 : null;
}

function toolPaths(record: Record<string, unknown>): string[] {
  const calls = record.toolCalls;
  if (!Array.isArray(calls)) return [];
  const paths: string[] = [];
  for (const call of calls) {
    const args = obj(isRecord(call) ? call : undefined, "args");
    if (!args) continue;
    for (const key of ["file_path", "absolute_path", "dir_path", "directory", "path"]) {
      if (typeof args[key] === "string") paths.push(args[key] as string);
    }
    if (typeof args.command === "string") paths.push(...absolutePaths(args.command));
  }
  return paths.slice(0, 50);
}

/** The summary the fold keeps of one message record. */
export function summarise(record: Record<string, unknown>): GeminiRecord {
  const ts = isoOf(record.timestamp);
  switch (record.type) {
    case "user": {
      const { tool } = partsText(record.content);
      if (tool) return { t: "tool", ts };
      const text = typedGeminiText(record);
      return text === null ? { t: "injected", ts } : { t: "prompt", ts, text: clip(text) };
    }
    case "gemini": {
      const tokens = obj(record, "tokens");
      const total = num(tokens, "total") ??
        (num(tokens, "input") !== null ? (num(tokens, "input") ?? 0) + (num(tokens, "output") ?? 0) : null);
      const paths = toolPaths(record);
      const skills = geminiSkillsOf(record);
      return {
        t: "gemini",
        ts,
        tokens: total,
        model: str(record, "model"),
        ...(paths.length ? { paths } : {}),
        ...(skills.length ? { skills } : {}),
      };
    }
    default:
      return { t: "other", ts };
  }
}

function applySet(
  state: GeminiState,
  records: Map<string, GeminiRecord>,
  set: Record<string, unknown>,
): void {
  if (Array.isArray(set.messages)) {
    records.clear();
    for (const m of set.messages) {
      if (isRecord(m) && typeof m.id === "string") keep(state, records, m.id, m);
    }
  }
  const summary = str(set, "summary");
  if (summary !== null) state.summary = summary;
  const updated = isoOf(set.lastUpdated);
  if (updated !== null) state.lastUpdated = updated;
  if (state.sid === null) state.sid = str(set, "sessionId");
}

function rewind(records: Map<string, GeminiRecord>, id: string): void {
  let cut = false;
  for (const key of [...records.keys()]) {
    if (key === id) cut = true;
    if (cut) records.delete(key);
  }
}

function freshState(): GeminiState {
  return {
    v: 1,
    sid: null,
    startTime: null,
    lastUpdated: null,
    kind: null,
    summary: null,
    records: [],
    bad: 0,
  };
}

/**
 * A fold of one `.json` chat (before 0.39): always the whole file from its first byte, so a saved state is never
 * continued. Its members fill the state as a JSONL header and `$set` would; its messages are records by id.
 */
function wholeFold(): TranscriptFold {
  const state = freshState();
  const records = new Map<string, GeminiRecord>();
  let index = 0;
  const scanner = jsonChatScanner({
    member(key, value) {
      if (key === "sessionId" && typeof value === "string") state.sid ??= value;
      else if (key === "startTime") state.startTime = earliest(state.startTime, isoOf(value));
      else if (key === "lastUpdated") state.lastUpdated = isoOf(value) ?? state.lastUpdated;
      else if (key === "kind" && typeof value === "string") state.kind ??= value;
      else if (key === "summary" && typeof value === "string") state.summary = value;
    },
    message(m) {
      index++;
      if (!isRecord(m)) return void state.bad++;
      // every message the CLI wrote has an id; one without is still one record
      keep(state, records, typeof m.id === "string" ? m.id : `#${index}`, m);
    },
    bad: () => void state.bad++,
  });
  return {
    line: (buf, start, end) => scanner.line(textOf(buf, start, end)),
    state() {
      scanner.end();
      state.records = [...records];
      return state;
    },
  };
}

/** A fold of one Gemini session file. */
export function geminiFold(file: TranscriptFile, saved: unknown | null): TranscriptFold {
  if (file.whole) return wholeFold();
  const state: GeminiState = isGeminiState(saved) ? structuredClone(saved) : freshState();
  const records = new Map(state.records);
  return {
    line(buf, start, end) {
      const head = headOf(buf, start, end, 64);
      if (head.startsWith('{"$set":{"lastUpdated":"') && end - start < 80) {
        // the commonest line: only a timestamp, read without parsing
        const iso = isoOf(head.slice(24, head.indexOf('"', 24)));
        if (iso !== null) state.lastUpdated = iso;
        return;
      }
      const line = parseLine(buf, start, end);
      if (line === undefined) {
        state.bad++;
        return;
      }
      const set = obj(line, "$set");
      if (set) return applySet(state, records, set);
      if (typeof line.$rewindTo === "string") return rewind(records, line.$rewindTo);
      if (typeof line.id === "string" && typeof line.type === "string") {
        return keep(state, records, line.id, line);
      }
      if (typeof line.sessionId === "string" && "startTime" in line) {
        // a header; a resume appends another one with the resume time: the earliest says when it started
        state.sid ??= line.sessionId;
        state.startTime = earliest(state.startTime, isoOf(line.startTime));
        state.kind ??= str(line, "kind");
        const updated = isoOf(line.lastUpdated);
        if (updated !== null) state.lastUpdated = updated;
        return;
      }
      // an operation of a later version (`$set` and `$rewindTo` are the ones known)
      const op = Object.keys(line)[0];
      if (op?.startsWith("$")) return noteUnknown(state, op);
      state.bad++;
    },
    state() {
      state.records = [...records];
      return state;
    },
  };
}

function isGeminiState(value: unknown): value is GeminiState {
  return isRecord(value) && value.v === 1 && Array.isArray(value.records) && "sid" in value;
}

/** The facts of one session from all its files (in file order): the union of their records by id. */
export function geminiFacts(states: unknown[], files: TranscriptFile[]): SessionFacts {
  const own = states.filter(isGeminiState);
  const f = newFacts(own.find((s) => s.sid !== null)?.sid ?? null);
  const union = new Map<string, GeminiRecord>();
  for (const s of own) {
    for (const [id, r] of s.records) union.set(id, r);
    seenAt(f, s.startTime);
    seenAt(f, s.lastUpdated);
    if (s.summary !== null) f.summary = s.summary;
    f.bad_lines += s.bad;
    for (const [type, n] of Object.entries(s.unknown ?? {})) {
      f.unknown_types[type] = (f.unknown_types[type] ?? 0) + n;
    }
  }
  const kind = own.find((s) => s.kind !== null)?.kind ?? null;
  if (kind !== null && kind !== "main") f.source = "subagent";
  f.cwd = files.find((file) => file.cwd !== null)?.cwd ?? null;
  const ordered = [...union.values()].sort((a, b) => (a.ts ?? "").localeCompare(b.ts ?? ""));
  for (const r of ordered) {
    seenAt(f, r.ts);
    if (r.t === "prompt") {
      f.turns++;
      if (r.ts !== null) f.days[utcDay(r.ts)] = (f.days[utcDay(r.ts)] ?? 0) + 1;
      if (f.first_message === null && r.text) f.first_message = r.text;
    } else if (r.t === "gemini") {
      if (r.tokens !== undefined && r.tokens !== null) f.context_tokens = r.tokens;
      if (r.model) {
        f.model = r.model;
        f.context_window = geminiContextWindow(r.model);
      }
      for (const p of r.paths ?? []) mentionPath(f, p);
      for (const s of r.skills ?? []) addSkill(f, s);
    }
  }
  return f;
}

/**
 * Interactive when the folder's logs.json (typed input, interactive only) knows the session; else left as the
 * files say: no file Gemini writes says a session was headless.
 */
function enrichGemini(sessions: EnrichInput[], _env: Env, io: TranscriptIo): string[] {
  const problems: string[] = [];
  const logs = new Map<string, { ids: Set<string>; texts: Set<string> }>();
  const logsOf = (path: string) => {
    let known = logs.get(path);
    if (known) return known;
    known = { ids: new Set(), texts: new Set() };
    logs.set(path, known);
    let text: string | null = null;
    try {
      text = io.readText(path, 32 << 20);
    } catch (err) {
      problems.push(`${path} could not be read: ${errorText(err)}`);
    }
    let entries: unknown = null;
    try {
      entries = text === null ? null : JSON.parse(text);
    } catch {
      problems.push(`${path} is not JSON`);
    }
    if (Array.isArray(entries)) {
      for (const e of entries) {
        if (!isRecord(e)) continue;
        if (typeof e.sessionId === "string") known.ids.add(e.sessionId);
        if (typeof e.message === "string") known.texts.add(clip(e.message.trim()));
      }
    }
    return known;
  };
  for (const s of sessions) {
    if (s.facts.source === "subagent" || s.files.length === 0) continue;
    const known = logsOf(geminiLogsPath(s.files[0].path));
    const prompts = s.states.filter(isGeminiState)
      .flatMap((st) => st.records.filter(([, r]) => r.t === "prompt").map(([, r]) => r.text ?? ""));
    const typedHere = (s.facts.session_id !== null && known.ids.has(s.facts.session_id)) ||
      prompts.some((p) => known.texts.has(p));
    // only a positive record counts: a session logs.json does not know stays "not known" (null, shown)
    if (typedHere) s.facts.source = "interactive";
  }
  return problems;
}

/** What one Gemini line is, for search: message text only. */
export function classifyGeminiLine(raw: string): TranscriptLine | null {
  const line = parseObject(raw);
  if (line === undefined) return null;
  if (typeof line.id !== "string" || typeof line.type !== "string") {
    return { kind: "meta", text: "", ts: isoOf(line.timestamp), id: null };
  }
  const r = summarise(line);
  const text = line.type === "gemini"
    ? (typeof line.content === "string" ? line.content : partsText(line.content).text)
    : r.t === "prompt"
    ? typedGeminiText(line) ?? ""
    : partsText(line.content).text;
  const kind = r.t === "gemini" ? "assistant" : r.t === "other" ? "meta" : r.t;
  return { kind, text, ts: r.ts, id: line.id };
}

/** Gemini CLI's session files. */
export const geminiTranscripts: TranscriptCapability = {
  skillMarkers: true,
  discover: discoverGemini,
  stores: (env) => [join(geminiDir(env), "tmp")],
  fileOf: geminiFileOf,
  fold: geminiFold,
  sessionOf: (state, file) => {
    const sid = isGeminiState(state) ? state.sid : null;
    const tag = geminiFileTag(file.path);
    // the name carries the id's first 8 characters: a file whose header names another session is not that one
    return sid !== null && (tag === null || sid.startsWith(tag)) ? sid : null;
  },
  facts: geminiFacts,
  enrich: enrichGemini,
  classifyLine: classifyGeminiLine,
  viewLine: viewGeminiLine,
  documentRecords: geminiChatRecords,
};
