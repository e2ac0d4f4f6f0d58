import assert from "node:assert/strict";
import { fixture, importWorld } from "../../lib/history/_test_utils.ts";
import { importDone, serverWorld } from "../../verify/server_world.ts";

Deno.test("GET /api/heatmap gives turns per UTC day per agent; hidden sessions count only with ?all=1", async () => {
  await using s = await serverWorld(importWorld(), (w) => {
    w.place(
      fixture("codex/rollouts/exec-tool-call-with-hooks-then-resumed-twice.rollout.jsonl"),
      ".codex/sessions/2026/11/29/rollout-2026-11-29T22-13-02-01a2295e-6988-7d92-8f7d-1003fec4bca0.jsonl",
    );
  });
  await s.post("/api/import").then((r) => r.body?.cancel());
  await importDone(s.get);
  assert.deepEqual((await s.get("/api/heatmap")).agents, {}, "an exec run is hidden: it is not drawn");
  const all = await s.get("/api/heatmap?all=1");
  assert.deepEqual(all.agents, { codex: { "2026-11-29": 3 } });
  assert.deepEqual(all.years, [2026]);
  assert.equal(all.max_day_turns, 3);
});
