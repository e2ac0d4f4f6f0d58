/**
 * Claude Code's transcript format (agents/claude-code.md section 3), read in one byte pass.
 *
 * Each line is one JSON record. A line's first bytes say what it is: metadata records start with `{"type":"..."`;
 * message records start with `{"parentUuid":...,"isSidechain":...` and name `"attachment":{`, `"type":"user"`,
 * `"type":"system"` or `"role":"assistant"` within their first few hundred bytes. Attachments, request dumps and
 * tool results (most of the bytes) are skipped on that head alone; only prompts, assistant messages, compaction
 * boundaries and title records are parsed. A head that matches nothing known is parsed whole (newer versions).
 *
 * Turns: `type:"user"` lines the person sent: `promptSource` "typed" (interactive) or "sdk" (`-p`, counted, and
 * the session is headless), or `origin.kind` "human" (a typed slash skill). Not turns: tool results, `isMeta`
 * lines (system reminders, skill bodies, command caveats), task notifications (`promptSource` "system"),
 * compaction summaries, built-in commands (`/clear`, `/compact`: no origin), sub-agent task prompts.
 * Skills: only the harness's marker, the `isMeta` line "Base directory for this skill: <dir>" that follows a
 * skill's run (typed or model-invoked); typing the same tags by hand produces no such line.
 * Context: input + cache_creation + cache_read + output of the last assistant usage; after a compaction the
 * boundary's own `postTokens`, until the next assistant message.
 * Older versions (docs/agents/claude_old_versions.md): no `entrypoint` (the source stays unknown), no
 * `promptSource`, sub-agent lines (`isSidechain`) inside the main file, and `summary` lines that title an earlier
 * conversation from another file (summaries.ts: the fold keeps the file's leaf, the enrich step finds its title).
 * Every record type a version is known to write is in {@link CLAUDE_RECORD_TYPES}; any other is counted as
 * unknown.
 * @module
 */
import { basename, join } from "node:path";
// deep on purpose: the read workers load this file; the derive face would load the ledger into each
import {
  absolutePaths,
  anyBytesAt,
  ascii,
  bytesAt,
  headOf,
  headValue,
  isoOf,
  num,
  obj,
  parseLine,
  parseObject,
  str,
} from "../../derive/bytes.ts";
import {
  addSkill,
  addTurn,
  mentionPath,
  mergeFacts,
  newFacts,
  seenAt,
  skipUnknown,
} from "../../derive/facts.ts";
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
import { claudeDir, claudeFileOf, claudeProjectsDir, discoverClaude } from "./discover.ts";
import { attachSummaries, type SummaryCandidate, summaryEra, uuidOnBytes } from "./summaries.ts";
import { claudeUserKind, contentText, isTyped, readableCommand } from "./user_line.ts";
import { viewClaudeLine } from "./view_line.ts";
import { errorText, isRecord } from "../../lang/mod.ts";

/** The fold state of one Claude transcript file (JSON). */
export interface ClaudeState {
  v: 1;
  facts: SessionFacts;
  /** The first non-meta user line was seen (a cleared context shows as `/clear` there). */
  firstUserSeen: boolean;
  subagent: boolean;
  /**
   * The uuid of the newest line of the main conversation, kept only while the file's version is one whose
   * conversations summary lines title (summaries.ts); null otherwise.
   */
  leaf: string | null;
}

/** What a line's head says it is. */
export type ClaudeHeadKind =
  | { kind: "meta"; type: string }
  | { kind: "attachment" }
  | { kind: "user"; toolResult: boolean }
  | { kind: "system"; subtype: string | null }
  | { kind: "assistant" }
  | { kind: "unknown" };

/** Classifies a Claude line by its first bytes, without parsing it. */
export function claudeHead(head: string): ClaudeHeadKind {
  if (head.startsWith('{"type":"')) {
    const type = headValue(head, "type") ?? "";
    // a message record written type-first (another layout): parse it rather than skip it as metadata
    if (type === "user" || type === "assistant" || type === "system") return { kind: "unknown" };
    return { kind: "meta", type };
  }
  const attachment = head.indexOf('"attachment":{');
  const user = head.indexOf('"type":"user"');
  if (attachment >= 0 && (user < 0 || attachment < user)) return { kind: "attachment" };
  if (user >= 0) {
    const toolResult = head.includes('"content":[{"tool_use_id"') || head.includes('"type":"tool_result"');
    return { kind: "user", toolResult };
  }
  if (head.includes('"type":"system"')) return { kind: "system", subtype: headValue(head, "subtype") };
  if (head.includes('"role":"assistant"')) return { kind: "assistant" };
  return { kind: "unknown" };
}

