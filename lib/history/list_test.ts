import assert from "node:assert/strict";
import { asmIdOf, type SessionView, sessionViews } from "../ledger/mod.ts";
import { denoIo } from "./io.ts";
import {
  CLAUDE_BEFORE_CLEAR,
  claudePromptLine,
  CODEX,
  type ImportWorld,
  importWorld,
  placeFixtures,
} from "./_test_utils.ts";
import type { TranscriptIo } from "../derive/mod.ts";
import { LIST_FIRST_FILES } from "./import.ts";
import { progressLine } from "./progress.ts";

const AT = Date.parse("2026-12-02T12:00:00.000Z");

/** The files on record, by what read them: phase one only (listed) or the full pass. */
function filesOnRecord(w: { ledger: { query(sql: string): Record<string, unknown>[] } }) {
  const rows = w.ledger.query("SELECT path, listed FROM import_state ORDER BY path");
  return {
    listed: rows.filter((r) => Number(r.listed) === 1).map((r) => String(r.path)),
    derived: rows.filter((r) => Number(r.listed) === 0).map((r) => String(r.path)),
  };
}

/** Everything the import writes, without what differs between two worlds (folders, inodes, clocks). */
function untimed(x: ImportWorld): string[][] {
  return ["sessions", "session_days", "session_folders", "session_skills", "import_state"].map((table) =>
    x.ledger.query(`SELECT * FROM ${table} ORDER BY 1, 2`).map((row) => {
      const { derived_at: _d, imported_at: _i, ino: _n, mtime: _m, ...rest } = row;
      return JSON.stringify(rest).replaceAll(x.root, "<root>");
    })
  );
}

function byId(rows: SessionView[]): Map<string, SessionView> {
  return new Map(rows.map((r) => [r.asm_id, r]));
}

const LIST_FIELDS = [
  "agent_session_id",
  "cwd",
  "started_at",
  "source",
  "parent_asm_id",
  "harness",
];

Deno.test("phase one lists every session from its two ends: the list's fields as the full pass finds them, the derived cells deriving", async () => {
  await using listed = importWorld();
  await using whole = importWorld();
  placeFixtures(listed);
  placeFixtures(whole);
  // phase one, then stopped before the full pass wrote anything
  const first = await listed.run({
    list: true,
    now: () => AT,
    shouldStop: () => filesOnRecord(listed).listed.length > 0,
  });
  assert.equal(first.files_listed, 15);
  assert.equal(first.stopped, true);
  assert.equal(filesOnRecord(listed).derived.length, 0, "the full pass wrote nothing yet");
  await whole.run({ now: () => AT });

  const during = byId(sessionViews(listed.ledger, { all: true }));
  const after = byId(sessionViews(whole.ledger, { all: true }));
  assert.deepEqual([...during.keys()].sort(), [...after.keys()].sort(), "every session is listed, none more");
  const column = (w: typeof listed, id: string, col: string) =>
    w.ledger.query(`SELECT ${col} AS v FROM sessions WHERE asm_id = ?`, id)[0]?.v;
  for (const [id, row] of during) {
    for (const col of LIST_FIELDS) {
      assert.deepEqual(
        column(listed, id, col),
        column(whole, id, col),
        `${id} ${col} ${column(listed, id, "transcript_path")}`,
      );
    }
    // the last activity the tail shows: the full pass's, or (the newest counted line further back than the tail's
    // bound) an earlier one, never a later one
    const seen = String(column(listed, id, "last_seen"));
    assert.ok(
      seen <= String(column(whole, id, "last_seen")) && seen >= String(column(whole, id, "started_at")),
      id,
    );
    // a derived cell is never a number before its pass: it is deriving
    assert.equal(row.deriving, true, id);
    assert.equal(row.turns, null, `${id} turns`);
    assert.equal(row.project, null, `${id} project`);
    assert.equal(row.closeout, null, `${id} closeout`);
    const derived = after.get(id)!;
    // hidden on evidence from the head at once; hidden for "nothing happened" only with the words first
    if (derived.hidden_reason === "nothing happened") {
      assert.equal(row.hidden, false, `${id} is not hidden before its turns are read`);
      assert.equal(row.still_being_read, true, `${id} says it is still being read`);
    } else {
      // (a row still being read may well stay shown once read whole: it said so while it was being read)
      assert.equal(row.hidden_reason, derived.hidden_reason, `${id} hidden reason`);
    }
  }
  // the facts the head gives: the Codex TUI thread's title (its agent's index) and the /rename'd Claude session
  assert.equal(during.get(asmIdOf("codex", CODEX.tui))!.title, "hello from tmux");
  assert.ok(during.get(asmIdOf("claude", CLAUDE_BEFORE_CLEAR))!.title !== null);
  assert.deepEqual(listed.logged, [], "good files log nothing");
});

