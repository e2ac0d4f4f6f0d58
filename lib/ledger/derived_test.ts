import assert from "node:assert/strict";
import { join } from "node:path";
import { Ledger } from "./ledger.ts";
import {
  type DerivedSession,
  filesOfSession,
  foldStateOf,
  heatmapCells,
  knownFiles,
  type ListedSession,
  projectCounts,
  refreshCandidates,
  sessionViews,
  writeDerived,
  writeListed,
} from "./derived.ts";
import { asmIdOf } from "./identity.ts";
import { hookEvent } from "./_test_utils.ts";

function tempLedger(): { ledger: Ledger; dir: string } {
  const dir = Deno.makeTempDirSync({ prefix: "asm-derived-" });
  return { ledger: Ledger.open(join(dir, "ledger.sqlite")), dir };
}

function derived(sid: string, over: Partial<DerivedSession> = {}): DerivedSession {
  return {
    asm_id: asmIdOf("claude", sid),
    agent: "claude",
    agent_session_id: sid,
    parent_asm_id: null,
    cleared_from_asm_id: null,
    source: "interactive",
    thread_source: null,
    cwd: "/w/app",
    transcript_path: `/h/${sid}.jsonl`,
    transcript_copy: null,
    started_at: "2026-11-29T10:00:00.000Z",
    last_seen: "2026-11-29T11:00:00.000Z",
    turns: 3,
    first_message: "hello",
    name: null,
    title: "hello",
    summary: null,
    model: "m",
    context_tokens: 1234,
    context_window: null,
    agent_version: "1.0",
    closeout_state: "open",
    project: "app",
    primary_folder: "/w/app",
    harness: false,
    days: { "2026-11-29": 3 },
    folders: { "/w/app": 3 },
    skills: { "mock-skill": 1 },
    ...over,
  };
}

const NOW = "2026-11-30T00:00:00.000Z";

