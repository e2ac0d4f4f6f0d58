import assert from "node:assert/strict";
import { join } from "node:path";
import { codexOrphanRule, hasRollout, uuidV7Time } from "./rollouts.ts";
import { fixture } from "../_test_utils.ts";
import { loadAgents, orphanEventReason } from "../registry.ts";
import { drainOnce } from "../../inbox/mod.ts";
import { type HookEvent, Ledger } from "../../ledger/mod.ts";
import { hookEvent } from "../../ledger/_test_utils.ts";

const FIXTURE_ID = "01a2295d-92ca-73a0-ac65-5a6372a1a905";

Deno.test("a UUIDv7 thread id carries its creation time; other ids carry none", () => {
  assert.equal(new Date(uuidV7Time(FIXTURE_ID)!).toISOString().slice(0, 10), "2026-11-29");
  assert.equal(uuidV7Time("11111111-2222-4333-8444-555555555555"), null);
});

Deno.test("a notify for a thread with a rollout is applied; one without (the hidden title turn) is not", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-codex-rollouts-" });
  const day = join(home, "sessions", "2026", "11", "29");
  Deno.mkdirSync(day, { recursive: true });
  Deno.writeTextFileSync(join(day, `rollout-2026-11-29T22-12-08-${FIXTURE_ID}.jsonl`), "{}\n");
  const env = { CODEX_HOME: home, HOME: home };
  assert.equal(hasRollout(FIXTURE_ID, env), true);
  const title = "01a2295f-0000-7000-8000-000000000000";
  assert.equal(hasRollout(title, env), false);
  assert.equal(codexOrphanRule({ event: "Stop", source: "notify", agent_session_id: FIXTURE_ID }, env), null);
  assert.match(
    codexOrphanRule({ event: "Stop", source: "notify", agent_session_id: title }, env) ?? "",
    /title/,
  );
  // the title turn's Stop hook (trusted hooks fire for it too) is judged the same way
  assert.match(
    codexOrphanRule({ event: "Stop", source: null, agent_session_id: title }, env) ?? "",
    /a Stop for/,
  );
  assert.equal(codexOrphanRule({ event: "Stop", source: null, agent_session_id: FIXTURE_ID }, env), null);
  // only a turn's end is judged: a SessionStart for an unknown thread still makes its row
  assert.equal(
    codexOrphanRule({ event: "SessionStart", source: "startup", agent_session_id: title }, env),
    null,
  );
  // a non-v7 id is searched for in every day folder
  Deno.writeTextFileSync(join(day, "rollout-2026-11-29T22-12-08-plain-id.jsonl"), "{}\n");
  assert.equal(hasRollout("plain-id", env), true);
  Deno.removeSync(home, { recursive: true });
});

/** Every hook and notify Codex 0.169's TUI really sent in one sitting (fixtures, dumps-3), as the hook's events. */
function recordedEvents(): HookEvent[] {
  const dir = fixture("codex/hook-dumps/dumps-3");
  return [...Deno.readDirSync(dir)].map((entry) => {
    const dump = JSON.parse(Deno.readTextFileSync(join(dir, entry.name)));
    const notify = dump.label === "notify";
    const payload = notify ? dump.argv1_json : dump.stdin_json;
    const id = payload.session_id ?? payload["thread-id"];
    return hookEvent({
      agent: "codex",
      agent_session_id: id,
      event: notify ? "Stop" : payload.hook_event_name,
      raw_event: notify ? payload.type : payload.hook_event_name,
      ts: new Date(Math.round(dump.time * 1000)).toISOString(),
      source: notify ? "notify" : payload.source ?? payload.reason ?? null,
      transcript_path: payload.transcript_path ?? null,
      cwd: payload.cwd,
      payload,
    });
  });
}

Deno.test("Codex's real title turns (three notifies of one sitting) are judged evidence, its person's turns are not", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-codex-title-" });
  const day = join(home, "sessions", "2026", "11", "29");
  Deno.mkdirSync(day, { recursive: true });
  for (const id of ["01a2295f-0ad6-7852-afe2-883c2e6eae7a", "01a2295f-bf52-7960-be5b-3035993272f7"]) {
    Deno.writeTextFileSync(join(day, `rollout-2026-11-29T22-13-44-${id}.jsonl`), "{}\n");
  }
  const env = { CODEX_HOME: home, HOME: home };
  const notifies = recordedEvents().filter((e) => e.source === "notify");
  const title = (e: HookEvent) =>
    String((e.payload as { "input-messages": string[] })["input-messages"][0]).startsWith(
      "Generate a concise, single-line task title",
    );
  assert.equal(notifies.filter(title).length, 3, "the sitting holds three title turns");
  for (const e of notifies) {
    const why = codexOrphanRule(e, env);
    if (title(e)) assert.match(why ?? "", /hidden title turn/, e.agent_session_id);
    else assert.equal(why, null, e.agent_session_id);
  }
  Deno.removeSync(home, { recursive: true });
});

Deno.test("the recorded sitting drained in its own order makes rows for the person's threads only", () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-codex-sitting-" });
  const codexHome = join(root, "codex");
  const day = join(codexHome, "sessions", "2026", "11", "29");
  Deno.mkdirSync(day, { recursive: true });
  Deno.writeTextFileSync(
    join(day, "rollout-2026-11-29T22-13-44-01a2295f-0ad6-7852-afe2-883c2e6eae7a.jsonl"),
    "{}\n",
  );
  const asmHome = join(root, "asm");
  Deno.mkdirSync(join(asmHome, "inbox"), { recursive: true });
  const env = { CODEX_HOME: codexHome, HOME: root, ASM_HOME: asmHome };
  const events = recordedEvents();
  for (const e of events) {
    Deno.writeTextFileSync(join(asmHome, "inbox", `${e.event_id}.json`), JSON.stringify(e));
  }
  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"));
  const report = drainOnce({
    asmHome,
    ledger,
    log: () => {},
    failures: new Map(),
    orphanReason: orphanEventReason(loadAgents({ asmHome, env }), env),
  });
  assert.equal(report.applied + report.ignored, events.length);
  const rows = ledger.listSessions({ all: true }).map((s) => s.agent_session_id).sort();
  // the first TUI's thread, the second TUI's thread (its hooks came first) and the /new thread (its SessionEnd)
  assert.deepEqual(rows, [
    "01a2295f-0ad6-7852-afe2-883c2e6eae7a",
    "01a2295f-a367-78c3-a99f-aea70e6b0f45",
    "01a2295f-bf52-7960-be5b-3035993272f7",
  ]);
  assert.equal(report.ignored, 3, "the three title notifies are kept as evidence");
  ledger.close();
  Deno.removeSync(root, { recursive: true });
});
