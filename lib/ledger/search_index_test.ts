import assert from "node:assert/strict";
import { join } from "node:path";
import { Ledger } from "./ledger.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import { openSearchReader, writeIndexChunk } from "./search_index.ts";

function tempLedger(): { ledger: Ledger; dir: string; [Symbol.dispose](): void } {
  const dir = Deno.makeTempDirSync({ prefix: "asm-search-ledger-" });
  const ledger = Ledger.open(join(dir, "ledger.sqlite"));
  return {
    ledger,
    dir,
    [Symbol.dispose]() {
      ledger.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

const line = (rec_id: string | null, text: string) => ({ rec_id, ts: null, kind: "assistant", text });
const chunk = { path: "/t.jsonl", asm_id: "s1", reset: false, dropped: [], read_offset: 10, caught_up: null };

function ftsCount(ledger: Ledger, phrase: string): number {
  return ledger.query("SELECT COUNT(*) AS n FROM search_text WHERE search_text MATCH ?", `"${phrase}"`)[0]
    .n as number;
}

Deno.test("a re-appended record replaces its older row, in the lines and in the full-text index", () => {
  using t = tempLedger();
  assert.equal(t.ledger.schemaVersion(), SCHEMA_VERSION);
  writeIndexChunk(t.ledger, { ...chunk, lines: [line("r1", "first draft"), line(null, "plain words")] });
  writeIndexChunk(t.ledger, { ...chunk, lines: [line("r1", "final answer")] });
  const rows = t.ledger.query("SELECT rec_id, text FROM search_lines ORDER BY id").map((
    r,
  ) => [r.rec_id, r.text]);
  assert.deepEqual(rows, [[null, "plain words"], ["r1", "final answer"]]);
  assert.equal(ftsCount(t.ledger, "draft"), 0, "the index forgot the old copy");
  assert.equal(ftsCount(t.ledger, "final"), 1);
  writeIndexChunk(t.ledger, { ...chunk, lines: [], dropped: ["r1"] });
  assert.equal(ftsCount(t.ledger, "final"), 0, "a last copy with no text drops the record");
  writeIndexChunk(t.ledger, { ...chunk, reset: true, lines: [line("r2", "fresh start")] });
  assert.deepEqual(t.ledger.query("SELECT text FROM search_lines").map((r) => r.text), ["fresh start"]);
  assert.equal(ftsCount(t.ledger, "plain"), 0);
});

Deno.test("a read-only search connection refuses a ledger that is not there with a sentence", () => {
  using t = tempLedger();
  assert.throws(
    () => openSearchReader(join(t.dir, "missing", "ledger.sqlite")),
    /cannot be opened for search/,
  );
  const reader = openSearchReader(t.ledger.path);
  try {
    assert.deepEqual(reader.sessions(true), []);
  } finally {
    reader.close();
  }
});
