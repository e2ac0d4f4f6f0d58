/**
 * The `summary` lines of Claude Code up to 2.1.29 (docs/agents/claude_old_versions.md): at each start the version
 * titled the earlier conversations of the folder that had no title yet, and appended
 * `{"type":"summary","summary":<title>,"leafUuid":<uuid>}` to the file of the session it was starting, not to the
 * file it titles. The title belongs to the conversation whose newest message (its leaf) has that uuid: the fold
 * keeps each file's leaf, and the enrich step finds the summary lines about it in the files of the same folder.
 * Later versions write no summary line (the ai-title record took over).
 * @module
 */
import { dirname, join } from "node:path";
import { ascii, bytesAt, parseObject, str, textOf } from "../../derive/bytes.ts";
import type { TranscriptIo } from "../../derive/mod.ts";
import { errorText } from "../../lang/mod.ts";

/** The first version that writes no summary line (2.1.29 was the last to write them). */
const FIRST_WITHOUT_SUMMARIES = [2, 1, 30];

/**
 * True for a version that titled conversations with summary lines, and so may have been titled by one: a
 * conversation whose newest line a later version wrote is never titled by a summary line.
 */
export function summaryEra(version: string | null): boolean {
  // asked for every skipped line of a file, whose version seldom changes
  if (version === lastVersion) return lastEra;
  const parts = version?.match(/^(\d+)\.(\d+)\.(\d+)/)?.slice(1).map(Number);
  let era = false;
  if (parts !== undefined) {
    const i = parts.findIndex((p, k) => p !== FIRST_WITHOUT_SUMMARIES[k]);
    era = i >= 0 && parts[i] < FIRST_WITHOUT_SUMMARIES[i];
  }
  lastVersion = version;
  lastEra = era;
  return era;
}

let lastVersion: string | null = null;
let lastEra = false;

const UUID_KEY = ascii('"uuid":"');

/**
 * The `uuid` of a message line, from its bytes. A JSON string escapes its quotes, so `"uuid":"` can only be a key;
 * in the lines of the versions with summary lines the first such key is the record's own (it follows the
 * message, whose contents carry none, and precedes `toolUseResult`). Null when the line has none.
 */
export function uuidOnBytes(buf: Uint8Array, start: number, end: number): string | null {
  for (let at = buf.indexOf(0x22, start); at >= 0 && at < end; at = buf.indexOf(0x22, at + 1)) {
    if (!bytesAt(buf, at, end, UUID_KEY)) continue;
    const from = at + UUID_KEY.length;
    const close = buf.indexOf(0x22, from);
    return close > from && close < end && close - from <= 64 ? textOf(buf, from, close) : null;
  }
  return null;
}

/**
 * How much of each file is searched for summary lines. The versions wrote them at start-up, before the first
 * prompt of an interactive session; a `-p` run may write its prompt and reply first.
 */
export const SUMMARY_HEAD_BYTES = 64 << 10;

/**
 * What a version wrote as the title when its title request failed: its own error text in place of the model's
 * answer (0.2.126 with the key only in ANTHROPIC_API_KEY writes "Invalid API key · Please run /login"). The
 * texts are the versions' own error messages, 0.2.x to 2.1.29. Not a title.
 */
const FAILED_TITLE = new RegExp(
  "^(API Error|Invalid API key|OAuth token revoked|Prompt is too long|Credit balance is too low|" +
    "Claude AI usage limit reached|Repeated 529 Overloaded errors|Request timed out|" +
    "Opus is experiencing high load|Your account does not have access to Claude Code)",
);

/** The summary lines in the first bytes of every transcript of one folder: leaf uuid -> title. */
export function folderSummaries(io: TranscriptIo, dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const names = io.readDir(dir).filter((e) => e.isFile && e.name.endsWith(".jsonl")).map((e) => e.name)
    .sort();
  for (const name of names) {
    const text = io.readText(join(dir, name), SUMMARY_HEAD_BYTES);
    if (text === null) continue;
    for (const raw of text.split("\n")) {
      if (!raw.startsWith('{"type":"summary"')) continue;
      const line = parseObject(raw);
      const leaf = str(line, "leafUuid");
      const summary = str(line, "summary");
      if (leaf === null || summary === null || FAILED_TITLE.test(summary)) continue;
      // a leaf is titled once; a second title (two starts racing) does not replace the first
      if (!out.has(leaf)) out.set(leaf, summary);
    }
  }
  return out;
}

/** A session that may have been titled by a summary line: its facts, and its main file's path and leaf. */
export interface SummaryCandidate {
  facts: { summary: string | null };
  path: string;
  leaf: string;
}

/**
 * Gives each candidate without a summary the title a summary line in its folder gives its leaf. Each folder is
 * read once. Returns the problems to log (a folder that cannot be read leaves its sessions untitled).
 */
export function attachSummaries(candidates: SummaryCandidate[], io: TranscriptIo): string[] {
  const problems: string[] = [];
  const byFolder = new Map<string, Map<string, string>>();
  for (const c of candidates) {
    if (c.facts.summary !== null) continue;
    const dir = dirname(c.path);
    let summaries = byFolder.get(dir);
    if (summaries === undefined) {
      try {
        summaries = folderSummaries(io, dir);
      } catch (err) {
        problems.push(`summary lines in ${dir} could not be read: ${errorText(err)}`);
        summaries = new Map();
      }
      byFolder.set(dir, summaries);
    }
    const summary = summaries.get(c.leaf);
    if (summary !== undefined) c.facts.summary = summary;
  }
  return problems;
}
