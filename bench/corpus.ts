/**
 * The import bench's corpus: real transcript lines the agents wrote (`../shared/fixtures`), replayed into a
 * temporary folder laid out the way each agent keeps its store, with fresh session, message, request and record
 * ids and fresh timestamps, until it reaches the asked size and session count. Deterministic: the same options
 * (seed included) write the same bytes.
 *
 * A session is one fixture file: its first line once, then its other lines replayed `reps` times (each replay with
 * its own ids and later timestamps), so the agents keep their natural share of bytes (Claude's transcripts are the
 * big ones) and every session grows by the same factor to reach the asked total.
 * @module
 */
import { basename, dirname, join } from "node:path";

// The corpus mirrors the fixtures tree, which is organised by agent: this bench (like the fixtures) has to name the
// three agents' stores. docs/decisions.md says why this file is the exception to "only lib/agents names an agent".

/** The agents the corpus writes, in the order sessions are numbered. */
export const CORPUS_AGENTS = ["claude", "codex", "gemini"] as const;
/** One of {@linkcode CORPUS_AGENTS}. */
export type CorpusAgent = typeof CORPUS_AGENTS[number];

/** Options of {@linkcode writeCorpus}. */
export interface CorpusOptions {
  /** the folder to write into (it holds `home/`, the agents' homes); it must exist */
  root: string;
  /** about this many bytes in all (default 1 GB = 1e9) */
  bytes?: number;
  /** sessions in all (default 5,000) */
  sessions?: number;
  /** share of sessions per agent (default 60 / 30 / 10) */
  mix?: Record<CorpusAgent, number>;
  /** the PRNG seed (default 1) */
  seed?: number;
  /** the newest session starts before this instant (epoch ms; default 2026-11-01T00:00:00Z) */
  untilMs?: number;
  /** sessions start over this many days before `untilMs` (default 730) */
  spreadDays?: number;
  /** where the fixtures are (default ../shared/fixtures beside the repository) */
  fixtures?: string;
}

/** What {@linkcode writeCorpus} wrote. */
export interface Corpus {
  root: string;
  /** the agents' environment: HOME, CODEX_HOME, GEMINI_CLI_HOME, all under `root` */
  env: { HOME: string; CODEX_HOME: string; GEMINI_CLI_HOME: string };
  /** Claude Code's folder (what `CLAUDE_CONFIG_DIR` names) */
  claudeDir: string;
  sessions: Record<CorpusAgent, number>;
  bytes: Record<CorpusAgent, number>;
  files: number;
  totalBytes: number;
}

/** The default fixtures folder: ../shared/fixtures beside the repository. */
export const DEFAULT_FIXTURES = new URL("../../shared/fixtures/", import.meta.url).pathname;

/** The transcripts replayed per agent (sub-agent files are left out: each corpus file is one session). */
const TEMPLATE_DIRS: Record<CorpusAgent, string[]> = {
  claude: ["claude/interactive/transcripts", "claude/p-mode/transcripts", "claude/signals"],
  codex: ["codex/rollouts"],
  gemini: ["gemini/headless/chats", "gemini/interactive/chats"],
};

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
/**
 * What a replay refreshes: uuids (session, message, line, tool ids), 32-hex record ids (Gemini), the API's
 * `req_`/`msg_`/`toolu_`/`call_` ids, and ISO-8601 UTC timestamps.
 */
const SLOT = new RegExp(
  `(${UUID})|(?<![0-9a-f])([0-9a-f]{32})(?![0-9a-f])|\\b((?:req|msg|toolu|call)_[A-Za-z0-9]{8,})|` +
    `(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.(\\d{1,9}))?Z)`,
  "gi",
);

/** A slot of a template: an id to refresh (by its original text) or a timestamp to shift (its epoch ms). */
type Slot = { id: string; kind: "uuid" | "hex" | "api" } | { ts: number; digits: number };

/** A piece of a fixture, cut into literal text and slots: `text[0] slot[0] text[1] ... text[n]`. */
interface Piece {
  text: string[];
  slots: Slot[];
}

/** A fixture file ready to replay. */
interface Template {
  agent: CorpusAgent;
  /** the session id the file is (its name, or Gemini's header) */
  sessionId: string;
  head: Piece;
  body: Piece;
  /** bytes of the first line and of one replay of the others */
  headBytes: number;
  bodyBytes: number;
  /** the first timestamp in the file and the span of its body, ms */
  t0: number;
  bodySpanMs: number;
  /** the last timestamp of one replay of its body (of its head when its body has none), ms */
  lastMs: number;
}

function cut(text: string): Piece {
  const out: Piece = { text: [], slots: [] };
  let last = 0;
  for (const m of text.matchAll(SLOT)) {
    out.text.push(text.slice(last, m.index));
    if (m[1]) out.slots.push({ id: m[1].toLowerCase(), kind: "uuid" });
    else if (m[2]) out.slots.push({ id: m[2].toLowerCase(), kind: "hex" });
    else if (m[3]) out.slots.push({ id: m[3], kind: "api" });
    else out.slots.push({ ts: Date.parse(m[4]), digits: m[5]?.length ?? 0 });
    last = m.index + m[0].length;
  }
  out.text.push(text.slice(last));
  return out;
}