export { readableCommand } from "./user_line.ts";

const SKILL_MARKER = "Base directory for this skill: ";

function sourceOf(entrypoint: string | null): SessionFacts["source"] {
  if (entrypoint === null) return null;
  // sdk-cli is `claude -p`; sdk-ts / sdk-py are the SDKs: a program drives them, nobody types
  return entrypoint.startsWith("sdk") ? "headless" : "interactive";
}

function noteLine(state: ClaudeState, line: Record<string, unknown>): string | null {
  const f = state.facts;
  const iso = isoOf(line.timestamp);
  seenAt(f, iso);
  if (f.cwd === null) f.cwd = str(line, "cwd");
  const version = str(line, "version");
  if (version !== null) f.agent_version = version;
  if (!state.subagent && f.source === null) f.source = sourceOf(str(line, "entrypoint"));
  if (state.subagent && f.parent_session_id === null) {
    // older versions: a sub-agent file beside the sessions, its lines carrying the parent's id
    const sid = str(line, "sessionId");
    if (sid !== null && sid !== f.session_id) f.parent_session_id = sid;
  }
  return iso;
}

/** A line of the main conversation: the newest one is the leaf a summary line names (summary-era files only). */
function noteLeaf(state: ClaudeState, uuid: string | null): void {
  if (state.subagent) return;
  state.leaf = summaryEra(state.facts.agent_version) ? uuid : null;
}

/**
 * A message line skipped unparsed (a tool result, an attachment, a system note) is still the newest line: in a
 * summary-era file its uuid is read from its bytes (a scan of the line, paid only by those files).
 */
function noteSkippedMessage(state: ClaudeState, buf: Uint8Array, start: number, end: number): void {
  if (state.subagent || !summaryEra(state.facts.agent_version)) return;
  if (headOf(buf, start, end).includes('"isSidechain":true')) return;
  state.leaf = uuidOnBytes(buf, start, end);
}

function onUser(state: ClaudeState, line: Record<string, unknown>): void {
  if (line.isSidechain === true && !state.subagent) return; // sub-agent lines in an old main file
  const iso = noteLine(state, line);
  noteLeaf(state, str(line, "uuid"));
  const message = obj(line, "message");
  const { text, toolResult } = contentText(message?.content);
  if (toolResult) return;
  const f = state.facts;
  if (line.isMeta === true) {
    if (text.startsWith(SKILL_MARKER)) {
      const dir = text.slice(SKILL_MARKER.length).split("\n", 1)[0].trim().replace(/\/+$/, "");
      if (dir !== "") addSkill(f, basename(dir));
    }
    return;
  }
  if (line.isCompactSummary === true || line.isVisibleInTranscriptOnly === true) return;
  const first = !state.firstUserSeen;
  state.firstUserSeen = true;
  if (first && text.includes("<command-name>/clear</command-name>")) f.cleared_at = iso;
  if (state.subagent) {
    // the task the parent handed over: a title for the row, never a turn the person typed
    if (f.first_message === null && text.trim() !== "") f.first_message = text.trim().slice(0, 500);
    return;
  }
  if (isTyped(line, text)) addTurn(f, iso, readableCommand(text));
}

/**
 * The context window of a Claude model, as Anthropic documents them: 200,000 tokens; a model id asking for the
 * 1M window (`[1m]`) has 1,000,000. Null for a model that is not Claude's (a proxy's own name): never a guess.
 */
export function claudeContextWindow(model: string): number | null {
  if (!/^claude-/i.test(model)) return null;
  return /\[1m\]/i.test(model) ? 1_000_000 : 200_000;
}

