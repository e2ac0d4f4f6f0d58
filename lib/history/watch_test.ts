import assert from "node:assert/strict";
import { join } from "node:path";
import { asmIdOf, sessionViews } from "../ledger/mod.ts";
import { TranscriptWatch } from "./watch.ts";
import { claudePromptLine, fixture, importWorld, runnerOf } from "./_test_utils.ts";

async function until<T>(what: string, probe: () => T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = probe();
    if (got !== undefined && got !== false) return got;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

Deno.test("the watch hands on the paths that changed under its folders, a burst at a time, and nothing after close", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-watch-" }));
  const handed: string[][] = [];
  const watch = new TranscriptWatch({
    log: () => {},
    onChange: (paths) => void handed.push(paths),
    settleMs: 50,
    minGapMs: 200,
  });
  try {
    assert.equal(await watch.arm([root, join(root, "not-yet")]), null);
    assert.deepEqual(watch.roots(), [root], "a folder that is not there yet is the walk's");
    // a folder made after the watch started is watched too (an agent's new project folder)
    Deno.mkdirSync(join(root, "project", "day"), { recursive: true });
    await new Promise((r) => setTimeout(r, 100));
    const file = join(root, "project", "day", "session.jsonl");
    for (let i = 0; i < 20; i++) Deno.writeTextFileSync(file, `{"line":${i}}\n`, { append: true });
    await until("the appended file handed on", () => handed.flat().includes(file));
    assert.ok(handed.length <= 3, `a burst of 20 writes is one or a few hand-overs, not ${handed.length}`);
    await watch.close();
    const count = handed.length;
    Deno.writeTextFileSync(file, "{}\n", { append: true });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(handed.length, count, "nothing after close");
  } finally {
    await watch.close();
    Deno.removeSync(root, { recursive: true });
  }
});

const SID = "f6afb6dd-6b5f-416a-88b0-7b51fe180966";
const REL = `.claude/projects/-tmp-cc-proj-5/${SID}.jsonl`;

Deno.test("a transcript that grows, shrinks or appears is read through the watch, and the rows agree with a walk's", async () => {
  await using w = importWorld();
  const path = w.place(fixture(`claude/signals/SIGKILL-idle.${SID}.jsonl`), REL);
  const runner = runnerOf(w, { yieldEveryMs: 5 });
  await runner.full();
  // the paths the watch handed on, once the runner has read them
  const read: string[] = [];
  const watch = new TranscriptWatch({
    log: (l) => w.logged.push(l),
    onChange: async (paths) => {
      await runner.refreshFiles(paths);
      read.push(...paths);
    },
    settleMs: 50,
    minGapMs: 100,
  });
  try {
    await watch.arm([join(w.home, ".claude", "projects")]);
    const row = (sid: string) =>
      sessionViews(w.ledger, { all: true }).find((s) => s.asm_id === asmIdOf("claude", sid));
    assert.equal(row(SID)?.turns, 1);
    const line = (text: string, sid = SID) =>
      claudePromptLine({ sessionId: sid, text, ts: "2026-11-29T23:00:00.000Z" }) + "\n";
    // grown: read on, no refresh timer, no walk
    Deno.writeTextFileSync(path, line("one more"), { append: true });
    await until("the grown transcript's second turn", () => row(SID)?.turns === 2);
    // a new session's file in a new project folder
    const other = "0b0b0b0b-1111-4222-8333-444444444444";
    const otherPath = join(w.home, ".claude", "projects", "-tmp-new-proj", `${other}.jsonl`);
    Deno.mkdirSync(join(otherPath, ".."), { recursive: true });
    await new Promise((r) => setTimeout(r, 100));
    Deno.writeTextFileSync(otherPath, line("hello", other) + line("again", other));
    await until("the new session's row", () => row(other)?.turns === 2);
    // shrunk (rewritten shorter): read again from its start, as the walk reads it
    Deno.writeTextFileSync(otherPath, line("only this", other));
    await until("the rewritten transcript's one turn", () => row(other)?.turns === 1);
    // deleted: the row stays (a session past is kept), as the walk keeps it
    Deno.removeSync(otherPath);
    await until("the deleted path handed on and read", () => read.includes(otherPath));
    assert.equal(row(other)?.turns, 1);
    // the walk over the same files changes nothing the watch wrote
    const before = sessionViews(w.ledger, { all: true }).map((s) => [s.asm_id, s.turns, s.title]);
    const walk = await runner.full();
    assert.equal(walk?.files_read, 0, "the walk finds nothing the watch had not read");
    assert.deepEqual(sessionViews(w.ledger, { all: true }).map((s) => [s.asm_id, s.turns, s.title]), before);
  } finally {
    await watch.close();
  }
});

Deno.test("a watch the kernel refuses is one log line however often it is armed again, and arms once it can", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-watch-" }));
  const logged: Record<string, unknown>[] = [];
  let refuse = true;
  const watch = new TranscriptWatch({
    log: (l) => void logged.push(l),
    onChange: () => {},
    watchFs: (paths, options) => {
      if (refuse) throw new Error("inotify watch limit reached");
      return Deno.watchFs(paths, options);
    },
  });
  try {
    for (let i = 0; i < 3; i++) {
      assert.match(
        (await watch.arm([root]))!,
        /^the transcript folders cannot be watched \(inotify watch limit/,
      );
    }
    assert.equal(logged.filter((l) => l.what === "transcript watch failed").length, 1);
    assert.deepEqual(watch.roots(), []);
    refuse = false;
    assert.equal(await watch.arm([root]), null);
    assert.deepEqual(watch.roots(), [root]);
  } finally {
    await watch.close();
    Deno.removeSync(root, { recursive: true });
  }
});
