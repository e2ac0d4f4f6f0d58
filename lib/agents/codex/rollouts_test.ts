import assert from "node:assert/strict";
import { join } from "node:path";
import { codexOrphanRule, hasRollout, uuidV7Time } from "./rollouts.ts";

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
