/**
 * Codex's rollout format (agents/codex.md section 3), read in one byte pass.
 *
 * Every line is `{"timestamp":...,"ordinal":N,"type":T,"payload":{"type":P,...}}`, so the first `"type":"` of a
 * line is its record type and the next its payload type; both sit in the first hundred bytes. Parsed: the
 * `session_meta` line (id, folder, version, source), `turn_context` (model, folder), user `message`s, tool calls
 * (folders they name) and `token_count` events; skipped on the head alone: developer instructions, assistant
 * messages, `item_completed` echoes, `world_state`, `token_usage_record`. A record type outside
 * {@link CODEX_KNOWN_TYPES} is counted by type (a version this reader does not know), never read. Older formats
 * (docs/agents/codex_old_versions.md): bare lines before the envelope (0.29 and earlier), and the TypeScript CLI's
 * one JSON document per session, read whole (session_document.ts).
 *
 * Turns: user messages whose `content_item_kinds` include `"user.text"` (the typed prompt; `exec` prompts count
 * and the session is headless). Not turns: the injected `<environment_context>` message (kinds
 * `environments.environment_context`), developer instructions, tool output. Rollouts written before the kinds
 * existed fall back to the text: a user message that is not one of Codex's injected blocks.
 * Source: `exec` and `mcp` are headless; `cli` and `vscode` (the TUI as a client of its daemon) interactive; a
 * `{"subagent": ...}` source a sub-agent. Context: the last `token_count`'s `last_token_usage.total_tokens` (what
 * the last request held). Skills: the `<skill>` message Codex writes when it loads a skill the person named with
 * `$name` (skills.ts).
 * @module
 */
import { join } from "node:path";
// deep on purpose: the read workers load this file; the derive face would load the ledger into each
import {
  absolutePaths,
  anyBytesAt,
  ascii,
  bytesAt,
  headOf,
  isoOf,
  num,
  obj,
  parseLine,
  parseObject,
  str,
  textOf,
} from "../../derive/bytes.ts";
import { addTurn, mentionPath, mergeFacts, newFacts, seenAt, skipUnknown } from "../../derive/facts.ts";
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
import { codexFileOf, discoverCodex } from "./discover.ts";
import {
  BARE_IGNORED,
  BARE_ITEMS,
  environmentCwd,
  isTypedCodexMessage,
  messageText,
  responseItemOf,
  TOOL_CALLS,
} from "./response_item.ts";
import { sessionDocumentLines } from "./session_document.ts";
import { viewCodexLine } from "./view_line.ts";
import { harvestCodexSkills } from "./skills.ts";
import { codexHome } from "./home.ts";
import { codexStateDb, readCodexThreads } from "./threads_db.ts";
import { threadSourceKind } from "./thread_source.ts";
import { errorText, isRecord } from "../../lang/mod.ts";

/** The fold state of one rollout (JSON). */
export interface CodexState {
  v: 1;
  facts: SessionFacts;
  /** the session_meta line was read (a later one, as in a fork's copy, says nothing new) */
  metaSeen: boolean;
}