function countingIo(opened: string[]): TranscriptIo {
  return { ...denoIo, open: (path, options) => (opened.push(path), denoIo.open(path, options)) };
}

Deno.test("phase two killed mid-way resumes where it stopped: every session derived once, none twice, as if never stopped", async () => {
  await using w = importWorld();
  await using straight = importWorld();
  placeFixtures(w);
  placeFixtures(straight);
  // the server closes after the full pass wrote its second batch of three sessions
  const first = await w.run({
    list: true,
    batchSessions: 3,
    now: () => AT,
    shouldStop: () => filesOnRecord(w).derived.length >= 6,
  });
  assert.equal(first.stopped, true);
  const before = filesOnRecord(w);
  assert.ok(before.derived.length >= 6 && before.listed.length > 0, JSON.stringify(before));
  const derivedAt = new Map(
    w.ledger.query("SELECT asm_id, derived_at FROM sessions WHERE derived_at IS NOT NULL")
      .map((r) => [String(r.asm_id), String(r.derived_at)]),
  );
  // derived newest first: no file derived is older than a file still waiting
  const mtime = (p: string) => Deno.statSync(p).mtime!.getTime();
  assert.ok(
    Math.min(...before.derived.map(mtime)) >= Math.max(...before.listed.map(mtime)),
    "the newest files were derived first",
  );

  // the next start: no file is listed again, and the full pass opens exactly the files not derived yet
  const opened: string[] = [];
  const second = await w.run({
    list: true,
    batchSessions: 3,
    now: () => AT + 60_000,
    io: countingIo(opened),
  });
  assert.equal(second.files_listed, 0, "nothing is listed twice");
  assert.deepEqual(opened.sort(), before.listed, "only the files not derived yet are read");
  assert.equal(second.stopped, false);
  assert.deepEqual(filesOnRecord(w).listed, [], "every file is derived");
  for (const [id, at] of derivedAt) {
    const now = w.ledger.query("SELECT derived_at FROM sessions WHERE asm_id = ?", id)[0].derived_at;
    assert.equal(now, at, `${id} was derived once, not again`);
  }
  assert.equal(w.ledger.query("SELECT COUNT(*) AS n FROM sessions WHERE derive_state IS NOT NULL")[0].n, 0);

  // the same ledger as an import that listed and derived without stopping (times aside)
  await straight.run({ list: true, now: () => AT });
  assert.deepEqual(untimed(w), untimed(straight));
});

Deno.test("phase one in the read workers, with phase two's reads queued behind it, ends in the ledger a single thread writes", async () => {
  await using workers = importWorld();
  await using here = importWorld();
  placeFixtures(workers);
  placeFixtures(here);
  // bundles of two: the newest is read in this thread, the other seven in the workers
  const report = await workers.run({ list: true, listBundle: 2, workers: 2, now: () => AT });
  assert.equal(report.read_workers, 2);
  assert.equal(report.files_listed, 15);
  assert.ok(report.list_ms !== null && report.list_ms <= report.ms);
  await here.run({ list: true, listBundle: 2, workers: 0, now: () => AT });
  assert.deepEqual(untimed(workers), untimed(here));
  assert.deepEqual(workers.logged, []);
});

