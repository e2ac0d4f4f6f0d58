import assert from "node:assert/strict";
import {
  passFile,
  type TranscriptCapability,
  type TranscriptFile,
  type TranscriptHandle,
} from "../derive/mod.ts";
import { transcriptReader } from "../agents/mod.ts";
import { isIsoUtcMs, sessionViews } from "../ledger/mod.ts";
import { fixture, importWorld } from "./_test_utils.ts";

// each agent's reader, by adapter name (nothing outside lib/agents names an agent's module)
const [claudeTranscripts, codexTranscripts, geminiTranscripts] = ["claude", "codex", "gemini"].map(
  transcriptReader,
);

/** A small seeded generator: a failing case is reproducible from its seed. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

const SOURCES: [TranscriptCapability, string, string | null][] = [
  [
    claudeTranscripts,
    "claude/interactive/transcripts/before-clear.chat-tool-skill-rename.9489399f-ac78-4316-81cd-2726c9579121.jsonl",
    "9489399f-ac78-4316-81cd-2726c9579121",
  ],
  [
    claudeTranscripts,
    "claude/p-mode/transcripts/plain-resume-continue-then-compact.11111111-2222-4333-8444-555555555555.jsonl",
    "11111111-2222-4333-8444-555555555555",
  ],
  [
    claudeTranscripts,
    "claude/p-mode/transcripts/357e623d-2687-473b-b7a1-aaf113475103.jsonl",
    "357e623d-2687-473b-b7a1-aaf113475103",
  ],
  [codexTranscripts, "codex/rollouts/tui-chat-plus-tool-call.rollout.jsonl", null],
  [codexTranscripts, "codex/rollouts/exec-tool-call-with-hooks-then-resumed-twice.rollout.jsonl", null],
  [geminiTranscripts, "gemini/headless/chats/session-2026-11-29T22-22-03265f03.jsonl", null],
  [geminiTranscripts, "gemini/interactive/chats/session-2026-11-29T22-22-c1da5980.jsonl", null],
];
const BYTES = SOURCES.map(([, rel]) => Deno.readFileSync(fixture(rel)));

function lines(b: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let s = 0;
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 10) {
      out.push(b.subarray(s, i + 1));
      s = i + 1;
    }
  }
  if (s < b.length) out.push(b.subarray(s));
  return out;
}

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One random change to a transcript's bytes. */
function mutate(b: Uint8Array, r: () => number): Uint8Array {
  const at = Math.floor(r() * b.length);
  switch (Math.floor(r() * 9)) {
    case 0: // truncate anywhere
      return b.slice(0, at);
    case 1: { // flip bytes
      const c = b.slice();
      for (let i = 0; i < 1 + r() * 20; i++) c[Math.floor(r() * c.length)] = Math.floor(r() * 256);
      return c;
    }
    case 2: { // insert garbage
      const junk = Uint8Array.from({ length: 1 + Math.floor(r() * 300) }, () => Math.floor(r() * 256));
      return join([b.subarray(0, at), junk, b.subarray(at)]);
    }
    case 3: { // drop a line
      const l = lines(b);
      l.splice(Math.floor(r() * l.length), 1);
      return join(l);
    }
    case 4: { // repeat a line
      const l = lines(b);
      const i = Math.floor(r() * l.length);
      l.splice(i, 0, l[i] ?? new Uint8Array());
      return join(l);
    }
    case 5: { // swap two lines
      const l = lines(b);
      const i = Math.floor(r() * l.length);
      const j = Math.floor(r() * l.length);
      [l[i], l[j]] = [l[j], l[i]];
      return join(l);
    }
    case 6: { // a line from another agent's format
      const other = BYTES[Math.floor(r() * BYTES.length)];
      const l = lines(other);
      return join([
        b.subarray(0, at),
        new Uint8Array([10]),
        l[Math.floor(r() * l.length)] ?? new Uint8Array(),
        b.subarray(at),
      ]);
    }
    case 7: { // newlines removed from a region: lines run together
      const c = b.slice();
      const end = Math.min(c.length, at + Math.floor(r() * 5000));
      for (let i = at; i < end; i++) if (c[i] === 10) c[i] = 32;
      return c;
    }
    default: { // a long line (longer than the fold's line limit below)
      const long = new Uint8Array(70_000 + Math.floor(r() * 10_000)).fill(0x7b);
      return join([b.subarray(0, at), long, b.subarray(at)]);
    }
  }
}

