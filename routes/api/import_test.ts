import assert from "node:assert/strict";
import { fixture, importWorld } from "../../lib/history/_test_utils.ts";
import { importDone, serverWorld } from "../../verify/server_world.ts";

Deno.test("POST /api/import needs the install token, starts one import, and GET /api/import follows it to its report", async () => {
  await using s = await serverWorld(importWorld(), (w) => {
    w.place(
      fixture("claude/signals/SIGTERM-idle.e0c66d5e-e1b1-454c-9ac8-c03166650dbe.jsonl"),
      ".claude/projects/-p/e0c66d5e-e1b1-454c-9ac8-c03166650dbe.jsonl",
    );
  });
  const refused = await s.post("/api/import", "0".repeat(64));
  assert.equal(refused.status, 401, "a wrong key is refused");
  await refused.body?.cancel();
  assert.equal((await s.get("/api/import")).runs, 0, "a refused request started nothing");
  const started = await s.post("/api/import");
  assert.equal(started.status, 202);
  assert.equal((await started.json()).started, true);
  const status = await importDone(s.get);
  assert.equal(status.runs, 1);
  assert.equal((status.last as { sessions_inserted: number }).sessions_inserted, 1);
  assert.equal((status.progress as { phase: string }).phase, "done");
});