function onAssistant(state: ClaudeState, line: Record<string, unknown>): void {
  if (line.isSidechain === true && !state.subagent) return;
  noteLine(state, line);
  noteLeaf(state, str(line, "uuid"));
  const f = state.facts;
  const message = obj(line, "message");
  const model = str(message, "model");
  if (model !== null && model !== "<synthetic>") {
    f.model = model;
    f.context_window = claudeContextWindow(model);
  }
  const usage = obj(message, "usage");
  if (usage !== undefined) {
    const parts = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"]
      .map((k) => num(usage, k) ?? 0);
    f.context_tokens = parts.reduce((a, b) => a + b, 0);
  }
  const content = message?.content;
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!isRecord(block) || block.type !== "tool_use") continue;
    const input = obj(block, "input");
    if (input === undefined) continue;
    for (const key of ["file_path", "path", "notebook_path", "cwd"]) mentionPath(f, input[key]);
    if (typeof input.command === "string") {
      for (const p of absolutePaths(input.command)) mentionPath(f, p);
    }
  }
}

function onSystem(state: ClaudeState, line: Record<string, unknown>): void {
  noteLine(state, line);
  if (line.isSidechain !== true) noteLeaf(state, str(line, "uuid"));
  if (line.subtype !== "compact_boundary") return;
  // the context after a compaction is what the harness says it kept, until the next request says otherwise
  state.facts.context_tokens = num(obj(line, "compactMetadata"), "postTokens");
}

function onMeta(state: ClaudeState, line: Record<string, unknown>): void {
  const f = state.facts;
  switch (line.type) {
    case "custom-title": {
      const title = str(line, "customTitle");
      if (title !== null) f.name = title;
      return;
    }
    case "ai-title": {
      const title = str(line, "aiTitle");
      if (title !== null) f.title = title;
      return;
    }
  }
}

/**
 * The metadata record types the fold reads a fact from; the other known ones are skipped unparsed. Not `summary`:
 * it titles the conversation of another file (summaries.ts reads it in the enrich step).
 */
const META_WANTED = new Set(["custom-title", "ai-title"]);

/**
 * Every record type Claude Code is known to write into a transcript, 0.2.x to 2.1.328 (read from the versions'
 * own loaders and writers): the messages, then the metadata records. A type not here is unknown to the reader.
 */
export const CLAUDE_RECORD_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "system",
  "attachment",
  "progress",
  "summary",
  "custom-title",
  "ai-title",
  "tag",
  "agent-name",
  "agent-color",
  "agent-setting",
  "mode",
  "permission-mode",
  "repl-mode",
  "isolation-latch",
  "session-owner",
  "dev-mods",
  "memory-mode",
  "atis-latch",
  "tools-used",
  "data-flow-records",
  "data-flow-incomplete",
  "derived-from",
  "worktree-state",
  "artifact-comment-monitor",
  "artifact-autoreact-ledger",
  "cost-state",
  "pr-link",
  "bridge-session",
  "history-suppression",
  "file-history-snapshot",
  "file-history-delta",
  "attribution-snapshot",
  "content-replacement",
  "fork-context-ref",
  "last-prompt",
  "relocated",
  "ended-by-model",
  "queue-operation",
  "api-request",
  "api-request-blob",
  "api-request-shape",
  "api-request-resumed",
  "observer-ref",
  "frame-link",
  "resume-head-vouch",
  "checkpoint",
]);

const MESSAGE_TYPES = new Set(["user", "assistant", "system", "attachment", "progress"]);

function dispatch(state: ClaudeState, line: Record<string, unknown>): void {
  switch (line.type) {
    case "user":
      return onUser(state, line);
    case "assistant":
      return onAssistant(state, line);
    case "system":
      return onSystem(state, line);
    default:
      if (typeof line.type !== "string") return;
      if (META_WANTED.has(line.type)) onMeta(state, line);
      else if (!CLAUDE_RECORD_TYPES.has(line.type)) skipUnknown(state.facts, line.type);
  }
}

const PARENT_KEY = ascii('{"parentUuid":');
const NULL = ascii("null");
const SIDECHAIN_KEY = ascii(',"isSidechain":');
const FALSE = ascii("false");
const TRUE = ascii("true");
const ATTACHMENT_KEY = ascii(',"attachment":{');
const TYPE_FIRST = ascii('{"type":"');

/**
 * The metadata types known to carry no fact, skipped on their bytes: `<type>"`, by first byte (most lines are
 * such records; a byte compare against the few of one letter is cheaper than decoding the type).
 */
