import assert from "node:assert/strict";
import { copyBytes } from "./copies.ts";
import type { ReadDone, ReadJob } from "./read_file.ts";
import { completions, startReadPool } from "./read_pool.ts";
import { join } from "node:path";
import { denoIo } from "./io.ts";
import { CODEX, faultyIo, type ImportWorld, importWorld, placeFixtures } from "./_test_utils.ts";

const NOW = Date.parse("2026-11-30T00:00:00.000Z");

/**
 * Every row the import writes, with the world's own folder named `<root>`, less what the file system says of
 * each world's own copies of the fixtures (their inode and mtime).
 */
function written(w: ImportWorld): string[] {
  const tables = ["sessions", "session_days", "session_folders", "session_skills", "import_state"];
  return tables.flatMap((t) =>
    w.ledger.query(`SELECT * FROM ${t} ORDER BY 1, 2`).map((row) => {
      const { ino: _ino, mtime: _mtime, ...rest } = row;
      return `${t} ${JSON.stringify(rest).replaceAll(w.root, "<root>")}`;
    })
  );
}

Deno.test("reading in workers writes exactly what reading in the importing thread writes", async () => {
  await using here = importWorld();
  await using pooled = importWorld();
  placeFixtures(here);
  placeFixtures(pooled);
  const a = await here.run({ workers: 0, now: () => NOW });
  const b = await pooled.run({ workers: 2, now: () => NOW, batchSessions: 4 });
  assert.equal(b.files_read, a.files_read);
  assert.equal(b.sessions_inserted, a.sessions_inserted);
  assert.equal(a.files_read, 15);
  assert.equal(a.read_workers, 0);
  assert.equal(b.read_workers, 2);
  assert.deepEqual(written(pooled), written(here));
  // the copies the workers wrote are where the rows say
  const copies = pooled.ledger.query(
    "SELECT transcript_copy AS c FROM sessions WHERE transcript_copy IS NOT NULL",
  );
  assert.equal(copies.length, 4);
  for (const { c } of copies) assert.ok((copyBytes(String(c))?.length ?? 0) > 0, `a copy at ${c}`);
  // and a second import through workers reads nothing
  const again = await pooled.run({ workers: 2, now: () => NOW });
  assert.equal(again.files_read, 0);
  assert.equal(again.files_unchanged, 15);
});

Deno.test("a file a worker cannot read costs one problem line; the others in its bundle are read", async () => {
  await using w = importWorld();
  placeFixtures(w);
  const agent = w.agents.find((a) => a.name === "codex")!;
  const file = (path: string) => ({
    size: (() => {
      try {
        return Deno.statSync(path).size;
      } catch {
        return 10;
      }
    })(),
    agent: "codex",
    path,
    sessionHint: null,
    role: "main" as const,
    parentSessionId: null,
    cwd: null,
    rel: "x.jsonl",
    mtimeMs: 0,
    ino: null,
  });
  const job = (path: string, adapter = agent.adapter): ReadJob => ({
    read: { file: file(path), mode: "full", from: 0, known: null, unlisted: true },
    agent: { ...agent, adapter },
    savedFold: null,
    copyTo: null,
  });
  const good = w.write(
    ".codex/sessions/2026/11/30/rollout-x.jsonl",
    '{"type":"session_meta","payload":{}}\n',
  );
  const pool = startReadPool(1);
  try {
    const [missing, unknown, ok] = await pool.read([
      job(`${w.home}/nowhere.jsonl`),
      job(good, "no-such-adapter"),
      job(good),
    ]);
    assert.equal(missing.data, null);
    assert.equal(missing.problems.length, 1);
    assert.equal(missing.problems[0].what, "transcript unreadable");
    assert.equal(unknown.data, null);
    assert.match(String(unknown.problems[0].error), /no transcript reader named "no-such-adapter"/);
    assert.ok(ok.data !== null);
    assert.equal(ok.data.outcome.lines, 1);
    assert.deepEqual(JSON.parse(ok.data.fold), ok.data.state);
  } finally {
    pool.close();
  }
});

