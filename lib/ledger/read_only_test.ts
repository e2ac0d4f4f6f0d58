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
      (err) => err instanceof LedgerError && /run \.\/asm import/.test(err.message),
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