const IGNORED_META = new Map<number, Uint8Array[]>();
for (const type of CLAUDE_RECORD_TYPES) {
  if (MESSAGE_TYPES.has(type) || META_WANTED.has(type)) continue;
  const pattern = ascii(`${type}"`);
  IGNORED_META.set(pattern[0], [...IGNORED_META.get(pattern[0]) ?? [], pattern]);
}

/**
 * The two shapes most of a transcript's lines take, told from their bytes without decoding them: a metadata
 * record (`{"type":"<t>"...`) of a known type that carries no fact, and an attachment
 * (`{"parentUuid":<uuid or null>,"isSidechain":<bool>,"attachment":{...`). Anything else (and anything that
 * only looks close) goes through {@link claudeHead}.
 */
export function claudeSkipsOnBytes(buf: Uint8Array, start: number, end: number): boolean {
  if (bytesAt(buf, start, end, TYPE_FIRST)) {
    const at = start + TYPE_FIRST.length;
    const candidates = IGNORED_META.get(buf[at]);
    return candidates !== undefined && anyBytesAt(buf, at, end, candidates);
  }
  if (!bytesAt(buf, start, end, PARENT_KEY)) return false;
  let at = start + PARENT_KEY.length;
  if (bytesAt(buf, at, end, NULL)) at += NULL.length;
  else if (buf[at] === 0x22 && buf[at + 37] === 0x22) at += 38; // a quoted uuid
  else return false;
  if (!bytesAt(buf, at, end, SIDECHAIN_KEY)) return false;
  at += SIDECHAIN_KEY.length;
  if (bytesAt(buf, at, end, FALSE)) at += FALSE.length;
  else if (bytesAt(buf, at, end, TRUE)) at += TRUE.length;
  else return false;
  return bytesAt(buf, at, end, ATTACHMENT_KEY);
}

/** A fold of one Claude transcript. */
export function claudeFold(file: TranscriptFile, saved: unknown | null): TranscriptFold {
  const state: ClaudeState = isClaudeState(saved) ? structuredClone(saved) : {
    v: 1,
    facts: newFacts(file.sessionHint),
    firstUserSeen: false,
    subagent: file.role === "subagent",
    leaf: null,
  };
  if (state.subagent) {
    state.facts.source = "subagent";
    if (state.facts.parent_session_id === null) state.facts.parent_session_id = file.parentSessionId;
  }
  return {
    line(buf, start, end) {
      if (claudeSkipsOnBytes(buf, start, end)) {
        if (!bytesAt(buf, start, end, TYPE_FIRST)) noteSkippedMessage(state, buf, start, end);
        return;
      }
      const head = claudeHead(headOf(buf, start, end));
      switch (head.kind) {
        case "attachment":
          return noteSkippedMessage(state, buf, start, end);
        case "meta":
          if (!CLAUDE_RECORD_TYPES.has(head.type)) return skipUnknown(state.facts, head.type);
          if (!META_WANTED.has(head.type)) return;
          break;
        case "user":
          if (head.toolResult) return noteSkippedMessage(state, buf, start, end);
          break;
        case "system":
          // only a compaction boundary says anything (the context it kept)
          if (head.subtype !== null && head.subtype !== "compact_boundary") {
            return noteSkippedMessage(state, buf, start, end);
          }
          break;
      }
      const line = parseLine(buf, start, end);
      if (line === undefined) {
        state.facts.bad_lines++;
        return;
      }
      dispatch(state, line);
    },
    state: () => state,
  };
}

function isClaudeState(value: unknown): value is ClaudeState {
  return isRecord(value) && value.v === 1 && isRecord(value.facts) &&
    typeof value.firstUserSeen === "boolean";
}

/** The leaf of a state (a state saved before the field existed has none). */
function leafOf(state: ClaudeState): string | null {
  return typeof state.leaf === "string" ? state.leaf : null;
}

/** The history.jsonl entries of `/clear` typed in a folder: who was cleared, when. */
interface ClearEntry {
  sessionId: string;
  at: number;
  project: string;
}

