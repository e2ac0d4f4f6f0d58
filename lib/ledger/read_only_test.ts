import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Ledger, LedgerError } from "./ledger.ts";
import { openReadOnly } from "./read_only.ts";
import { hookEvent } from "./_test_utils.ts";

Deno.test("a read-only reader sees what a writer committed, and never creates a ledger", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-ro-" });
  try {
    const path = join(dir, "ledger.sqlite");
    assert.equal(openReadOnly(path), null);
    assert.throws(() => Deno.statSync(path), Deno.errors.NotFound);
    const writer = Ledger.open(path);
    writer.applyEvent(hookEvent({ cwd: "/w/app" }));
    const reader = openReadOnly(path)!;
    assert.equal(reader.sessions().length, 1);
    assert.equal(reader.sessions()[0].status, "live");
    assert.throws(() => new DatabaseSync(path, { readOnly: true }).exec("DELETE FROM sessions"));
    reader.close();
    writer.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a ledger from before the history schema is refused with what to do", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-ro-" });
  try {
    const path = join(dir, "ledger.sqlite");
    const db = new DatabaseSync(path);
    db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema_version', '1')",
    );
    db.close();
    assert.throws(
      () => openReadOnly(path),
      (err) => err instanceof LedgerError && /run asm import/.test(err.message),
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("per agent: its rows and its newest hook event", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-ro-" });
  try {
    const path = join(dir, "ledger.sqlite");
    const writer = Ledger.open(path);
    writer.applyEvent(hookEvent({ agent_session_id: "a1", ts: "2026-11-29T22:00:00.000Z" }));
    writer.applyEvent(
      hookEvent({ agent_session_id: "a1", event: "Stop", ts: "2026-11-29T22:05:00.000Z" }),
    );
    writer.applyEvent(hookEvent({ agent_session_id: "a2", ts: "2026-11-29T22:01:00.000Z" }));
    writer.applyEvent(hookEvent({ agent: "codex", agent_session_id: "c1", ts: "2026-11-28T10:00:00.000Z" }));
    const reader = openReadOnly(path)!;
    const counts = Object.fromEntries(reader.agentCounts().map((c) => [c.agent, c]));
    assert.deepEqual(counts.claude, {
      agent: "claude",
      sessions: 2,
      last_event: "Stop",
      last_event_at: "2026-11-29T22:05:00.000Z",
    });
    assert.deepEqual(counts.codex, {
      agent: "codex",
      sessions: 1,
      last_event: "SessionStart",
      last_event_at: "2026-11-28T10:00:00.000Z",
    });
    reader.close();
    writer.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