/** A rollout line's record type and payload type, read from its head; nulls when the head does not say. */
export function codexHead(
  head: string,
): { type: string | null; payload: string | null; role: string | null } {
  const t = head.match(/"type":"([A-Za-z_.-]+)"/);
  const p = head.match(/"payload":\{"type":"([A-Za-z_.-]+)"/);
  const r = head.match(/"role":"([a-z]+)"/);
  return { type: t?.[1] ?? null, payload: p?.[1] ?? null, role: r?.[1] ?? null };
}

export { isTypedCodexMessage } from "./response_item.ts";

function sourceOf(source: unknown): { source: SessionFacts["source"]; parent: string | null } {
  if (typeof source === "string") {
    if (source === "exec" || source === "mcp") return { source: "headless", parent: null };
    if (source === "cli" || source === "vscode") return { source: "interactive", parent: null };
    if (source === "subagent") return { source: "subagent", parent: null };
    return { source: null, parent: null };
  }
  if (isRecord(source) && "subagent" in source) {
    // {"subagent": {"thread_spawn": {"parent_thread_id": ...}}} in versions that spawn threads
    const spawn = obj(obj(source, "subagent"), "thread_spawn");
    return { source: "subagent", parent: str(spawn, "parent_thread_id") };
  }
  return { source: null, parent: null };
}

function onMeta(f: SessionFacts, p: Record<string, unknown>): void {
  // the file name's thread id wins (it is what Codex resumes by); the meta's only fills a name without one
  f.session_id ??= str(p, "id") ?? str(p, "session_id");
  seenAt(f, isoOf(p.timestamp));
  f.cwd ??= str(p, "cwd");
  f.agent_version = str(p, "cli_version") ?? f.agent_version;
  const { source, parent } = sourceOf(p.source);
  if (source !== null) f.source = source;
  if (parent !== null) f.parent_session_id = parent;
  // from 0.140 a review's child thread names its parent at the top of session_meta
  f.parent_session_id ??= str(p, "parent_thread_id");
  f.thread_source = str(p, "thread_source") ?? f.thread_source;
  byThreadSource(f);
}

/** A thread source known to mean Codex's own thread outranks what `source` said (a sub-agent outranks both). */
function byThreadSource(f: SessionFacts): void {
  const kind = threadSourceKind(f.thread_source);
  if (kind !== null && f.source !== "subagent") f.source = kind;
}

function onToolCall(f: SessionFacts, p: Record<string, unknown>): void {
  let args: Record<string, unknown> | undefined;
  if (typeof p.arguments === "string") args = parseObject(p.arguments);
  else if (isRecord(p.arguments)) args = p.arguments;
  const action = obj(p, "action");
  for (const holder of [args, action]) {
    if (!holder) continue;
    for (const key of ["workdir", "working_directory", "cwd", "path", "file_path"]) {
      mentionPath(f, holder[key]);
    }
    const cmd = holder.cmd ?? holder.command;
    const text = Array.isArray(cmd) ? cmd.filter((c) => typeof c === "string").join(" ") : cmd;
    if (typeof text === "string") { for (const path of absolutePaths(text)) mentionPath(f, path); }
  }
  if (typeof p.input === "string") {
    // apply_patch: "*** Update File: /abs/path"
    for (const path of absolutePaths(p.input)) mentionPath(f, path);
  }
}

function dispatch(f: SessionFacts, line: Record<string, unknown>): void {
  let type = line.type;
  let payload = obj(line, "payload");
  let iso = isoOf(line.timestamp);
  if (payload === undefined && type === undefined && typeof line.id === "string") {
    // rollouts before the envelope: the first line is the bare session meta (id, timestamp)
    return onMeta(f, line);
  }
  if (payload === undefined && typeof type === "string" && BARE_ITEMS.has(type)) {
    // ... and every response item a bare line with no time of its own: it counts at the last time the file named
    payload = line;
    type = "response_item";
    iso ??= f.last_seen;
  }
  if (type === "session_meta" && payload) return onMeta(f, payload);
  if (payload === undefined) return;
  seenAt(f, iso);
  switch (type) {
    case "turn_context": {
      f.model = str(payload, "model") ?? f.model;
      // a turn in another folder than the session's own names that folder
      if (payload.cwd !== f.cwd) mentionPath(f, payload.cwd);
      return;
    }
    case "response_item": {
      const kind = payload.type;
      // rollouts before session_meta had a cwd name it only in the injected environment block
      if (kind === "message" && f.cwd === null) f.cwd = environmentCwd(payload);
      if (kind === "message" && isTypedCodexMessage(payload)) addTurn(f, iso, messageText(payload));
      else if (typeof kind === "string" && TOOL_CALLS.has(kind)) onToolCall(f, payload);
      else if (kind === "message") harvestCodexSkills(f, payload);
      return;
    }
    case "event_msg": {
      // the window Codex itself reports with each turn and each count
      const window = num(payload, "model_context_window") ??
        num(obj(payload, "info"), "model_context_window");
      if (window !== null && window > 0) f.context_window = window;
      if (payload.type !== "token_count") return;
      const info = obj(payload, "info");
      const last = num(obj(info, "last_token_usage"), "total_tokens");
      if (last !== null) f.context_tokens = last;
      return;
    }
  }
}

/** A response item the fold reads: a user's message (or one whose role is past the head), or a tool call. */
function wantedItem(kind: string | null, role: string | null): boolean {
  return kind === "message" ? role === null || role === "user" : kind !== null && TOOL_CALLS.has(kind);
}

/** The record / payload types the byte pass parses; every other line is skipped on its head. */
export function codexWants(
  head: { type: string | null; payload: string | null; role: string | null },
): boolean {
  switch (head.type) {
    case "session_meta":
    case "turn_context":
      return true;
    case "response_item":
      return wantedItem(head.payload, head.role);
    case "event_msg":
      return head.payload === "token_count";
    case null:
      return true; // a head that says nothing: parse it (older layouts)
    default:
      // rollouts before the envelope: bare response items
      return BARE_ITEMS.has(head.type) && wantedItem(head.type, head.role);
  }
}

/**
 * A turn_context line carries the model and folder near its start and kilobytes of instructions after them: read
 * both from the first 4 KB without parsing the line. False when they are not there (the line is then parsed).
 */
function turnContextFromHead(f: SessionFacts, head: string): boolean {
  const model = head.match(/"model":"((?:[^"\\]|\\.)*)"/)?.[1];
  const cwd = head.match(/"cwd":"((?:[^"\\]|\\.)*)"/)?.[1];
  if (model === undefined || cwd === undefined) return false;
  try {
    f.model = JSON.parse(`"${model}"`) || f.model;
    const folder = JSON.parse(`"${cwd}"`);
    if (folder !== f.cwd) mentionPath(f, folder);
  } catch {
    return false;
  }
  const ts = head.match(/^\{"timestamp":"([^"]+)"/)?.[1];
  seenAt(f, isoOf(ts));
  return true;
}