function timesOf(piece: Piece): number[] {
  return piece.slots.flatMap((s) => ("ts" in s && Number.isFinite(s.ts) ? [s.ts] : []));
}

function templateOf(agent: CorpusAgent, path: string): Template | null {
  const text = Deno.readTextFileSync(path);
  const nl = text.indexOf("\n");
  if (nl < 0 || nl === text.length - 1) return null;
  const headText = text.slice(0, nl + 1);
  const bodyText = text.endsWith("\n") ? text.slice(nl + 1) : text.slice(nl + 1) + "\n";
  let sessionId: string | null = null;
  if (agent === "gemini") {
    sessionId = (JSON.parse(headText) as { sessionId?: string }).sessionId ?? null;
  } else if (agent === "codex") {
    // the fixtures' rollouts are renamed; the session_meta line names the thread
    sessionId = (JSON.parse(headText) as { payload?: { id?: string } }).payload?.id ?? null;
  } else {
    const ids = basename(path).match(new RegExp(UUID, "gi"));
    sessionId = ids ? ids[ids.length - 1] : null;
  }
  if (sessionId === null) return null;
  const head = cut(headText);
  const body = cut(bodyText);
  const times = [...timesOf(head), ...timesOf(body)];
  const bodyTimes = timesOf(body);
  const t0 = times.length ? Math.min(...times) : 0;
  const span = bodyTimes.length ? Math.max(...bodyTimes) - Math.min(...bodyTimes) : 0;
  return {
    agent,
    sessionId: sessionId.toLowerCase(),
    head,
    body,
    headBytes: new TextEncoder().encode(headText).length,
    bodyBytes: new TextEncoder().encode(bodyText).length,
    t0,
    bodySpanMs: span + 60_000,
    lastMs: bodyTimes.length ? Math.max(...bodyTimes) : t0,
  };
}

function templatesOf(fixtures: string, agent: CorpusAgent): Template[] {
  const out: Template[] = [];
  for (const dir of TEMPLATE_DIRS[agent]) {
    const names = [...Deno.readDirSync(join(fixtures, dir))]
      .filter((e) => e.isFile && e.name.endsWith(".jsonl"))
      .map((e) => e.name)
      .sort();
    for (const name of names) {
      const t = templateOf(agent, join(fixtures, dir, name));
      if (t) out.push(t);
    }
  }
  if (out.length === 0) {
    throw new Error(`no ${agent} transcripts in ${fixtures}; the corpus needs the fixtures`);
  }
  return out;
}

/** A small fast PRNG (mulberry32): the corpus must be the same for the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

function hex(next: () => number, chars: number): string {
  let s = "";
  while (s.length < chars) s += next().toString(16).padStart(8, "0");
  return s.slice(0, chars);
}

function freshUuid(next: () => number): string {
  const h = hex(next, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
}

function freshApiId(original: string, next: () => number): string {
  const us = original.indexOf("_");
  return original.slice(0, us + 1) + hex(next, Math.max(original.length - us - 1, 8));
}

function isoWithDigits(ms: number, digits: number): string {
  const iso = new Date(ms).toISOString(); // always .mmm
  if (digits === 3) return iso;
  if (digits === 0) return iso.slice(0, 19) + "Z";
  const frac = iso.slice(20, 23);
  return iso.slice(0, 20) + (digits < 3 ? frac.slice(0, digits) : frac.padEnd(digits, "0")) + "Z";
}

/** Writes a piece with the session's ids (`ids`: original -> fresh, filled on first use) and shifted times. */
function render(piece: Piece, ids: Map<string, string>, shiftMs: number, next: () => number): string {
  const parts: string[] = [];
  for (let i = 0; i < piece.slots.length; i++) {
    parts.push(piece.text[i]);
    const slot = piece.slots[i];
    if ("ts" in slot) {
      parts.push(Number.isFinite(slot.ts) ? isoWithDigits(slot.ts + shiftMs, slot.digits) : "");
      continue;
    }
    let fresh = ids.get(slot.id);
    if (fresh === undefined) {
      fresh = slot.kind === "uuid"
        ? freshUuid(next)
        : slot.kind === "hex"
        ? hex(next, 32)
        : freshApiId(slot.id, next);
      ids.set(slot.id, fresh);
    }
    parts.push(fresh);
  }
  parts.push(piece.text[piece.slots.length]);
  return parts.join("");
}

function stamp(ms: number, sep: string): string {
  // 2026-11-29T22-13-07 (Codex) or 2026-11-29T22-13 (Gemini)
  const iso = new Date(ms).toISOString();
  return sep === "s" ? iso.slice(0, 19).replaceAll(":", "-") : iso.slice(0, 16).replaceAll(":", "-");
}

