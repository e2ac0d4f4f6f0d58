import assert from "node:assert/strict";
import type { DrainHealth } from "../inbox/mod.ts";
import type { ImportStatus } from "../history/mod.ts";
import { type HealthFacts, healthModel, healthText } from "./health.ts";
import type { TaskStatus } from "./tasks.ts";

const NOW = Date.parse("2026-03-01T12:00:00.000Z");
const at = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const GB = 1024 ** 3;

function task(name: string, everyMs: number, extra: Partial<TaskStatus> = {}): TaskStatus {
  return {
    name,
    every_ms: everyMs,
    running: false,
    runs: 10,
    errors: 0,
    last_started_at: at(1000),
    last_finished_at: at(900),
    last_ms: 100,
    last_error: null,
    last_ok_at: at(900),
    ...extra,
  };
}

function drainHealth(extra: Partial<DrainHealth> = {}): DrainHealth {
  return {
    last_pass_at: at(500),
    last_good_pass_at: at(500),
    backlog: 0,
    rejected_total: 0,
    remembered: 0,
    last_error: null,
    ok: true,
    ...extra,
  };
}

const IDLE_IMPORT: ImportStatus = {
  running: false,
  kind: null,
  progress: null,
  last: null,
  last_refresh: null,
  last_error: null,
  runs: 1,
};

/** A server where everything is well; each row changes one thing. */
function well(): HealthFacts {
  return {
    now: NOW,
    drain: { health: drainHealth(), task: task("drain", 2000) },
    poll: task("poll", 5000),
    imports: { status: IDLE_IMPORT, scheduled: true },
    ledger: {
      path: "/home/u/.asm/ledger.sqlite",
      opened: { dev: 1, ino: 42 },
      current: { dev: 1, ino: 42 },
      fileWritable: true,
      folderWritable: true,
      freeBytes: 20 * GB,
    },
    board: { location: "/home/u/.asm/board.md", problem: null },
  };
}

interface Row {
  situation: string;
  change(f: HealthFacts): void;
  /** the one problem expected (a pattern of the whole line, part name included); null: ok */
  problem: RegExp | null;
}

const ROWS: Row[] = [
  { situation: "every layer reports well", change: () => {}, problem: null },
  {
    situation: "the sweep cannot use the board (a duplicated card id, an editor saving all the time)",
    change: (f) => {
      f.board = {
        location: "/home/u/.asm/board.md",
        problem: "the board repeats the card id c-1 (lines 3 and 9)",
      };
    },
    problem: /^Board: the board repeats the card id c-1/,
  },
  { situation: "a server with no board", change: (f) => delete f.board, problem: null },
  {
    situation: "the drain cannot list the inbox, every pass",
    change: (f) => {
      f.drain.health = drainHealth({
        ok: false,
        last_error: "the drain cannot list /home/u/.asm/inbox: Not a directory (os error 20)",
        last_good_pass_at: at(60_000),
      });
    },
    problem: /^Hook events: the drain cannot list \/home\/u\/\.asm\/inbox: Not a directory/,
  },
  {
    situation:
      "the drain's backlog does not shrink while files keep failing (its own judgement, no sentence)",
    change: (f) => {
      f.drain.health = drainHealth({ ok: false, backlog: 19 });
    },
    problem: /^Hook events: the drain is not keeping up: 19 event file\(s\) wait in the inbox$/,
  },
  {
    situation: "the drain's health says ok, but no pass has ended for 5 minutes (its timer stopped)",
    change: (f) => {
      f.drain.health = drainHealth({ last_pass_at: at(300_000), last_good_pass_at: at(300_000), backlog: 7 });
    },
    problem: /^Hook events: the drain has not finished a pass in 5 min; 7 event file\(s\) wait in the inbox$/,
  },
  {
    situation: "a drain pass 20 s ago is not stale (30 s at least, or 10 intervals)",
    change: (f) => {
      f.drain.health = drainHealth({ last_pass_at: at(20_000) });
    },
    problem: null,
  },
  {
    situation: "without the drain's own health, its task's failure is the sentence",
    change: (f) => {
      f.drain.health = null;
      f.drain.task = task("drain", 2000, { last_error: "disk I/O error" });
    },
    problem: /^Hook events: the drain's last pass failed: disk I\/O error$/,
  },
  {
    situation: "the liveness poll fails",
    change: (f) => {
      f.poll = task("poll", 5000, { last_error: "cannot read /proc" });
    },
    problem: /^Liveness: the liveness poll failed: cannot read \/proc$/,
  },
  {
    situation: "the liveness poll has not ticked for 3 minutes",
    change: (f) => {
      f.poll = task("poll", 5000, { last_started_at: at(180_000), last_finished_at: at(180_000) });
    },
    problem: /^Liveness: the liveness poll has not finished a tick in 3 min/,
  },
  {
    situation: "a server that runs no poll (a test's) is not unwell for it",
    change: (f) => {
      f.poll = null;
    },
    problem: null,
  },
  {
    situation: "the history import failed",
    change: (f) => {
      f.imports.status = { ...IDLE_IMPORT, last_error: "database is locked" };
    },
    problem: /^History import: the history import failed: database is locked$/,
  },
  {
    situation: "the ledger file was deleted while open",
    change: (f) => {
      f.ledger.current = null;
    },
    problem: /^Ledger: the ledger file \/home\/u\/\.asm\/ledger\.sqlite was deleted .*run asm rebuild$/,
  },
  {
    situation: "another file is at the ledger's path",
    change: (f) => {
      f.ledger.current = { dev: 1, ino: 43 };
    },
    problem: /^Ledger: the ledger file .* was replaced by another file .*restart asm to use the new file/,
  },
  {
    situation: "the ledger file is read-only",
    change: (f) => {
      f.ledger.fileWritable = false;
    },
    problem: /^Ledger: the ledger file .* is read-only; asm holds its writes .* no restart needed$/,
  },
  {
    situation: "the ledger's folder is not writable",
    change: (f) => {
      f.ledger.folderWritable = false;
    },
    problem: /^Ledger: the ledger's folder \/home\/u\/\.asm is not writable/,
  },
  {
    situation: "the ledger's disk is nearly full",
    change: (f) => {
      f.ledger.freeBytes = 100 * 1024 * 1024;
    },
    problem: /^Ledger: only 100 MB free on the ledger's disk \(asm wants at least 256 MB\)/,
  },
  {
    situation: "free space that cannot be read is not a problem",
    change: (f) => {
      f.ledger.freeBytes = null;
    },
    problem: null,
  },
];

