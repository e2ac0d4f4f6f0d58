import assert from "node:assert/strict";
import { join } from "node:path";
import { fileState, Journal, takeCutoverLock } from "./journal.ts";

Deno.test("the journal keeps each file's bytes once by hash, gives them back only while they are those bytes", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-journal-" });
  try {
    const journal = new Journal(home);
    const path = join(home, "settings.json");
    Deno.writeTextFileSync(path, '{"theme":"dark"}\n', { mode: 0o640 });
    Deno.chmodSync(path, 0o640);
    const kept = journal.keep(path);
    assert.equal(kept.mode, 0o640);
    assert.equal(new TextDecoder().decode(journal.kept(kept.sha256!)!), '{"theme":"dark"}\n');
    assert.deepEqual(journal.keep(join(home, "absent")), {
      path: join(home, "absent"),
      sha256: null,
      mode: null,
      blob: null,
    });
    // a copy that changed is no copy
    Deno.writeTextFileSync(join(journal.blobs, kept.sha256!), "edited");
    assert.equal(journal.kept(kept.sha256!), null);
    assert.throws(
      () => journal.keep(home),
      /is not a file \(a folder\); the cutover keeps regular files only/,
    );
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("the journal reads back what was appended, and a last line cut short by a crash is not a record", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-journal-" });
  try {
    const journal = new Journal(home);
    journal.append({ kind: "finished", run: "r1" });
    Deno.writeTextFileSync(journal.path, '{"kind":"begin","run":"r1","st', { append: true });
    assert.deepEqual(journal.records().map((r) => r.kind), ["finished"]);
    assert.equal(Deno.statSync(journal.path).mode! & 0o777, 0o600);
    // a broken line with records after it is an edited journal: said, not skipped
    Deno.writeTextFileSync(journal.path, '\n{"kind":"finished","run":"r2","at":"x"}\n', { append: true });
    assert.throws(() => journal.records(), /line 2 is not JSON .*the journal was edited/);
    assert.equal(fileState(join(home, "nothing")).sha256, null);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("one cutover or rollback at a time: a live holder refuses the next, a dead one's lock is taken over", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-journal-" });
  try {
    const release = takeCutoverLock(home, "cutover");
    assert.equal(typeof release, "function");
    assert.equal(
      takeCutoverLock(home, "rollback"),
      `asm cutover (pid ${Deno.pid}) is running on ${home}: wait for it to end`,
    );
    (release as () => void)();
    // a cutover killed mid-step left its lock: its process is gone, so the next one goes ahead
    const gone = new Deno.Command("true").spawn();
    await gone.status;
    Deno.writeTextFileSync(
      join(home, "cutover", "lock"),
      JSON.stringify({ pid: gone.pid, procStart: 1, bootId: null, what: "cutover" }),
    );
    const next = takeCutoverLock(home, "rollback");
    assert.equal(typeof next, "function");
    (next as () => void)();
    assert.throws(() => Deno.statSync(join(home, "cutover", "lock")), Deno.errors.NotFound);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
