import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Ledger, LedgerError } from "./ledger.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "./schema.ts";
import { hookEvent } from "./_test_utils.ts";

function tempLedger(options = {}): { ledger: Ledger; dir: string } {
  const dir = Deno.makeTempDirSync({ prefix: "asm-ledger-" });
  return { ledger: Ledger.open(join(dir, "ledger.sqlite"), options), dir };
}

Deno.test("a new ledger file is migrated, in WAL mode, with the schema version in meta", () => {
  const { ledger, dir } = tempLedger();
  assert.equal(ledger.schemaVersion(), SCHEMA_VERSION);
  assert.equal(ledger.query("PRAGMA journal_mode")[0].journal_mode, "wal");
  ledger.close();
  const again = Ledger.open(join(dir, "ledger.sqlite"));
  assert.equal(again.schemaVersion(), SCHEMA_VERSION);
  again.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("a duplicate event id is discarded and changes nothing", () => {
  const { ledger, dir } = tempLedger();
  const prompt = hookEvent({ event: "UserPromptSubmit", ts: "2026-11-29T22:00:01.000Z" });
  assert.equal(ledger.applyEvent(hookEvent()), "applied");
  assert.equal(ledger.applyEvent(prompt), "applied");
  assert.equal(ledger.applyEvent(prompt), "duplicate");
  const row = ledger.session(prompt.asm_id)!;
  assert.equal(row.prompts, 1);
  assert.equal(ledger.counts().events, 2);
  ledger.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("an event whose asm_id does not match its agent and session id is refused", () => {
  const { ledger, dir } = tempLedger();
  const bad = { ...hookEvent(), asm_id: "00000000-0000-5000-8000-000000000000" };
  assert.throws(() => ledger.applyEvent(bad), LedgerError);
  assert.equal(ledger.counts().sessions, 0);
  ledger.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("one session resumed in a second process is one row with two runs", () => {
  const { ledger, dir } = tempLedger();
  ledger.applyEvent(hookEvent({ ts: "2026-11-29T22:00:00.000Z" }));
  ledger.applyEvent(hookEvent({ event: "SessionEnd", source: "other", ts: "2026-11-29T22:01:00.000Z" }));
  const resume = hookEvent({
    source: "resume",
    ts: "2026-11-29T23:00:00.000Z",
    agent_pid: 5151,
    agent_proc_start: 77777,
  });
  ledger.applyEvent(resume);
  assert.equal(ledger.counts().sessions, 1);
  const runs = ledger.runs(resume.asm_id);
  assert.deepEqual(runs.map((r) => [r.pid, r.proc_start, r.ended_at === null]), [
    [4242, 51082, false],
    [5151, 77777, true],
  ]);
  assert.equal(ledger.session(resume.asm_id)!.status, "live");
  ledger.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("a cleared context makes a second row linked to the first through the shared process", () => {
  const { ledger, dir } = tempLedger();
  const first = hookEvent({ agent_session_id: "old-session", ts: "2026-11-29T22:00:00.000Z" });
  ledger.applyEvent(first);
  ledger.applyEvent(
    hookEvent({
      agent_session_id: "old-session",
      event: "SessionEnd",
      source: "clear",
      ts: "2026-11-29T22:05:00.000Z",
    }),
  );
  const second = hookEvent({
    agent_session_id: "new-session",
    source: "clear",
    ts: "2026-11-29T22:05:00.100Z",
  });
  ledger.applyEvent(second);
  assert.equal(ledger.counts().sessions, 2);
  assert.equal(ledger.session(first.asm_id)!.status, "ended");
  const row = ledger.session(second.asm_id)!;
  assert.equal(row.status, "live");
  assert.equal(row.cleared_from_asm_id, first.asm_id);
  ledger.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("a session under a harness root is stored as hidden, and shown with all", () => {
  const { ledger, dir } = tempLedger({ harnessRoots: ["/tmp"] });
  const e = hookEvent({ cwd: "/tmp/scratch" });
  ledger.applyEvent(e);
  assert.equal(ledger.listSessions().length, 0);
  const all = ledger.listSessions({ all: true });
  assert.equal(all.length, 1);
  assert.equal(all[0].hidden_reason, "harness folder");
  ledger.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("runsGone makes a live session lost and claimKilled makes it killed for good", () => {
  const { ledger, dir } = tempLedger();
  const a = hookEvent({ agent_session_id: "a" });
  const b = hookEvent({ agent_session_id: "b", agent_pid: 6000, agent_proc_start: 1 });
  ledger.applyEvent(a);
  ledger.applyEvent(b);
  assert.equal(
    ledger.runsGone(a.asm_id, [{ pid: 4242, proc_start: 51082 }], "2026-11-29T22:10:00.000Z"),
    "lost",
  );
  assert.equal(ledger.claimKilled(b.asm_id, "2026-11-29T22:10:00.000Z"), "killed");
  assert.equal(
    ledger.runsGone(b.asm_id, [{ pid: 6000, proc_start: 1 }], "2026-11-29T22:10:05.000Z"),
    "killed",
  );
  assert.equal(ledger.openRuns().length, 0);
  assert.equal(ledger.claimKilled("no-such-session", "2026-11-29T22:10:00.000Z"), null);
  ledger.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("the write version moves with each committed write and not with reads or a rolled-back write", () => {
  const { ledger, dir } = tempLedger();
  const v0 = ledger.version();
  ledger.applyEvent(hookEvent());
  assert.equal(ledger.version(), v0 + 1);
  ledger.listSessions();
  ledger.counts();
  assert.equal(ledger.version(), v0 + 1);
  assert.throws(() => ledger.applyEvent({ ...hookEvent(), asm_id: "00000000-0000-5000-8000-000000000000" }));
  assert.equal(ledger.version(), v0 + 1);
  ledger.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("a SessionStart that skipped standing rules sets the row's rules note and a start with none clears it", () => {
  const { ledger, dir } = tempLedger();
  const why = "standing rules skipped: /work/p/.asm/rules.md is a FIFO, not a regular file";
  const start = hookEvent({ rules_skipped: why, ts: "2026-11-29T22:00:00.000Z" });
  ledger.applyEvent(start);
  const noted = ledger.query("SELECT rules_note FROM sessions WHERE asm_id = ?", start.asm_id)[0];
  assert.equal(noted.rules_note, why);
  assert.equal(ledger.session(start.asm_id)!.rules_note, why);
  ledger.applyEvent(hookEvent({ event: "Stop", ts: "2026-11-29T22:00:05.000Z" }));
  assert.equal(ledger.session(start.asm_id)!.rules_note, why, "a stop says nothing about the rules");
  ledger.applyEvent(hookEvent({ source: "compact", rules_skipped: null, ts: "2026-11-29T22:01:00.000Z" }));
  const cleared = ledger.query("SELECT rules_note FROM sessions WHERE asm_id = ?", start.asm_id)[0];
  assert.equal(cleared.rules_note, null);
  ledger.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("a version 4 ledger is migrated to the current version; its sessions have no rules note and no doubt", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-ledger-" });
  const path = join(dir, "ledger.sqlite");
  const old = new DatabaseSync(path);
  for (const m of MIGRATIONS.filter((m) => m.version <= 4)) old.exec(m.sql);
  old.exec("INSERT INTO meta (key, value) VALUES ('schema_version', '4')");
  old.exec(
    "INSERT INTO sessions (asm_id, agent, agent_session_id, status) VALUES ('a1', 'claude', 's1', 'ended')",
  );
  old.close();
  const ledger = Ledger.open(path);
  assert.equal(ledger.schemaVersion(), SCHEMA_VERSION);
  const row = ledger.query("SELECT rules_note, unsure_reason FROM sessions WHERE asm_id = 'a1'")[0];
  assert.deepEqual([row.rules_note, row.unsure_reason], [null, null]);
  ledger.close();
  Deno.removeSync(dir, { recursive: true });
});
