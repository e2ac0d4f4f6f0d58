import assert from "node:assert/strict";
import { fixture, importWorld } from "../../lib/history/_test_utils.ts";
import { importDone, serverWorld } from "../../verify/server_world.ts";

Deno.test("GET /api/projects: primary counts sum to the sessions listed, with and without ?all=1", async () => {
  await using s = await serverWorld(importWorld(), (w) => {
    w.place(
      fixture("codex/rollouts/tui-chat-plus-tool-call.rollout.jsonl"),
      ".codex/sessions/2026/11/29/rollout-2026-11-29T22-13-44-01a2295f-0ad6-7852-afe2-883c2e6eae7a.jsonl",
    );
    w.place(
      fixture("codex/rollouts/exec-plain-chat.rollout.jsonl"),
      ".codex/sessions/2026/11/29/rollout-2026-11-29T22-12-08-01a2295d-92ca-73a0-ac65-5a6372a1a905.jsonl",
    );
  });
  await s.post("/api/import").then((r) => r.body?.cancel());
  await importDone(s.get);
  for (const q of ["", "?all=1"]) {
    const body = await s.get(`/api/projects${q}`);
    const listed = ((await s.get(`/api/sessions${q}`)).sessions as unknown[]).length;
    const tiles = body.projects as { project: string; primary: number }[];
    assert.equal(body.sessions, listed);
    assert.equal(tiles.reduce((n, t) => n + t.primary, 0), listed);
  }
  const all = (await s.get("/api/projects?all=1")).projects as {
    project: string;
    folder: string;
    primary: number;
  }[];
  assert.deepEqual(all.map((t) => [t.project, t.folder, t.primary]).sort(), [
    ["proj1", "/tmp/cx-work/proj1", 1],
    ["proj3", "/tmp/cx-work/proj3", 1],
  ]);
});