Deno.test("a first run lists first from LIST_FIRST_FILES new files on, saying how many it listed; fewer are read whole at once", async () => {
  await using w = importWorld();
  const sid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
  const line = (i: number) =>
    JSON.stringify({
      type: "user",
      message: { role: "user", content: `prompt ${i}` },
      promptSource: "typed",
      timestamp: "2026-11-30T10:00:00.000Z",
      cwd: "/work/p",
      sessionId: sid(i),
      entrypoint: "cli",
    }) + "\n";
  for (let i = 0; i < LIST_FIRST_FILES - 1; i++) w.write(`.claude/projects/-work-p/${sid(i)}.jsonl`, line(i));
  const few = await w.run({ now: () => AT });
  assert.equal(few.list_ms, null, "one file fewer than the bound: no phase one");
  assert.equal(few.files_read, LIST_FIRST_FILES - 1);

  await using many = importWorld();
  for (let i = 0; i < LIST_FIRST_FILES; i++) many.write(`.claude/projects/-work-p/${sid(i)}.jsonl`, line(i));
  const phases: string[] = [];
  const lines: string[] = [];
  const report = await many.run({
    now: () => AT,
    onProgress: (p) => {
      if (phases.at(-1) !== p.phase) phases.push(p.phase);
      if (p.phase === "list") lines.push(progressLine(p));
    },
  });
  assert.equal(report.files_listed, LIST_FIRST_FILES);
  assert.notEqual(report.list_ms, null);
  assert.deepEqual(phases.filter((p) => p !== "walk"), ["read", "list", "read", "done"]);
  assert.equal(
    lines.at(-1),
    `import: listing ${LIST_FIRST_FILES}/${LIST_FIRST_FILES} transcripts from their two ends`,
  );
  assert.equal(
    many.ledger.query("SELECT COUNT(*) AS n FROM sessions WHERE derive_state IS NULL")[0].n,
    LIST_FIRST_FILES,
  );
});

Deno.test("a list write that fails (writes held, as for a full disk) rejects the import once, never as an unhandled rejection", async () => {
  await using w = importWorld();
  placeFixtures(w);
  w.ledger.holdWrites("the disk is full");
  // with read workers the list's reads come back while phase two still reads: its failed write must be handled
  await assert.rejects(() => w.run({ list: true, workers: 2, now: () => AT }), /the disk is full/);
  // let any stray rejection surface before the test ends (Deno fails a test on one)
  await new Promise((r) => setTimeout(r, 50));
  w.ledger.holdWrites(null);
  assert.equal(w.ledger.query("SELECT COUNT(*) AS n FROM sessions")[0].n, 0);
});

Deno.test("phase one reads nothing a linked folder leads to outside the agent's store, in this thread or in workers", async () => {
  for (const workers of [0, 2]) {
    await using w = importWorld();
    placeFixtures(w);
    const parent = "11111111-aaaa-4bbb-8ccc-000000000001";
    const outside = `${w.root}/outside`;
    Deno.mkdirSync(outside);
    Deno.writeTextFileSync(
      `${outside}/agent-secret.jsonl`,
      claudePromptLine({
        sessionId: parent,
        text: "SECRET OUTSIDE THE STORE",
        ts: "2026-11-30T10:00:00.000Z",
      }) +
        "\n",
    );
    // a session's sub-agent folder that is a link: the walk reads it through the link (readDir follows a link it
    // is given), so only the open's real-path check keeps the file out
    Deno.mkdirSync(`${w.home}/.claude/projects/-tmp-linked/${parent}`, { recursive: true });
    Deno.symlinkSync(outside, `${w.home}/.claude/projects/-tmp-linked/${parent}/subagents`);
    // bundles of one: with workers, every file but the newest is listed in one
    const report = await w.run({ list: true, listBundle: 1, workers, now: () => AT });
    assert.equal(report.files_seen, 16, "the walk found it");
    assert.equal(report.files_listed, 15, `workers ${workers}`);
    const secretId = asmIdOf("claude", `${parent}/agent-secret`);
    assert.equal(w.ledger.query("SELECT COUNT(*) AS n FROM sessions WHERE asm_id = ?", secretId)[0].n, 0);
    assert.equal(
      w.ledger.query(
        "SELECT COUNT(*) AS n FROM sessions WHERE title LIKE '%SECRET%' OR first_message LIKE '%SECRET%'",
      )[0]
        .n,
      0,
    );
    // one line for it in the whole import, though both phases met it
    const lines = w.logged.filter((l) => String(l.path).endsWith("agent-secret.jsonl"));
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.match(String(lines[0].error), /leads outside/);
  }
});