/** The session_meta fields the fold reads (all of them before the instructions in today's rollouts). */
const META_FIELDS = ["id", "timestamp", "cwd", "cli_version", "source", "thread_source"];
const INSTRUCTIONS_KEY = ',"base_instructions":';

/**
 * A session_meta line is mostly the model's base instructions (about 20 KB): its facts come from the part before
 * them, closed and parsed, when that part names every field the fold reads; otherwise (another layout, a field
 * after the instructions) the whole line is parsed.
 */
function metaFromHead(head: string): Record<string, unknown> | undefined {
  const cut = head.indexOf(INSTRUCTIONS_KEY);
  if (cut < 0) return undefined;
  const payload = obj(parseObject(`${head.slice(0, cut)}}}`), "payload");
  return payload !== undefined && META_FIELDS.every((k) => k in payload) ? payload : undefined;
}

const HEAD_LIMIT = 200;
const TYPE_KEY = ascii('"type":"');
const PAYLOAD_TYPE = ascii(',"payload":{"type":"');
const ROLE_KEY = ascii('"role":"');
/** A name as it stands in a line, with its closing quote. */
const quoted = (name: string) => ascii(`${name}"`);
const RESPONSE_ITEM = quoted("response_item");
const EVENT_MSG = quoted("event_msg");
const KEPT_NAMES = ["session_meta", "turn_context", "response_item", "event_msg", ...BARE_ITEMS];
/** The record types {@link codexWants} may keep (bare response items included: the oldest rollouts). */
const KEPT_TYPES = KEPT_NAMES.map(quoted);
/**
 * The record types known and never read: Codex's own bookkeeping (`compacted` history, `world_state`,
 * `token_usage_record` alongside each `token_count`, sub-agent mail) and the bare items of the oldest rollouts
 * that are neither a message nor a tool call. A type in neither list is a version this reader does not know.
 */
const IGNORED_NAMES = [
  "compacted",
  "world_state",
  "token_usage_record",
  "inter_agent_communication",
  ...BARE_IGNORED,
];
const IGNORED_TYPES = IGNORED_NAMES.map(quoted);
/** Every record type this reader knows, read or not. */
export const CODEX_KNOWN_TYPES: ReadonlySet<string> = new Set([...KEPT_NAMES, ...IGNORED_NAMES]);
const TOKEN_COUNT = quoted("token_count");
const MESSAGE = quoted("message");
const USER = quoted("user");
const TOOL_CALL_NAMES = [...TOOL_CALLS].map(quoted);