Deno.test("a session the import finds is stored ended, with its days, folders and skills", () => {
  const { ledger, dir } = tempLedger();
  try {
    const r = writeDerived(ledger, { sessions: [derived("a")], files: [], now: NOW });
    assert.deepEqual(r, { inserted: 1, updated: 0, dropped: [] });
    const [view] = sessionViews(ledger);
    assert.equal(view.status, "ended");
    assert.equal(view.turns, 3);
    assert.deepEqual(view.skills, ["mock-skill"]);
    assert.equal(view.closeout, "open");
    // a transcript does not say when its session ended; and a start hook drained later must be newer than "the end"
    assert.equal(ledger.query("SELECT ended_at FROM sessions")[0].ended_at, null);
    // a second write replaces the day, folder and skill rows, never adds to them
    writeDerived(ledger, {
      sessions: [derived("a", { days: { "2026-11-30": 1 }, skills: {} })],
      files: [],
      now: NOW,
    });
    assert.deepEqual(ledger.query("SELECT day, day_turns FROM session_days").map((r) => ({ ...r })), [{
      day: "2026-11-30",
      day_turns: 1,
    }]);
    assert.deepEqual(sessionViews(ledger)[0].skills, []);
  } finally {
    ledger.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a row a hook made keeps its status, end and name; a name the import gave follows the transcript", () => {
  const { ledger, dir } = tempLedger();
  try {
    const sid = "11111111-2222-4333-8444-555555555555";
    ledger.applyEvent(
      hookEvent({ agent_session_id: sid, session_name: "from the launcher", ts: "2026-11-29T09:00:00.000Z" }),
    );
    writeDerived(ledger, { sessions: [derived(sid, { name: "renamed in claude" })], files: [], now: NOW });
    const row = { ...ledger.query("SELECT status, name, started_at, last_seen, turns FROM sessions")[0] };
    assert.deepEqual(row, {
      status: "live",
      name: "from the launcher",
      started_at: "2026-11-29T09:00:00.000Z",
      last_seen: "2026-11-29T11:00:00.000Z",
      turns: 3,
    });
    // a name only the import ever wrote is the import's to change
    writeDerived(ledger, { sessions: [derived("b", { name: "first name" })], files: [], now: NOW });
    writeDerived(ledger, { sessions: [derived("b", { name: "second name" })], files: [], now: NOW });
    assert.equal(
      ledger.query("SELECT name FROM sessions WHERE agent_session_id = 'b'")[0].name,
      "second name",
    );
  } finally {
    ledger.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("import_state remembers each file's size, mtime, offset and fold state, by path and by session", () => {
  const { ledger, dir } = tempLedger();
  try {
    const file = {
      path: "/h/a.jsonl",
      agent: "claude",
      size: 10,
      mtime: "2026-11-29T10:00:00.000Z",
      ino: 7,
      asm_id: asmIdOf("claude", "a"),
      read_offset: 8,
      tail: "abc",
      fold: '{"v":1}',
      problem: null,
    };
    writeDerived(ledger, { sessions: [derived("a")], files: [file], now: NOW });
    const known = knownFiles(ledger).get("/h/a.jsonl")!;
    assert.deepEqual(known, {
      path: "/h/a.jsonl",
      agent: "claude",
      size: 10,
      mtime: file.mtime,
      ino: 7,
      asm_id: file.asm_id,
      read_offset: 8,
      tail: "abc",
      listed: false,
    });
    assert.equal(foldStateOf(ledger, "/h/a.jsonl"), '{"v":1}');
    assert.deepEqual(filesOfSession(ledger, file.asm_id), [{ path: "/h/a.jsonl", fold: '{"v":1}' }]);
    assert.deepEqual(refreshCandidates(ledger, "2026-11-29T09:00:00.000Z"), [{
      agent: "claude",
      path: "/h/a.jsonl",
    }]);
    assert.deepEqual(refreshCandidates(ledger, "2026-12-01T00:00:00.000Z"), []);
  } finally {
    ledger.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the list, the project tiles and the heat map count the same visible sessions; ?all adds the hidden", () => {
  const { ledger, dir } = tempLedger();
  try {
    writeDerived(ledger, {
      sessions: [
        derived("a"),
        derived("b", { primary_folder: "/w/lib", project: "lib", folders: { "/w/lib": 2, "/w/app": 1 } }),
        derived("h", { source: "headless", days: { "2026-11-29": 9 } }),
        derived("n", { turns: 1, days: { "2026-11-28": 1 }, primary_folder: null, project: null, cwd: null }),
      ],
      files: [],
      now: NOW,
    });
    assert.equal(sessionViews(ledger).length, 2);
    assert.deepEqual(
      sessionViews(ledger, { all: true }).map((s) => s.hidden_reason).sort(),
      [
        "headless",
        "nothing happened",
        null,
        null,
      ].sort(),
    );
    const tiles = projectCounts(ledger);
    assert.deepEqual(tiles, [
      { folder: "/w/app", primary: 1, touched: 2 },
      { folder: "/w/lib", primary: 1, touched: 1 },
    ]);
    assert.equal(tiles.reduce((n, t) => n + t.primary, 0), sessionViews(ledger).length);
    const all = projectCounts(ledger, { all: true });
    assert.equal(all.reduce((n, t) => n + t.primary, 0), 4);
    assert.ok(
      all.some((t) => t.folder === null),
      "a session with no folder at all still counts, in its own tile",
    );
    assert.deepEqual(heatmapCells(ledger), [{ agent: "claude", day: "2026-11-29", turns: 6 }]);
    assert.equal(heatmapCells(ledger, { all: true }).reduce((n, c) => n + c.turns, 0), 16);
  } finally {
    ledger.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a row the import made before the session's start hook was drained comes live when the hook arrives", () => {
  const { ledger, dir } = tempLedger();
  try {
    const sid = "11111111-2222-4333-8444-555555555555";
    // the transcript's first lines were imported in the seconds before the drain applied SessionStart
    writeDerived(ledger, {
      sessions: [
        derived(sid, { started_at: "2026-11-29T10:00:01.000Z", last_seen: "2026-11-29T10:00:05.000Z" }),
      ],
      files: [],
      now: NOW,
    });
    ledger.applyEvent(hookEvent({ agent_session_id: sid, ts: "2026-11-29T10:00:00.000Z" }));
    const row = ledger.session(asmIdOf("claude", sid))!;
    assert.equal(row.status, "live");
    assert.equal(ledger.openRuns().length, 1);
  } finally {
    ledger.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("phase one's rows never write over a derived row, and the full pass clears the mark on rows and files", () => {
  const { ledger, dir } = tempLedger();
  try {
    const listedRow = (id: string): ListedSession => ({
      asm_id: asmIdOf("claude", id),
      agent: "claude",
      agent_session_id: id,
      parent_asm_id: null,
      source: "interactive",
      thread_source: null,
      cwd: "/listed",
      transcript_path: `/h/${id}.jsonl`,
      started_at: "2026-11-29T10:00:00.000Z",
      last_seen: "2026-11-29T11:00:00.000Z",
      first_message: "from the head",
      name: null,
      title: "from the head",
      summary: null,
      model: "m",
      context_tokens: 5,
      context_window: null,
      agent_version: null,
      harness: false,
    });
    const listedFile = (id: string) => ({
      path: `/h/${id}.jsonl`,
      agent: "claude",
      size: 10,
      mtime: "2026-11-29T10:00:00.000Z",
      ino: 1,
      asm_id: asmIdOf("claude", id),
    });
    writeDerived(ledger, { sessions: [derived("a")], files: [], now: NOW });
    const before = ledger.query("SELECT * FROM sessions WHERE asm_id = ?", asmIdOf("claude", "a"))[0];
    const written = writeListed(ledger, {
      sessions: [listedRow("a"), listedRow("b")],
      files: [listedFile("a"), listedFile("b")],
      now: NOW,
    });
    assert.deepEqual(written, { rows: 1 }, "only the row not derived yet is written");
    assert.deepEqual(
      ledger.query("SELECT * FROM sessions WHERE asm_id = ?", asmIdOf("claude", "a"))[0],
      before,
      "the derived row is as it was",
    );
    const b = () =>
      ledger.query("SELECT derive_state, turns FROM sessions WHERE asm_id = ?", asmIdOf("claude", "b"))[0];
    assert.deepEqual({ ...b() }, { derive_state: "listed", turns: null });
    assert.equal(knownFiles(ledger).get("/h/b.jsonl")!.listed, true);
    writeDerived(ledger, {
      sessions: [derived("b")],
      files: [{ ...listedFile("b"), read_offset: 10, tail: null, fold: null, problem: null }],
      now: NOW,
    });
    assert.equal(b().derive_state, null);
    assert.equal(typeof b().turns, "number");
    // what only phase one said gives way to the whole file (its ends may have been read before the file changed)
    assert.equal(
      ledger.query("SELECT cwd FROM sessions WHERE asm_id = ?", asmIdOf("claude", "b"))[0].cwd,
      "/w/app",
    );
    assert.equal(knownFiles(ledger).get("/h/b.jsonl")!.listed, false);
  } finally {
    ledger.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