function clearEntries(io: TranscriptIo, env: Env): ClearEntry[] {
  // one line per typed line, forever: it can be large, and only the /clear lines matter
  const text = io.readText(join(claudeDir(env), "history.jsonl"), 64 << 20);
  if (text === null) return [];
  const out: ClearEntry[] = [];
  for (const raw of text.split("\n")) {
    if (!raw.includes('"/clear"')) continue;
    const e = parseObject(raw);
    const sid = str(e, "sessionId");
    const at = num(e, "timestamp");
    const project = str(e, "project");
    if (e?.display === "/clear" && sid !== null && at !== null && project !== null) {
      out.push({ sessionId: sid, at, project });
    }
  }
  return out;
}

/** What lives outside a session's own file: the title a summary line gives it, the session a /clear replaced. */
function enrichClaude(sessions: EnrichInput[], env: Env, io: TranscriptIo): string[] {
  return [...enrichSummaries(sessions, io), ...enrichCleared(sessions, env, io)];
}

/** The summary line that titles each summary-era session, from the files of its folder (summaries.ts). */
function enrichSummaries(sessions: EnrichInput[], io: TranscriptIo): string[] {
  const candidates: SummaryCandidate[] = [];
  for (const s of sessions) {
    if (s.facts.summary !== null) continue;
    s.states.forEach((state, i) => {
      const leaf = isClaudeState(state) && !state.subagent ? leafOf(state) : null;
      if (leaf !== null) candidates.push({ facts: s.facts, path: s.files[i].path, leaf });
    });
  }
  return candidates.length === 0 ? [] : attachSummaries(candidates, io);
}

/**
 * A cleared context leaves no trace of the old id in the new transcript; the person's own typed-line history
 * does: the `/clear` entry of the old session, in the same folder, within seconds of the new file's first line.
 */
function enrichCleared(sessions: EnrichInput[], env: Env, io: TranscriptIo): string[] {
  const cleared = sessions.filter((s) =>
    s.facts.cleared_at !== null && s.facts.cleared_from_session_id === null
  );
  if (cleared.length === 0) return [];
  let entries: ClearEntry[];
  try {
    entries = clearEntries(io, env);
  } catch (err) {
    return [`~/.claude/history.jsonl could not be read: ${errorText(err)}`];
  }
  for (const s of cleared) {
    const at = Date.parse(s.facts.cleared_at!);
    const match = entries
      .filter((e) =>
        e.project === s.facts.cwd && e.sessionId !== s.facts.session_id && Math.abs(e.at - at) <= 5000
      )
      .sort((a, b) => Math.abs(a.at - at) - Math.abs(b.at - at))[0];
    if (match) s.facts.cleared_from_session_id = match.sessionId;
  }
  return [];
}

/** What one Claude line is, for search: message text only. */
export function classifyClaudeLine(raw: string): TranscriptLine | null {
  const line = parseObject(raw);
  if (line === undefined) return null;
  const ts = isoOf(line.timestamp);
  const id = str(line, "uuid");
  if (line.type === "user") {
    const { text, toolResult } = contentText(obj(line, "message")?.content);
    if (toolResult) return { kind: "tool", text: toolResultText(obj(line, "message")?.content), ts, id };
    if (claudeUserKind(line, text) === "prompt") {
      return { kind: "prompt", text: readableCommand(text), ts, id };
    }
    return { kind: "injected", text, ts, id };
  }
  if (line.type === "assistant") {
    return { kind: "assistant", text: contentText(obj(line, "message")?.content).text, ts, id };
  }
  return { kind: "meta", text: "", ts, id };
}

function toolResultText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (!isRecord(block) || block.type !== "tool_result") continue;
    if (typeof block.content === "string") parts.push(block.content);
    else parts.push(contentText(block.content).text);
  }
  return parts.join("\n");
}

/** Claude Code's transcripts. */
export const claudeTranscripts: TranscriptCapability = {
  skillMarkers: true,
  discover: discoverClaude,
  stores: (env) => [claudeProjectsDir(env)],
  fileOf: claudeFileOf,
  fold: claudeFold,
  sessionOf: (state, file) => (isClaudeState(state) ? state.facts.session_id : null) ?? file.sessionHint,
  facts: (states) => mergeFacts(states.filter(isClaudeState).map((s) => s.facts)),
  enrich: enrichClaude,
  classifyLine: classifyClaudeLine,
  viewLine: viewClaudeLine,
};
