import assert from "node:assert/strict";
import { join } from "node:path";
import { Ledger } from "../ledger/mod.ts";
import { hookEvent } from "../ledger/_test_utils.ts";
import { drainOnce } from "./drain.ts";

function setup() {
  const home = Deno.makeTempDirSync({ prefix: "asm-drain-" });
  Deno.mkdirSync(join(home, "inbox"));
  const ledger = Ledger.open(join(home, "ledger.sqlite"));
  const lines: Record<string, unknown>[] = [];
  const deps = {
    asmHome: home,
    ledger,
    log: (l: Record<string, unknown>) => lines.push(l),
    failures: new Map(),
  };
  return {
    home,
    ledger,
    lines,
    deps,
    cleanup: () => (ledger.close(), Deno.removeSync(home, { recursive: true })),
  };
}

function put(home: string, name: string, body: unknown): void {
  Deno.writeTextFileSync(join(home, "inbox", name), typeof body === "string" ? body : JSON.stringify(body));
}

function processedFiles(home: string): string[] {
  const out: string[] = [];
  for (const day of Deno.readDirSync(join(home, "processed"))) {
    for (const f of Deno.readDirSync(join(home, "processed", day.name))) out.push(f.name);
  }
  return out.sort();
}

Deno.test("drained events land in the ledger and their files move to processed/<date>", () => {
  const { home, ledger, deps, cleanup } = setup();
  const start = hookEvent({ ts: "2026-11-29T22:00:00.000Z" });
  const prompt = hookEvent({ event: "UserPromptSubmit", ts: "2026-11-29T22:00:01.000Z" });
  put(home, `${start.event_id}.json`, start);
  put(home, `${prompt.event_id}.json`, prompt);
  const report = drainOnce({ ...deps, now: () => Date.parse("2026-11-30T01:00:00Z") });
  assert.equal(report.applied, 2);
  assert.equal(ledger.session(start.asm_id)?.prompts, 1);
  assert.deepEqual([...Deno.readDirSync(join(home, "inbox"))], []);
  assert.deepEqual([...Deno.readDirSync(join(home, "processed"))].map((d) => d.name), ["2026-11-30"]);
  assert.equal(processedFiles(home).length, 2);
  cleanup();
});

Deno.test("a .tmp file is never drained", () => {
  const { home, ledger, deps, cleanup } = setup();
  const e = hookEvent();
  put(home, `${e.event_id}.json.tmp`, e);
  assert.equal(drainOnce(deps).listed, 0);
  assert.equal(ledger.counts().events, 0);
  assert.equal(Deno.statSync(join(home, "inbox", `${e.event_id}.json.tmp`)).isFile, true);
  cleanup();
});

Deno.test("within a drain, events are applied in timestamp order whatever their file order", () => {
  const { home, ledger, deps, cleanup } = setup();
  const end = hookEvent({ event: "SessionEnd", source: "other", ts: "2026-11-29T22:00:09.000Z" });
  const start = hookEvent({ ts: "2026-11-29T22:00:00.000Z" });
  const stop = hookEvent({ event: "Stop", ts: "2026-11-29T22:00:05.000Z" });
  // written end first: the file order (mtime, name) is the reverse of the event order
  put(home, "a-end.json", end);
  put(home, "b-stop.json", stop);
  put(home, "c-start.json", start);
  drainOnce(deps);
  const row = ledger.session(start.asm_id)!;
  assert.equal(row.status, "ended");
  assert.equal(row.started_at, "2026-11-29T22:00:00.000Z");
  assert.equal(ledger.counts().sessions, 1);
  assert.equal(ledger.runs(start.asm_id).length, 1);
  cleanup();
});

Deno.test("a file that fails to parse is retried once, then moved to rejected with one log line", () => {
  const { home, ledger, lines, deps, cleanup } = setup();
  const good = hookEvent();
  put(home, "bad.json", "{not json");
  put(home, `${good.event_id}.json`, good);
  const first = drainOnce(deps);
  assert.equal(first.failed, 1);
  assert.equal(first.applied, 1);
  assert.equal(Deno.statSync(join(home, "inbox", "bad.json")).isFile, true);
  const second = drainOnce(deps);
  assert.equal(second.rejected, 1);
  assert.equal(Deno.statSync(join(home, "rejected", "bad.json")).isFile, true);
  assert.equal(lines.filter((l) => l.what === "rejected").length, 1);
  assert.equal(ledger.counts().events, 1);
  cleanup();
});