for (const row of ROWS) {
  Deno.test(`health: ${row.situation}`, () => {
    const facts = well();
    row.change(facts);
    const model = healthModel(facts);
    if (row.problem === null) {
      assert.equal(model.ok, true, model.problems.join("\n"));
      assert.deepEqual(model.problems, []);
      return;
    }
    assert.equal(model.ok, false);
    assert.equal(model.problems.length, 1, model.problems.join("\n"));
    assert.match(model.problems[0], row.problem);
    const failing = Object.values(model.parts).filter((p) => !p.ok);
    assert.equal(failing.length, 1);
    assert.equal(`${model.problems[0]}`.endsWith(failing[0].problem!), true);
  });
}

Deno.test("health: ok is the conjunction, and every failing part says its sentence, in part order", () => {
  const facts = well();
  facts.ledger.current = null;
  facts.drain.health = drainHealth({ ok: false, last_error: "the drain cannot list x" });
  const model = healthModel(facts);
  assert.equal(model.ok, false);
  assert.deepEqual(model.problems.map((p) => p.split(":")[0]), ["Hook events", "Ledger"]);
  assert.equal(model.parts.ledger.exists, false);
  assert.equal(model.parts.ledger.same_file, false);
  assert.equal(model.checked_at, "2026-03-01T12:00:00.000Z");
});

Deno.test("health: writers that fail only because the ledger refuses writes say so in few words", () => {
  const facts = well();
  facts.ledger.current = null;
  const refusal = healthModel(facts).parts.ledger.problem!;
  facts.poll = task("poll", 5000, { last_error: refusal });
  facts.imports.status = { ...IDLE_IMPORT, last_error: refusal };
  facts.drain.health = drainHealth({
    ok: false,
    backlog: 3,
    last_error: `the ledger could not store 3 event(s), first x.json: ${refusal}; they stay in the inbox`,
  });
  const model = healthModel(facts);
  assert.deepEqual(model.problems.slice(0, 3), [
    "Hook events: 3 event file(s) wait in the inbox until the ledger takes writes again",
    "Liveness: the liveness poll cannot record what it sees until the ledger takes writes again",
    "History import: the history import cannot write until the ledger takes writes again",
  ]);
  assert.equal(model.problems[3], `Ledger: ${refusal}`);
});

Deno.test("health: the model prints as lines, one per part, with each problem's sentence", () => {
  assert.match(healthText(healthModel(well())), /^asm is healthy\n {2}Hook events +ok /);
  const facts = well();
  facts.ledger.fileWritable = false;
  const text = healthText(healthModel(facts));
  assert.match(text, /^asm has 1 problem\(s\):/);
  assert.match(text, /\n {2}Ledger +PROBLEM {2}the ledger file .* is read-only/);
  assert.equal(text.split("\n").length, 7, "a heading and one line for each of the six parts");
});

Deno.test("health: a log the disk refuses and accepts that fail name their cause, and pass once they clear", () => {
  const facts = well();
  facts.server = {
    log: {
      error: "the disk is full (No space left on device (os error 28))",
      since: NOW - 30_000,
      count: 12,
    },
    accept: {
      error: "asm is out of file descriptors (Too many open files (os error 24))",
      since: NOW,
      count: 3,
    },
    connections: null,
  };
  const model = healthModel(facts);
  assert.equal(model.ok, false);
  assert.equal(model.problems.length, 1, "one part, the server's, with both sentences");
  assert.match(
    model.problems[0],
    /^Server: asm cannot write its log \(server\.log\) since .*: the disk is full/,
  );
  assert.match(model.problems[0], /12 line\(s\) lost so far/);
  assert.match(model.problems[0], /cannot accept new connections since .*out of file descriptors/);
  assert.equal(model.parts.server.log_lines_lost, 12);
  assert.equal(model.parts.server.log_failing_since, at(30_000));
  facts.server = { log: null, accept: null, connections: null };
  assert.equal(healthModel(facts).ok, true);
});