Deno.test("closing the pool answers the reads still out with problem lines instead of leaving them waiting", async () => {
  const pool = startReadPool(1);
  const job = {
    read: {
      file: {
        agent: "claude",
        path: "/nonexistent/a.jsonl",
        sessionHint: null,
        role: "main" as const,
        parentSessionId: null,
        cwd: null,
        rel: "a.jsonl",
        size: 1,
        mtimeMs: 0,
        ino: null,
      },
      mode: "full" as const,
      from: 0,
      known: null,
    },
    agent: { name: "claude", adapter: "claude" },
    savedFold: null,
    copyTo: null,
  } as unknown as ReadJob;
  const pending = pool.read([job]);
  pool.close();
  const [done] = await pending;
  assert.equal(done.data, null);
  assert.equal(done.problems[0].error, "the import stopped");
});

Deno.test("completions: results come as their bundles finish, and a consumer that stops starts nothing more", async () => {
  const started: number[] = [];
  const jobs = Array.from(
    { length: 10 },
    (_, i) => ({ i, read: { file: { size: 1 }, from: 0 } }) as unknown as ReadJob,
  );
  const run = async (bundle: ReadJob[]): Promise<ReadDone[]> => {
    const i = (bundle[0] as unknown as { i: number }).i;
    started.push(i);
    // the first bundle is the slowest: its result comes after the second's
    await new Promise((r) => setTimeout(r, i === 0 ? 30 : 1));
    return bundle.map(() => ({ data: null, problems: [{ what: "marker", i }] }));
  };
  const seen: number[] = [];
  const limits = { running: 2, waiting: 1, bytes: Infinity };
  for await (const { done } of completions(jobs.map((j) => [j]), run, limits)) {
    seen.push(Number(done.problems[0].i));
    if (seen.length === 3) break;
  }
  assert.deepEqual(seen.slice(0, 2), [1, 2]);
  // two running and one waiting at most: the three taken, two running, one waiting
  assert.ok(started.length <= 6, `started ${started.join(",")}`);
  const total = started.length;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(started.length, total);
});

/** Jobs of `sizes` bytes each, one per bundle, and a run that records what it started. */
function sizedJobs(sizes: number[]) {
  const started: number[] = [];
  const bundles = sizes.map((size, i) => [{ i, read: { file: { size }, from: 0 } } as unknown as ReadJob]);
  const run = async (bundle: ReadJob[]): Promise<ReadDone[]> => {
    started.push((bundle[0] as unknown as { i: number }).i);
    await new Promise((r) => setTimeout(r, 1));
    return bundle.map(() => ({ data: null, problems: [] }));
  };
  return { bundles, run, started };
}

Deno.test("completions: readers go on while the consumer is busy, up to the bundles that may wait", async () => {
  const { bundles, run, started } = sizedJobs(Array(20).fill(10));
  const results = completions(bundles, run, { running: 1, waiting: 4, bytes: Infinity });
  await results.next();
  // the consumer holds its first result and does not ask for more: the reader keeps reading meanwhile
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(started.length, 5, "the one taken and four waiting");
  let n = 1;
  for await (const _ of results) n++;
  assert.equal(n, 20);
});

Deno.test("completions: the bytes out at once stay within the bound, and a bundle larger than it still runs", async () => {
  const { bundles, run, started } = sizedJobs([60, 60, 60, 500, 10, 10]);
  const results = completions(bundles, run, { running: 8, waiting: 8, bytes: 100 });
  await results.next();
  await new Promise((r) => setTimeout(r, 50));
  // 60 + 60 reached the bound: nothing else starts while the consumer holds the first result
  assert.deepEqual(started, [0, 1]);
  let n = 1;
  for await (const _ of results) n++;
  assert.equal(n, 6, "the 500-byte bundle ran alone");
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
});

Deno.test("an io handed in is used even when workers are asked for: the reads stay in the importing thread", async () => {
  await using w = importWorld();
  placeFixtures(w);
  const unreadable = join(
    w.home,
    ".codex/sessions/2026/11/29",
    `rollout-2026-11-29T22-12-08-${CODEX.exec}.jsonl`,
  );
  const report = await w.run({ workers: 2, io: faultyIo(denoIo, { unreadable: new Set([unreadable]) }) });
  assert.equal(report.read_workers, 0);
  assert.equal(report.files_failed, 1, "the fault of the io handed in was met");
  assert.equal(report.files_read, 14);
});