Deno.test("an event whose file was not moved after its commit (a crash) is not applied twice", () => {
  const { home, ledger, deps, cleanup } = setup();
  const start = hookEvent();
  const prompt = hookEvent({ event: "UserPromptSubmit", ts: "2026-11-29T22:00:01.000Z" });
  ledger.applyEvent(start);
  ledger.applyEvent(prompt);
  // the crash window: committed, but the files are still in the inbox
  put(home, `${start.event_id}.json`, start);
  put(home, `${prompt.event_id}.json`, prompt);
  const report = drainOnce(deps);
  assert.equal(report.duplicates, 2);
  assert.equal(ledger.session(start.asm_id)?.prompts, 1);
  assert.deepEqual([...Deno.readDirSync(join(home, "inbox"))], []);
  cleanup();
});

Deno.test("a drained start that skipped standing rules notes it on the session, and the next start clears it", () => {
  const { home, ledger, deps, cleanup } = setup();
  const why =
    "standing rules skipped: /home/user/project/.asm/rules.md is a link outside the session's folder";
  const start = hookEvent({ rules_skipped: why, ts: "2026-11-29T22:00:00.000Z" });
  put(home, `${start.event_id}.json`, start);
  drainOnce(deps);
  const noted = ledger.query("SELECT rules_note FROM sessions WHERE asm_id = ?", start.asm_id)[0];
  assert.equal(noted.rules_note, why);
  // an event file from before the hook wrote the key: no note, so the start clears the earlier one
  const { rules_skipped: _, ...older } = hookEvent({ source: "resume", ts: "2026-11-29T22:05:00.000Z" });
  put(home, `${older.event_id}.json`, older);
  assert.equal(drainOnce(deps).applied, 1);
  const cleared = ledger.query("SELECT rules_note FROM sessions WHERE asm_id = ?", start.asm_id)[0];
  assert.equal(cleared.rules_note, null);
  cleanup();
});

Deno.test("an event the ignore rule names is stored as evidence but makes no row", () => {
  const { home, ledger, lines, deps, cleanup } = setup();
  const e = hookEvent({ event: "Stop", source: "notify", agent: "codex", agent_session_id: "title-thread" });
  put(home, `${e.event_id}.json`, e);
  const report = drainOnce({
    ...deps,
    orphanReason: (ev) => ev.source === "notify" ? "no transcript" : null,
  });
  assert.equal(report.ignored, 1);
  assert.equal(ledger.counts().sessions, 0);
  assert.equal(ledger.hasEvent(e.event_id), true);
  assert.equal(lines.some((l) => l.what === "ignored"), true);
  cleanup();
});

Deno.test("the orphan rule is asked only about sessions with no row: a known session's event is applied", () => {
  const { home, ledger, deps, cleanup } = setup();
  const asked: string[] = [];
  const orphanReason = (ev: { event: string }) => (asked.push(ev.event), "no transcript");
  const start = hookEvent({
    event: "SessionStart",
    agent_session_id: "known",
    ts: "2026-11-29T22:00:00.000Z",
  });
  const stop = hookEvent({ event: "Stop", agent_session_id: "known", ts: "2026-11-29T22:01:00.000Z" });
  ledger.applyEvent(start);
  put(home, `${stop.event_id}.json`, stop);
  const report = drainOnce({ ...deps, orphanReason });
  assert.equal(report.applied, 1);
  assert.equal(report.ignored, 0);
  assert.deepEqual(asked, [], "the rule was never asked about a session the ledger has");
  cleanup();
});