/** Where `pattern` first lies wholly inside `[from, limit)`, or -1. */
function findBytes(buf: Uint8Array, from: number, limit: number, pattern: Uint8Array): number {
  const first = pattern[0];
  for (let at = from; at + pattern.length <= limit; at++) {
    if (buf[at] === first && bytesAt(buf, at, limit, pattern)) return at;
  }
  return -1;
}

/** The end of a `[A-Za-z_.-]+"` value at `at` (the index of its closing quote), or -1 (what the head's regex reads). */
function nameEnd(buf: Uint8Array, at: number, limit: number): number {
  let i = at;
  for (; i < limit; i++) {
    const c = buf[i];
    const letter = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x2e ||
      c === 0x2d;
    if (!letter) break;
  }
  return i > at && i < limit && buf[i] === 0x22 ? i : -1;
}

/**
 * The lines {@link codexWants} would refuse, told from their first 200 bytes without decoding them: a record type
 * the fold never reads (`world_state`, `token_usage_record`...), an event other than `token_count`, a response
 * item that is neither a tool call nor a user's message. Anything it is not sure of goes through the head.
 */
export function codexSkipsOnBytes(buf: Uint8Array, start: number, end: number): boolean {
  const limit = Math.min(end, start + HEAD_LIMIT);
  const typeAt = findBytes(buf, start, limit, TYPE_KEY);
  if (typeAt < 0) return false;
  const value = typeAt + TYPE_KEY.length;
  const close = nameEnd(buf, value, limit);
  if (close < 0) return false;
  // a type it does not know goes on to the head, which counts it
  if (!anyBytesAt(buf, value, limit, KEPT_TYPES)) return anyBytesAt(buf, value, limit, IGNORED_TYPES);
  const isEvent = bytesAt(buf, value, limit, EVENT_MSG);
  if (!isEvent && !bytesAt(buf, value, limit, RESPONSE_ITEM)) return false;
  const payload = close + 1 + PAYLOAD_TYPE.length;
  if (!bytesAt(buf, close + 1, limit, PAYLOAD_TYPE) || nameEnd(buf, payload, limit) < 0) return false;
  if (isEvent) return !bytesAt(buf, payload, limit, TOKEN_COUNT);
  if (anyBytesAt(buf, payload, limit, TOOL_CALL_NAMES)) return false;
  if (!bytesAt(buf, payload, limit, MESSAGE)) return true;
  // a message: only a user's is read (a role beyond the first 200 bytes is parsed rather than missed)
  const roleAt = findBytes(buf, start, limit, ROLE_KEY);
  if (roleAt < 0) return false;
  const role = roleAt + ROLE_KEY.length;
  let i = role;
  while (i < limit && buf[i] >= 0x61 && buf[i] <= 0x7a) i++;
  if (i === role || i >= limit || buf[i] !== 0x22) return false;
  return !bytesAt(buf, role, limit, USER);
}

/**
 * A fold of the TypeScript CLI's session document (session_document.ts): its lines are kept as they come and
 * parsed as one document when the state is asked for (the file is always read whole, so nothing resumes it).
 */
function codexDocumentFold(file: TranscriptFile): TranscriptFold {
  const parts: string[] = [];
  let state: CodexState | null = null;
  return {
    line(buf, start, end) {
      parts.push(textOf(buf, start, end));
      state = null;
    },
    state() {
      if (state !== null) return state;
      const facts = newFacts(file.sessionHint);
      const lines = sessionDocumentLines(parts.join("\n"));
      if (lines === null) facts.bad_lines++;
      for (const line of lines ?? []) {
        const type = line.type;
        if (typeof type === "string" && !BARE_ITEMS.has(type) && !BARE_IGNORED.has(type)) {
          skipUnknown(facts, type);
        } else dispatch(facts, line);
      }
      state = { v: 1, facts, metaSeen: true };
      return state;
    },
  };
}

