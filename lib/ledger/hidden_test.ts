import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  HIDDEN_REASON_SQL,
  type HiddenFacts,
  hiddenReason,
  isUnder,
  STILL_BEING_READ_SQL,
  stillBeingRead,
  underHarnessRoot,
} from "./hidden.ts";
import { MIGRATIONS } from "./schema.ts";

// A small deterministic generator, so a failure names a reproducible row.
/** A generated row: the rule's columns and the raw thread source the rule must never read. */
type Row = HiddenFacts & { thread_source: string | null };

function* rows(count: number, seed = 7): Generator<Row> {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(values: T[]): T => values[Math.floor(next() * values.length)];
  for (let i = 0; i < count; i++) {
    yield {
      nested: pick([0, 1, 2]),
      source: pick([
        null,
        "",
        "interactive",
        "headless",
        "subagent",
        "title-generation",
        "non-user",
        "exec",
        "Headless",
        "cli",
        "bogus",
      ]),
      // raw values as agents write them, known and not: none of them may move a row either way
      thread_source: pick([
        null,
        "",
        "user",
        "USER",
        "subagent",
        "review",
        "memory",
        "cli",
        "vscode",
        "bogus",
      ]),
      harness: pick([0, 1]),
      status: pick(["starting", "live", "ended", "lost", "killed"]),
      name: pick([null, "", " ", "My Custom Title"]),
      turns: pick([null, -1, 0, 1, 2, 40]),
      prompts: pick([0, 1, 2, 5]),
      derive_state: pick([null, null, "listed"]),
    };
  }
}

Deno.test("the hidden rule in SQL and its TypeScript twin agree on every one of 20,000 generated rows", () => {
  const db = new DatabaseSync(":memory:");
  db.exec(MIGRATIONS.map((m) => m.sql).join("\n"));
  const insert = db.prepare(
    `INSERT INTO sessions (asm_id, agent, agent_session_id, nested, source, thread_source, harness, status, name,
       turns, prompts, derive_state) VALUES (?, 'claude', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const generated = [...rows(20_000)];
  db.exec("BEGIN");
  generated.forEach((r, i) =>
    insert.run(
      `id-${i}`,
      `sid-${i}`,
      r.nested,
      r.source,
      r.thread_source,
      r.harness,
      r.status,
      r.name,
      r.turns,
      r.prompts,
      r.derive_state,
    )
  );
  db.exec("COMMIT");
  const sql = db.prepare(
    `SELECT asm_id, ${HIDDEN_REASON_SQL} AS reason, ${STILL_BEING_READ_SQL} AS reading FROM sessions`,
  ).all() as {
    asm_id: string;
    reason: string | null;
    reading: number;
  }[];
  assert.equal(sql.length, generated.length);
  const reasons = new Set<string | null>();
  for (const row of sql) {
    const i = Number(row.asm_id.slice(3));
    assert.equal(hiddenReason(generated[i]), row.reason, `row ${i}: ${JSON.stringify(generated[i])}`);
    assert.equal(
      stillBeingRead(generated[i]),
      row.reading === 1,
      `row ${i}: ${JSON.stringify(generated[i])}`,
    );
    reasons.add(row.reason);
    if (row.reading === 1) reasons.add("still being read");
  }
  // the generator reached every branch, so the agreement covers all of them
  assert.deepEqual(
    [...reasons].map(String).sort(),
    [
      "harness folder",
      "headless",
      "non-user thread",
      "nothing happened",
      "null",
      "still being read",
      "sub-agent",
    ],
  );
  db.close();
});

Deno.test("hide only on evidence: unknown or absent source and thread source values leave a row shown", () => {
  const shown: Row = {
    nested: 0,
    source: null,
    thread_source: null,
    harness: 0,
    status: "live",
    name: null,
    turns: 3,
    prompts: 3,
    derive_state: null,
  };
  for (const thread_source of [null, "", "user", "cli", "vscode", "exec", "bogus", "review"]) {
    for (const source of [null, "", "interactive", "cli", "bogus", "Headless", "exec"]) {
      const row: Row = { ...shown, source, thread_source };
      assert.equal(hiddenReason(row), null, `${source} / ${thread_source}`);
    }
  }
  // the values an adapter maps from evidence it knows do hide
  const review: Row = { ...shown, source: "non-user", thread_source: "review" };
  assert.equal(hiddenReason(review), "non-user thread");
  assert.equal(hiddenReason({ ...shown, source: "subagent" }), "sub-agent");
  assert.equal(hiddenReason({ ...shown, source: "headless" }), "headless");
});

Deno.test("a finished, unnamed session with one turn is hidden as nothing happened; a named one is not", () => {
  const base: HiddenFacts = {
    nested: 0,
    source: "interactive",
    harness: 0,
    status: "ended",
    name: null,
    turns: 1,
    prompts: 1,
    derive_state: null,
  };
  assert.equal(hiddenReason(base), "nothing happened");
  assert.equal(hiddenReason({ ...base, name: "Fix the login page" }), null);
  assert.equal(hiddenReason({ ...base, turns: 2 }), null);
  assert.equal(hiddenReason({ ...base, status: "live" }), null);
});

Deno.test("a listed row whose turns are not read yet is never hidden as nothing happened: it is still being read", () => {
  const listed: HiddenFacts = {
    nested: 0,
    source: "interactive",
    harness: 0,
    status: "ended",
    name: null,
    turns: null,
    prompts: 0,
    derive_state: "listed",
  };
  assert.equal(hiddenReason(listed), null);
  assert.equal(stillBeingRead(listed), true);
  // evidence in the file's head hides it at once, without that word
  assert.equal(hiddenReason({ ...listed, source: "subagent" }), "sub-agent");
  assert.equal(stillBeingRead({ ...listed, source: "subagent" }), false);
  // a name, hooks' prompts or a live status decide it without the whole file
  assert.equal(stillBeingRead({ ...listed, name: "Fix the login page" }), false);
  assert.equal(stillBeingRead({ ...listed, prompts: 2 }), false);
  assert.equal(stillBeingRead({ ...listed, status: "live" }), false);
  // derived, with one turn: hidden now, with its reason
  assert.equal(hiddenReason({ ...listed, derive_state: null, turns: 1 }), "nothing happened");
});

Deno.test("harness roots match by path segment, not by string prefix", () => {
  assert.equal(isUnder("/tmp/x", "/tmp"), true);
  assert.equal(isUnder("/tmp", "/tmp/"), true);
  assert.equal(isUnder("/tmpfoo/x", "/tmp"), false);
  assert.equal(underHarnessRoot(null, ["/tmp"]), false);
  assert.equal(underHarnessRoot("/home/a/.asm/canary", ["/tmp", "/home/a/.asm"]), true);
});