Deno.test("kill -9 of a drain midway loses no event and applies none twice", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-drain-kill-" });
  Deno.mkdirSync(join(home, "inbox"));
  const sessions = 50;
  const promptsEach = 80;
  const expected = new Map<string, number>();
  for (let s = 0; s < sessions; s++) {
    const sid = `kill-test-${s}`;
    for (let p = 0; p < promptsEach; p++) {
      const e = hookEvent({
        agent_session_id: sid,
        event: p === 0 ? "SessionStart" : "UserPromptSubmit",
        ts: new Date(Date.UTC(2026, 10, 29, 22, 0, 0, p)).toISOString(),
        agent_pid: 10000 + s,
      });
      expected.set(e.asm_id, p === 0 ? 0 : (expected.get(e.asm_id) ?? 0) + 1);
      put(home, `${e.event_id}.json`, e);
    }
  }
  const total = sessions * promptsEach;
  const env = { ...Deno.env.toObject(), ASM_HOME: home };
  const main = new URL("../../main.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--node-modules-dir=manual", main, "drain"],
    env,
    stdout: "null",
    stderr: "null",
  })
    .spawn();
  // kill it as soon as it has moved some files but not all
  let moved = 0;
  for (let i = 0; i < 2000; i++) {
    await new Promise((r) => setTimeout(r, 5));
    try {
      moved = [...Deno.readDirSync(join(home, "processed"))].length > 0
        ? total - [...Deno.readDirSync(join(home, "inbox"))].length
        : 0;
    } catch {
      moved = 0;
    }
    if (moved > 0) break;
  }
  child.kill("SIGKILL");
  await child.status;
  const left = [...Deno.readDirSync(join(home, "inbox"))].length;
  assert.equal(left > 0 && left < total, true, `the kill landed mid-drain (left ${left} of ${total})`);
  const again = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--node-modules-dir=manual", main, "drain"],
    env,
  }).output();
  assert.equal(again.code, 0, new TextDecoder().decode(again.stderr));
  const ledger = Ledger.open(join(home, "ledger.sqlite"));
  assert.equal(ledger.counts().events, total);
  for (const [asmId, prompts] of expected) assert.equal(ledger.session(asmId)?.prompts, prompts);
  assert.equal([...Deno.readDirSync(join(home, "inbox"))].length, 0);
  ledger.close();
  Deno.removeSync(home, { recursive: true });
});

Deno.test("an event with values out of range is stored without them, named in exactly one log line", () => {
  const { home, ledger, lines, deps, cleanup } = setup();
  const start = hookEvent({ agent_session_id: "out-of-range" });
  // the raw JSON as a buggy payload would make the hook write it: 2^62 is no number JSON.stringify gives back
  const text = JSON.stringify(start)
    .replace('"agent_pid":4242', '"agent_pid":4611686018427387904')
    .replace('"agent_proc_start":51082', '"agent_proc_start":-5')
    .replace('"boot_id":"boot-1"', '"boot_id":"../../etc/passwd"')
    .replace('"hook_ms":12', '"hook_ms":-1');
  put(home, `${start.event_id}.json`, text);
  const report = drainOnce({ ...deps, now: () => Date.parse("2026-11-29T22:00:02Z") });
  assert.equal(report.applied, 1);
  const row = ledger.session(start.asm_id)!;
  assert.deepEqual(
    [row.status, row.cwd],
    ["live", "/home/user/project"],
    "the rest of the event was applied",
  );
  assert.deepEqual(ledger.runs(start.asm_id), [], "no run: the event names no process asm can believe");
  const stored = JSON.parse(
    String(ledger.query("SELECT payload FROM events WHERE id = ?", start.event_id)[0].payload),
  );
  assert.deepEqual([stored.agent_pid, stored.agent_proc_start, stored.boot_id, stored.hook_ms], [
    null,
    null,
    null,
    null,
  ]);
  assert.deepEqual(Object.keys(stored.dropped).sort(), [
    "agent_pid",
    "agent_proc_start",
    "boot_id",
    "hook_ms",
  ]);
  const named = lines.filter((l) => l.what === "event values dropped");
  assert.equal(named.length, 1);
  assert.equal(named[0].event_id, start.event_id);
  assert.equal(named[0].file, `${start.event_id}.json`);
  assert.deepEqual(named[0].dropped, stored.dropped);
  assert.match(
    String((named[0].dropped as Record<string, string>).agent_pid),
    /^4611686018427387904 is not a pid/,
  );

  // the same file again (a crash between the commit and the move): a duplicate, named no more
  put(home, `${start.event_id}.json`, text);
  assert.equal(drainOnce({ ...deps, now: () => Date.parse("2026-11-29T22:00:04Z") }).duplicates, 1);
  assert.equal(lines.filter((l) => l.what === "event values dropped").length, 1);
  cleanup();
});
