import assert from "node:assert/strict";
import { join } from "node:path";
import { asmIdOf, isLedgerOpen, Ledger, sessionViews } from "../ledger/mod.ts";
import { denoIo } from "./io.ts";
import { ImportRunner } from "./runner.ts";
import { claudePromptLine, fixture, importWorld, runnerOf } from "./_test_utils.ts";

const SID = "f6afb6dd-6b5f-416a-88b0-7b51fe180966";
const REL = `.claude/projects/-tmp-cc-proj-5/${SID}.jsonl`;

function prompt(text: string): string {
  return claudePromptLine({ sessionId: SID, text, ts: "2026-11-29T23:00:00.000Z" }) + "\n";
}

Deno.test("the refresh re-derives a transcript that grew, whether or not its session is live, and only then", async () => {
  await using w = importWorld();
  const path = w.place(fixture(`claude/signals/SIGKILL-idle.${SID}.jsonl`), REL);
  const runner = runnerOf(w, { yieldEveryMs: 5 });
  const first = await runner.full();
  assert.equal(first?.sessions_inserted, 1);
  const turns = () =>
    sessionViews(w.ledger, { all: true }).find((s) => s.asm_id === asmIdOf("claude", SID))?.turns;
  assert.equal(turns(), 1);
  assert.equal((await runner.refresh())?.files_read, 0, "nothing grew: nothing read");
  Deno.writeTextFileSync(path, prompt("one more"), { append: true });
  const refreshed = await runner.refresh();
  assert.equal(refreshed?.files_resumed, 1);
  assert.equal(turns(), 2, "the session is ended, and its grown file was re-derived anyway");
  assert.equal(runner.status().last_refresh?.files_read, 1);
});

Deno.test("a full import already running is joined, never started twice, and its progress is readable", async () => {
  await using w = importWorld();
  w.place(fixture(`claude/signals/SIGKILL-idle.${SID}.jsonl`), REL);
  const runner = runnerOf(w, { log: () => {} });
  assert.equal(runner.start(), true);
  assert.equal(runner.start(), false);
  assert.equal(runner.status().running, true);
  assert.equal(await runner.refresh(), null, "a refresh never runs beside a full import");
  const report = await runner.full();
  assert.equal(report?.files_read, 1);
  const status = runner.status();
  assert.equal(status.running, false);
  assert.equal(status.runs, 1);
  assert.equal(status.progress?.phase, "done");
  assert.equal(status.progress?.files_done, 1);
});

Deno.test("an import whose server closed its ledger stops between files and writes and logs nothing more", async () => {
  await using w = importWorld();
  for (let i = 0; i < 3; i++) {
    w.place(
      fixture(`claude/signals/SIGKILL-idle.${SID}.jsonl`),
      `.claude/projects/-p${i}/${SID.slice(0, -1)}${i}.jsonl`,
    );
  }
  // a ledger of its own, closed while the first file is being read, as a server's close() does
  const ledger = Ledger.open(join(w.root, "closing.sqlite"));
  const logged: unknown[] = [];
  let opened = 0;
  const runner = new ImportRunner({
    ledger,
    asmHome: w.asmHome,
    env: w.env,
    log: (l) => logged.push(l),
    harnessRoots: [],
    agents: () => w.agents,
    io: {
      ...denoIo,
      open: (path: string) => {
        if (opened++ === 0) ledger.close();
        return denoIo.open(path);
      },
    },
  });
  assert.equal(await runner.full(), null);
  assert.equal(opened, 1, "no file after the first was opened");
  assert.deepEqual(logged, [], "nothing logged into a folder that may be going away");
  assert.equal(runner.status().last_error, null);
  assert.equal(isLedgerOpen(ledger), false);
});
