/**
 * Hide only on evidence, through the import: a Codex thread whose `thread_source` is a value asm does not know
 * stays shown (carrying the raw value), a known non-user value hides it, and a ledger written by the older readers
 * (which hid on unknown values) is read again once by migration 9 and corrected.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { asmIdOf, Ledger, sessionViews } from "../ledger/mod.ts";
import { CODEX, fixture, importWorld } from "./_test_utils.ts";

const TUI = fixture("codex/rollouts/tui-chat-plus-tool-call.rollout.jsonl");
const REL = `.codex/sessions/2026/11/29/rollout-2026-11-29T22-13-44-${CODEX.tui}.jsonl`;

/** The real rollout with its session_meta's thread source spelled `spelling` (as another version writes it). */
function rolloutWith(spelling: string): string {
  const text = Deno.readTextFileSync(TUI);
  assert.ok(text.includes('"thread_source":"user"'), "the fixture carries the field this test respells");
  return text.replace('"thread_source":"user"', `"thread_source":${JSON.stringify(spelling)}`);
}

function rowOf(ledger: Ledger) {
  const row = sessionViews(ledger, { all: true }).find((s) => s.asm_id === asmIdOf("codex", CODEX.tui));
  assert.ok(row, "the thread has a row");
  const raw = ledger.query("SELECT source, thread_source FROM sessions WHERE asm_id = ?", row.asm_id)[0];
  return { hidden: row.hidden_reason, source: raw.source, thread_source: raw.thread_source };
}

Deno.test("a Codex thread with a thread source asm does not know is shown, with the raw value in the row", async () => {
  for (const spelling of ["cli", "bogus", "Vscode"]) {
    await using w = importWorld();
    w.write(REL, rolloutWith(spelling));
    await w.run();
    assert.deepEqual(rowOf(w.ledger), {
      hidden: null,
      source: "interactive", // session_meta's source "vscode": Codex's own interactive client
      thread_source: spelling,
    }, spelling);
  }
});

Deno.test("a Codex thread with a thread source known to be Codex's own is hidden as a non-user thread", async () => {
  await using w = importWorld();
  w.write(REL, rolloutWith("review"));
  await w.run();
  assert.deepEqual(rowOf(w.ledger), {
    hidden: "non-user thread",
    source: "non-user",
    thread_source: "review",
  });
});

Deno.test("migration 9 reads every transcript again once, and the row takes the new reader's evidence", async () => {
  await using w = importWorld();
  w.write(REL, rolloutWith("cli"));
  await w.run();
  // a ledger of schema 8 whose row the older reader hid: its source said so, and every file was read
  const path = join(w.asmHome, "ledger.sqlite");
  const old = new DatabaseSync(path);
  old.exec("UPDATE sessions SET source = 'headless'");
  old.exec("UPDATE meta SET value = '8' WHERE key = 'schema_version'");
  // what later migrations added is not there yet in a ledger of schema 8
  old.exec("ALTER TABLE sessions DROP COLUMN derive_state");
  old.exec("ALTER TABLE import_state DROP COLUMN listed");
  old.close();
  const ledger = Ledger.open(path);
  try {
    assert.equal(rowOf(ledger).hidden, "headless", "before the new import, the old reader's row");
    const report = await w.run({ ledger });
    assert.equal(report.files_read, 1, "the unchanged file is read again");
    assert.deepEqual(rowOf(ledger), { hidden: null, source: "interactive", thread_source: "cli" });
    const again = await w.run({ ledger });
    assert.equal(again.files_read, 0, "once: the next import reads nothing");
  } finally {
    ledger.close();
  }
});
