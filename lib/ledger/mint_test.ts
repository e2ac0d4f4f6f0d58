import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS } from "./schema.ts";
import { MINT_REFUSAL_SQL, type MintFacts, mintRefusal } from "./mint.ts";

// A small deterministic generator, so a failure names a reproducible row.
function* rows(count: number, seed = 11): Generator<MintFacts> {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(values: T[]): T => values[Math.floor(next() * values.length)];
  for (let i = 0; i < count; i++) {
    yield {
      nested: pick([0, 0, 0, 1, 2]),
      source: pick([null, "", "interactive", "interactive", "Interactive", "headless", "subagent", "exec"]),
      thread_source: pick([null, null, "", "user", "USER", "subagent", "review", "memory", "automation"]),
      parent_asm_id: pick([null, null, null, "parent-1"]),
      harness: pick([0, 0, 1]),
      turns: pick([null, -1, 0, 1, 2, 40]),
      prompts: pick([0, 0, 1, 2, 5]),
      name: pick([null, null, "", " ", "\t\n", "Fix the login page"]),
      title: pick([null, "", " ", "\r\n", "What the agent called it", " padded "]),
    };
  }
}

function ledgerWith(generated: MintFacts[]): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec(MIGRATIONS.map((m) => m.sql).join("\n"));
  const insert = db.prepare(
    `INSERT INTO sessions (asm_id, agent, agent_session_id, status, nested, source, thread_source, parent_asm_id,
       harness, turns, prompts, name, title) VALUES (?, 'claude', ?, 'live', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.exec("BEGIN");
  generated.forEach((r, i) =>
    insert.run(
      `id-${i}`,
      `sid-${i}`,
      r.nested,
      r.source,
      r.thread_source,
      r.parent_asm_id,
      r.harness,
      r.turns,
      r.prompts,
      r.name,
      r.title,
    )
  );
  db.exec("COMMIT");
  return db;
}

Deno.test("the mint rule in SQL and its TypeScript twin agree on every one of 20,000 generated rows", () => {
  const generated = [...rows(20_000)];
  const db = ledgerWith(generated);
  const sql = db.prepare(`SELECT asm_id, ${MINT_REFUSAL_SQL} AS refusal FROM sessions`).all() as {
    asm_id: string;
    refusal: string | null;
  }[];
  assert.equal(sql.length, generated.length);
  const refusals = new Set<string | null>();
  for (const row of sql) {
    const i = Number(row.asm_id.slice(3));
    assert.equal(mintRefusal(generated[i]), row.refusal, `row ${i}: ${JSON.stringify(generated[i])}`);
    refusals.add(row.refusal);
  }
  // the generator reached every branch, so the agreement covers all of them
  assert.deepEqual([...refusals].map(String).sort(), [
    "automation thread",
    "harness folder",
    "headless",
    "no title",
    "no typed prompt",
    "not known to be interactive",
    "null",
    "sub-agent",
  ]);
  db.close();
});

const driven: MintFacts = {
  nested: 0,
  source: "interactive",
  thread_source: null,
  parent_asm_id: null,
  harness: 0,
  turns: null,
  prompts: 1,
  name: null,
  title: "Fix the login redirect",
};

const table: { situation: string; row: MintFacts; refusal: string | null }[] = [
  { situation: "an interactive session with a typed prompt and a title", row: driven, refusal: null },
  {
    situation: "turns counted by the import stand in for prompts",
    row: { ...driven, prompts: 0, turns: 3 },
    refusal: null,
  },
  { situation: "Codex's own user thread", row: { ...driven, thread_source: "user" }, refusal: null },
  {
    situation: "a person's name wins over the agent's title",
    row: { ...driven, name: "Mine", title: null },
    refusal: null,
  },
  {
    situation: "a thread kind never seen before",
    row: { ...driven, thread_source: "automation" },
    refusal: "automation thread",
  },
  { situation: "a review thread", row: { ...driven, thread_source: "review" }, refusal: "automation thread" },
  {
    situation: "an empty thread source is not 'user'",
    row: { ...driven, thread_source: "" },
    refusal: "automation thread",
  },
  {
    situation: "a title-generation call",
    row: { ...driven, source: "title-generation" },
    refusal: "automation thread",
  },
  {
    situation: "a source the import has not derived yet",
    row: { ...driven, source: null },
    refusal: "not known to be interactive",
  },
  {
    situation: "a source asm does not know",
    row: { ...driven, source: "exec" },
    refusal: "not known to be interactive",
  },
  {
    situation: "a source in another case",
    row: { ...driven, source: "Interactive" },
    refusal: "not known to be interactive",
  },
  { situation: "a headless run", row: { ...driven, source: "headless" }, refusal: "headless" },
  { situation: "a nested session", row: { ...driven, nested: 1 }, refusal: "sub-agent" },
  { situation: "a sub-agent source", row: { ...driven, source: "subagent" }, refusal: "sub-agent" },
  { situation: "a row with a parent", row: { ...driven, parent_asm_id: "p" }, refusal: "sub-agent" },
  {
    situation: "a session under a harness folder",
    row: { ...driven, harness: 1 },
    refusal: "harness folder",
  },
  { situation: "no prompt typed yet", row: { ...driven, prompts: 0, turns: 0 }, refusal: "no typed prompt" },
  {
    situation: "no prompt, turns unknown",
    row: { ...driven, prompts: 0, turns: null },
    refusal: "no typed prompt",
  },
  { situation: "no title at all", row: { ...driven, title: null }, refusal: "no title" },
  { situation: "a blank title", row: { ...driven, name: "", title: " \t" }, refusal: "no title" },
  {
    situation: "a blank name hides the agent's title",
    row: { ...driven, name: " ", title: "T" },
    refusal: "no title",
  },
];

Deno.test("the mint rule, row by row: positive evidence only", async (t) => {
  const db = ledgerWith(table.map((r) => r.row));
  const sql = db.prepare(`SELECT ${MINT_REFUSAL_SQL} AS refusal FROM sessions ORDER BY rowid`).all() as {
    refusal: string | null;
  }[];
  for (const [i, { situation, row, refusal }] of table.entries()) {
    await t.step(situation, () => {
      assert.equal(mintRefusal(row), refusal);
      assert.equal(sql[i].refusal, refusal);
    });
  }
  db.close();
});
