import assert from "node:assert/strict";
import { asmIdOf, sessionViews } from "../ledger/mod.ts";
import { importWorld } from "./_test_utils.ts";

const SID = "aaaaaaaa-1111-4222-8333-444444444444";

function lines(...records: unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join("\n") + "\n";
}

Deno.test("a session kept in two files written in separate batches is still the union of both", async () => {
  await using w = importWorld();
  const header = (start: string) => ({
    sessionId: SID,
    projectHash: "h",
    startTime: start,
    lastUpdated: start,
    kind: "main",
  });
  const p1 = { id: "p1", timestamp: "2026-11-29T10:00:01.000Z", type: "user", content: [{ text: "first" }] };
  const p2 = { id: "p2", timestamp: "2026-11-29T10:05:00.000Z", type: "user", content: [{ text: "second" }] };
  w.write(
    ".gemini/tmp/proj/chats/session-2026-11-29T10-00-aaaaaaaa.jsonl",
    lines(header("2026-11-29T10:00:00.000Z"), p1, p2),
  );
  w.write(
    ".gemini/tmp/proj/chats/session-2026-11-29T10-04-aaaaaaaa.jsonl",
    lines(header("2026-11-29T10:04:00.000Z"), { $set: { messages: [p1] } }),
  );
  // one session per batch: the second file's batch must bring the first file's saved state back in
  const report = await w.run({ batchSessions: 1 });
  assert.equal(report.files_read, 2);
  const rows = sessionViews(w.ledger, { all: true });
  assert.equal(rows.length, 1);
  assert.equal(rows[0].asm_id, asmIdOf("gemini", SID));
  assert.equal(rows[0].turns, 2);
  assert.equal(rows[0].started_at, "2026-11-29T10:00:00.000Z");
});