function memoryHandle(bytes: Uint8Array): TranscriptHandle {
  return {
    read(into, position) {
      const n = Math.max(0, Math.min(into.length, bytes.length - position));
      into.set(bytes.subarray(position, position + n));
      return n;
    },
    close() {},
  };
}

const CASES = 1200;

Deno.test(`${CASES} mutated transcripts never crash the byte pass, and what it derives stays well-formed`, async () => {
  for (let seed = 1; seed <= CASES; seed++) {
    const r = rng(seed);
    const which = Math.floor(r() * SOURCES.length);
    const [cap, rel, sid] = SOURCES[which];
    let bytes: Uint8Array = BYTES[which];
    for (let k = 0; k < 1 + Math.floor(r() * 3); k++) bytes = mutate(bytes, r);
    const file: TranscriptFile = {
      agent: "fuzz",
      path: `/fuzz/${seed}/${rel}`,
      sessionHint: sid,
      role: "main",
      parentSessionId: null,
      cwd: "/w",
      rel,
      size: bytes.length,
      mtimeMs: 0,
      ino: null,
    };
    const where = `seed ${seed} (${rel})`;
    try {
      // a small line limit and odd chunk sizes: every path of the pass gets exercised
      const half = Math.floor(r() * bytes.length);
      const first = cap.fold(file, null);
      const a = await passFile(memoryHandle(bytes), 0, half, first, {
        chunkBytes: 1000 + seed % 3000,
        maxLineBytes: 65536,
      });
      const resumed = cap.fold(file, JSON.parse(JSON.stringify(first.state())));
      await passFile(memoryHandle(bytes), a.offset, bytes.length, resumed, {
        chunkBytes: 4096,
        maxLineBytes: 65536,
      });
      const facts = cap.facts([resumed.state()], [file]);
      assert.ok(Number.isInteger(facts.turns) && facts.turns >= 0, where);
      assert.equal(Object.values(facts.days).reduce((x, y) => x + y, 0) <= facts.turns, true, where);
      for (const t of [facts.started_at, facts.last_seen]) {
        assert.ok(t === null || isIsoUtcMs(t), `${where}: ${t}`);
      }
      for (const day of Object.keys(facts.days)) assert.match(day, /^\d{4}-\d\d-\d\d$/, where);
      assert.ok(facts.context_tokens === null || Number.isFinite(facts.context_tokens), where);
      JSON.stringify(facts);
      for (const line of new TextDecoder().decode(bytes).split("\n")) cap.classifyLine(line);
    } catch (err) {
      throw new Error(`${where}: ${(err as Error).stack}`);
    }
  }
});

Deno.test("mutated transcripts beside good ones never change what the good ones import as", async () => {
  await using w = importWorld();
  const good = [
    [0, ".claude/projects/-tmp-cc-proj-5/9489399f-ac78-4316-81cd-2726c9579121.jsonl"],
    [3, ".codex/sessions/2026/11/29/rollout-2026-11-29T22-13-44-01a2295f-0ad6-7852-afe2-883c2e6eae7a.jsonl"],
    [5, ".gemini/tmp/proj-a/chats/session-2026-11-29T22-22-03265f03.jsonl"],
  ] as const;
  for (const [i, rel] of good) w.write(rel, BYTES[i]);
  await w.run();
  const baseline = JSON.stringify(sessionViews(w.ledger, { all: true }));
  const r = rng(99);
  for (let n = 0; n < 120; n++) {
    const which = Math.floor(r() * SOURCES.length);
    let bytes: Uint8Array = BYTES[which];
    for (let k = 0; k < 1 + Math.floor(r() * 3); k++) bytes = mutate(bytes, r);
    const id = `eeeeeeee-0000-4000-8000-${String(n).padStart(12, "0")}`;
    const rel = which < 3
      ? `.claude/projects/-fuzz/${id}.jsonl`
      : which < 5
      ? `.codex/sessions/2026/11/30/rollout-2026-11-30T00-00-00-${id}.jsonl`
      : `.gemini/tmp/fuzz/chats/session-2026-11-30T00-00-e${String(n).padStart(7, "0")}.jsonl`;
    w.write(rel, bytes);
    await w.run({ maxLineBytes: 65536 });
    const now = sessionViews(w.ledger, { all: true }).filter((s) =>
      JSON.parse(baseline).some((b: { asm_id: string }) => b.asm_id === s.asm_id)
    );
    assert.equal(JSON.stringify(now), baseline, `after mutated file ${n} (${rel})`);
  }
});