/** A fold of one rollout. */
export function codexFold(file: TranscriptFile, saved: unknown | null): TranscriptFold {
  if (file.whole) return codexDocumentFold(file);
  const state: CodexState = isCodexState(saved) ? structuredClone(saved) : {
    v: 1,
    facts: newFacts(file.sessionHint),
    metaSeen: false,
  };
  return {
    line(buf, start, end) {
      if (codexSkipsOnBytes(buf, start, end)) return;
      const head = codexHead(headOf(buf, start, end, 200));
      if (head.type !== null && !CODEX_KNOWN_TYPES.has(head.type)) {
        skipUnknown(state.facts, head.type);
        return;
      }
      if (!codexWants(head)) return;
      if (head.type === "session_meta") {
        if (state.metaSeen) return;
        state.metaSeen = true;
        const meta = metaFromHead(headOf(buf, start, end, 4096));
        if (meta !== undefined) {
          dispatch(state.facts, { type: "session_meta", payload: meta });
          return;
        }
      }
      if (head.type === "turn_context" && turnContextFromHead(state.facts, headOf(buf, start, end, 4096))) {
        return;
      }
      const line = parseLine(buf, start, end);
      if (line === undefined) {
        state.facts.bad_lines++;
        return;
      }
      dispatch(state.facts, line);
    },
    state: () => state,
  };
}

function isCodexState(value: unknown): value is CodexState {
  return isRecord(value) && value.v === 1 && isRecord(value.facts) && typeof value.metaSeen === "boolean";
}

/** Titles, names and sub-agent links from Codex's own thread index (read-only). */
function enrichCodex(sessions: EnrichInput[], env: Env, io: TranscriptIo): string[] {
  const ids = sessions.map((s) => s.facts.session_id).filter((id): id is string => id !== null);
  if (ids.length === 0) return [];
  let rows;
  try {
    const db = codexStateDb(env, io);
    if (db === null) return [];
    rows = readCodexThreads(db, ids);
  } catch (err) {
    return [`Codex's thread index could not be read: ${errorText(err)}`];
  }
  for (const s of sessions) {
    const row = s.facts.session_id === null ? undefined : rows.get(s.facts.session_id);
    if (!row) continue;
    s.facts.name ??= row.name;
    s.facts.title = row.title ?? s.facts.title;
    s.facts.parent_session_id ??= row.parent_id;
    s.facts.thread_source ??= row.thread_source;
    if (s.facts.source === null && row.source !== null) {
      // the index keeps a sub-agent's source as JSON text ('{"subagent":"review"}'), a plain one as its word
      s.facts.source = sourceOf(row.source.startsWith("{") ? parseObject(row.source) : row.source).source;
    }
    byThreadSource(s.facts);
  }
  return [];
}

/** What one rollout line is, for search: message text only. */
export function classifyCodexLine(raw: string): TranscriptLine | null {
  const line = parseObject(raw);
  if (line === undefined) return null;
  const ts = isoOf(line.timestamp);
  const payload = responseItemOf(line);
  if (payload) {
    const id = str(payload, "id");
    if (payload.type === "message") {
      const text = messageText(payload);
      if (payload.role === "assistant") return { kind: "assistant", text, ts, id };
      return { kind: isTypedCodexMessage(payload) ? "prompt" : "injected", text, ts, id };
    }
    if (payload.type === "function_call_output" || payload.type === "custom_tool_call_output") {
      const out = payload.output;
      return { kind: "tool", text: typeof out === "string" ? out : "", ts, id };
    }
    return { kind: "tool", text: "", ts, id };
  }
  return { kind: "meta", text: "", ts, id: null };
}

/** Codex's rollouts. */
export const codexTranscripts: TranscriptCapability = {
  skillMarkers: true,
  discover: discoverCodex,
  stores: (env) => [join(codexHome(env), "sessions"), join(codexHome(env), "archived_sessions")],
  fileOf: codexFileOf,
  fold: codexFold,
  sessionOf: (state, file) => file.sessionHint ?? (isCodexState(state) ? state.facts.session_id : null),
  facts: (states) => mergeFacts(states.filter(isCodexState).map((s) => s.facts)),
  enrich: enrichCodex,
  classifyLine: classifyCodexLine,
  viewLine: viewCodexLine,
  // the TypeScript CLI's session document (pretty-printed, its first line a lone "{"): its items as bare lines;
  // none while it does not parse (cut short, or only its start given)
  documentRecords: (text) =>
    text.slice(0, text.indexOf("\n")).trim() === "{"
      ? sessionDocumentLines(text)?.map((line) => JSON.stringify(line)) ?? []
      : null,
};
