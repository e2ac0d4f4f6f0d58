import assert from "node:assert/strict";
import { join } from "node:path";
import { CORPUS_AGENTS, sessionCounts, writeCorpus } from "./corpus.ts";
import { benchImport } from "./import.ts";

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) out.push(...filesUnder(path));
    else if (e.name.endsWith(".jsonl")) out.push(path);
  }
  return out;
}

Deno.test("the session mix splits a total into counts that sum to it", () => {
  assert.deepEqual(sessionCounts(5000, { claude: 60, codex: 30, gemini: 10 }), {
    claude: 3000,
    codex: 1500,
    gemini: 500,
  });
  assert.deepEqual(sessionCounts(30, { claude: 60, codex: 30, gemini: 10 }), {
    claude: 18,
    codex: 9,
    gemini: 3,
  });
  const odd = sessionCounts(7, { claude: 60, codex: 30, gemini: 10 });
  assert.equal(odd.claude + odd.codex + odd.gemini, 7);
});

Deno.test("the corpus writes each agent's sessions in its store, near the asked size, the same for the same seed", () => {
  const a = Deno.makeTempDirSync({ prefix: "asm-corpus-test-" });
  const b = Deno.makeTempDirSync({ prefix: "asm-corpus-test-" });
  try {
    const one = writeCorpus({ root: a, bytes: 3_000_000, sessions: 20, seed: 7 });
    const two = writeCorpus({ root: b, bytes: 3_000_000, sessions: 20, seed: 7 });
    assert.deepEqual(one.sessions, { claude: 12, codex: 6, gemini: 2 });
    assert.equal(two.totalBytes, one.totalBytes);
    assert.equal(filesUnder(join(a, "home", ".claude", "projects")).length, 12);
    assert.equal(filesUnder(join(a, "home", ".codex", "sessions")).length, 6);
    assert.equal(filesUnder(join(a, "home", ".gemini", "tmp")).length, 2);
    assert.ok(Math.abs(one.totalBytes - 3_000_000) < 600_000, `${one.totalBytes} bytes`);
    // deterministic: same names, same bytes
    const rel = (root: string) => filesUnder(root).map((p) => p.slice(root.length)).sort();
    assert.deepEqual(rel(a), rel(b));
    for (const path of rel(a).slice(0, 5)) {
      assert.deepEqual(Deno.readFileSync(join(a, path)), Deno.readFileSync(join(b, path)));
    }
    // fresh ids: no fixture session id survives in a Claude file's name or lines
    const claudeFile = filesUnder(join(a, "home", ".claude", "projects"))[0];
    const text = Deno.readTextFileSync(claudeFile);
    const id = claudeFile.split("/").pop()!.replace(".jsonl", "");
    assert.match(text, new RegExp(`"sessionId":"${id}"`));
    // each file was last written when its last line was, as an agent's is
    for (const path of filesUnder(join(a, "home")).slice(0, 5)) {
      const times = [
        ...Deno.readTextFileSync(path).matchAll(/"(?:timestamp|startTime|lastUpdated)":"([^"]+)"/g),
      ]
        .map((m) => Date.parse(m[1])).filter(Number.isFinite);
      const mtime = Deno.statSync(path).mtime!.getTime();
      assert.ok(
        Math.abs(mtime - Math.max(...times)) < 1000,
        `${path}: mtime ${mtime}, last line ${Math.max(...times)}`,
      );
    }
    assert.doesNotMatch(text, /9489399f-ac78-4316-81cd-2726c9579121|6f909761-eb71-48c5-bad6-f473a381c9c5/);
  } finally {
    Deno.removeSync(a, { recursive: true });
    Deno.removeSync(b, { recursive: true });
  }
});

// Timing targets are reported by the bench, never asserted here: a loaded CI machine must not fail a test.
Deno.test("the import bench on a tiny corpus imports exactly the sessions written and returns finite figures", async () => {
  const figures = await benchImport({ bytes: 2_000_000, sessions: 30 });
  assert.deepEqual(figures.sessions, { claude: 18, codex: 9, gemini: 3 });
  // asm's import found exactly the sessions the corpus wrote, per agent
  assert.deepEqual(figures.imported, figures.sessions);
  assert.equal(figures.files, 30);
  assert.equal(figures.runs, 3);
  assert.equal(figures.fts_ms, null);
  // thirty small files are read in the importing thread (workers are for many files); the newline search is
  // the vector one
  assert.equal(figures.read_workers, 0);
  assert.equal(figures.newline_search, "simd");
  const numbers = Object.entries(figures).filter(([k]) =>
    !["sessions", "imported", "fts_ms", "read_workers", "newline_search"].includes(k)
  );
  assert.deepEqual(numbers.map(([k]) => k).sort(), [
    "ccusage_mb_s",
    "ccusage_ms",
    "claude_mb",
    "corpus_mb",
    "corpus_ms",
    "files",
    "full_ms",
    "import_mb_s",
    "list_first_ms",
    "list_first_vs_ccusage",
    "list_io_ms",
    "list_io_vs_ccusage",
    "list_ms",
    "list_vs_ccusage",
    "listed",
    "notify_samples",
    "notify_to_row_ms",
    "notify_to_row_p90_ms",
    "peak_rss_mb",
    "raw_read_mb_s",
    "raw_read_ms",
    "reimport_ms",
    "reimport_rss_mb",
    "runs",
    "vs_ccusage",
    "vs_raw_read",
    "walk_ms",
  ]);
  for (const [key, value] of numbers) {
    assert.ok(typeof value === "number" && Number.isFinite(value) && value > 0, `${key} = ${value}`);
  }
  assert.ok(figures.claude_mb < figures.corpus_mb);
  // phase one listed every file, and wrote its rows before the whole import ended
  assert.equal(figures.listed, 30);
  assert.ok(figures.list_ms <= figures.full_ms, `list ${figures.list_ms} ms, full ${figures.full_ms} ms`);
  // every Claude transcript sampled (up to ten) had its appended turn counted through the watch
  assert.equal(figures.notify_samples, 10);
  for (const agent of CORPUS_AGENTS) assert.ok(figures.sessions[agent] > 0);
});