/** Sessions per agent for `total` sessions and a mix; the counts sum to `total`. */
export function sessionCounts(total: number, mix: Record<CorpusAgent, number>): Record<CorpusAgent, number> {
  const sum = CORPUS_AGENTS.reduce((n, a) => n + mix[a], 0);
  const claude = Math.round((total * mix.claude) / sum);
  const codex = Math.round((total * mix.codex) / sum);
  return { claude, codex, gemini: Math.max(total - claude - codex, 0) };
}

/** Writes the corpus under `options.root` and says what it wrote. */
export function writeCorpus(options: CorpusOptions): Corpus {
  const root = options.root;
  const targetBytes = options.bytes ?? 1e9;
  const total = options.sessions ?? 5000;
  const counts = sessionCounts(total, options.mix ?? { claude: 60, codex: 30, gemini: 10 });
  const fixtures = options.fixtures ?? DEFAULT_FIXTURES;
  const next = prng(options.seed ?? 1);
  const untilMs = options.untilMs ?? Date.parse("2026-11-01T00:00:00.000Z");
  const spreadMs = (options.spreadDays ?? 730) * 86_400_000;
  const home = join(root, "home");
  const env = { HOME: home, CODEX_HOME: join(home, ".codex"), GEMINI_CLI_HOME: home };
  const claudeDir = join(home, ".claude");

  const templates = Object.fromEntries(CORPUS_AGENTS.map((a) => [a, templatesOf(fixtures, a)])) as Record<
    CorpusAgent,
    Template[]
  >;
  // the corpus's size at one replay a session, then the replays per session that reach the asked size
  let heads = 0;
  let bodies = 0;
  for (const a of CORPUS_AGENTS) {
    for (let i = 0; i < counts[a]; i++) {
      const t = templates[a][i % templates[a].length];
      heads += t.headBytes;
      bodies += t.bodyBytes;
    }
  }
  const scale = bodies > 0 ? Math.max(targetBytes - heads, 0) / bodies : 1;

  const encoder = new TextEncoder();
  const corpus: Corpus = {
    root,
    env,
    claudeDir,
    sessions: { claude: 0, codex: 0, gemini: 0 },
    bytes: { claude: 0, codex: 0, gemini: 0 },
    files: 0,
    totalBytes: 0,
  };
  const made = new Set<string>();
  const mkdir = (dir: string) => {
    if (made.has(dir)) return;
    Deno.mkdirSync(dir, { recursive: true });
    made.add(dir);
  };
  for (const agent of CORPUS_AGENTS) {
    const list = templates[agent];
    for (let i = 0; i < counts[agent]; i++) {
      const t = list[i % list.length];
      const reps = Math.max(1, Math.floor(scale) + ((next() / 2 ** 32) < scale % 1 ? 1 : 0));
      const startMs = untilMs - Math.floor((next() / 2 ** 32) * spreadMs);
      const sessionId = freshUuid(next);
      const project = `p${i % 40}`;
      const ids = new Map<string, string>([[t.sessionId, sessionId]]);
      const parts = [render(t.head, ids, startMs - t.t0, next)];
      for (let r = 0; r < reps; r++) {
        // each replay is new lines: its own ids (the session's own id stays), later times
        const repIds = new Map<string, string>([[t.sessionId, sessionId]]);
        parts.push(render(t.body, r === 0 ? ids : repIds, startMs - t.t0 + r * t.bodySpanMs, next));
      }
      let path: string;
      if (agent === "claude") {
        path = join(claudeDir, "projects", `-bench-${project}`, `${sessionId}.jsonl`);
      } else if (agent === "codex") {
        const day = new Date(startMs).toISOString().slice(0, 10).split("-");
        path = join(env.CODEX_HOME, "sessions", ...day, `rollout-${stamp(startMs, "s")}-${sessionId}.jsonl`);
      } else {
        const slugDir = join(home, ".gemini", "tmp", `bench-${project}`);
        if (!made.has(slugDir)) {
          mkdir(slugDir);
          Deno.writeTextFileSync(join(slugDir, ".project_root"), `/bench/${project}\n`);
        }
        path = join(slugDir, "chats", `session-${stamp(startMs, "m")}-${sessionId.slice(0, 8)}.jsonl`);
      }
      mkdir(dirname(path));
      const bytes = encoder.encode(parts.join(""));
      Deno.writeFileSync(path, bytes);
      // written when its last line was, as an agent's file is: what orders a first run's reads, newest first
      const lastMs = startMs - t.t0 + (reps - 1) * t.bodySpanMs + t.lastMs;
      Deno.utimeSync(path, new Date(lastMs), new Date(lastMs));
      corpus.sessions[agent]++;
      corpus.bytes[agent] += bytes.length;
      corpus.files++;
      corpus.totalBytes += bytes.length;
    }
  }
  return corpus;
}