Deno.test("a listed file deleted or emptied before phase two leaves no row deriving forever", async () => {
  await using w = importWorld();
  placeFixtures(w);
  await w.run({ list: true, now: () => AT, shouldStop: () => filesOnRecord(w).listed.length > 0 });
  const deleted = `${w.home}/.codex/sessions/2026/11/29/rollout-2026-11-29T22-13-44-${CODEX.tui}.jsonl`;
  const emptied = `${w.home}/.claude/projects/-tmp-cc-proj-5/${CLAUDE_BEFORE_CLEAR}.jsonl`;
  Deno.removeSync(deleted);
  Deno.writeTextFileSync(emptied, "");
  await w.run({ now: () => AT });
  assert.deepEqual(filesOnRecord(w).listed, [], "no file is left listed");
  assert.equal(w.ledger.query("SELECT COUNT(*) AS n FROM import_state WHERE path = ?", deleted)[0].n, 0);
  const rows = byId(sessionViews(w.ledger, { all: true }));
  for (const id of [asmIdOf("codex", CODEX.tui), asmIdOf("claude", CLAUDE_BEFORE_CLEAR)]) {
    assert.equal(rows.get(id)?.deriving, false, `${id} is not deriving`);
    assert.equal(rows.get(id)?.still_being_read, false, `${id} is not still being read`);
  }
  // nothing more to settle: the next import writes nothing
  const before = w.ledger.version();
  await w.run({ now: () => AT });
  assert.equal(w.ledger.version(), before);
});

Deno.test("phase one writes the newest files first: its first bundle's rows are the newest transcripts', in this thread or in workers", async () => {
  for (const workers of [0, 2]) {
    await using w = importWorld();
    placeFixtures(w);
    // every file written at its own moment, in an order unlike its path's
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of Deno.readDirSync(dir)) {
        if (e.isDirectory) walk(`${dir}/${e.name}`);
        else if (e.isFile) files.push(`${dir}/${e.name}`);
      }
    };
    walk(w.home);
    files.sort();
    files.forEach((path, i) => {
      const at = new Date(AT - ((i * 7) % files.length) * 3_600_000);
      Deno.utimeSync(path, at, at);
    });
    const BUNDLE = 4;
    const first = await w.run({
      list: true,
      listBundle: BUNDLE,
      workers,
      now: () => AT,
      shouldStop: () => filesOnRecord(w).listed.length > 0,
    });
    assert.equal(first.stopped, true);
    assert.notEqual(first.list_first_ms, null);
    const written = filesOnRecord(w).listed;
    // the rest, to know every transcript the walk finds
    await w.run({ list: true, listBundle: BUNDLE, workers, now: () => AT });
    const all = w.ledger.query("SELECT path FROM import_state").map((r) => String(r.path));
    const mtime = (p: string) => Deno.statSync(p).mtime!.getTime();
    const newest = [...all].sort((a, b) => mtime(b) - mtime(a)).slice(0, BUNDLE).sort();
    console.log(
      `workers ${workers}: first bundle written ${written.length} files; the ${BUNDLE} newest of ${all.length}`,
    );
    assert.deepEqual(written, newest);
  }
});
