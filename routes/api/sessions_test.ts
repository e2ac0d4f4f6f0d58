import assert from "node:assert/strict";
import { fixture, importWorld } from "../../lib/history/_test_utils.ts";
import { importDone, serverWorld } from "../../verify/server_world.ts";
import { ROUTES } from "../mod.ts";

Deno.test("GET /api/sessions lists the visible rows; ?all=1 adds the hidden ones, each saying why", async () => {
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
  // the server's own harness roots include /tmp, where the fixtures were recorded
  const all = (await s.get("/api/sessions?all=1")).sessions as {
    agent_session_id: string;
    hidden_reason: string;
    turns: number;
  }[];
  assert.deepEqual(all.map((r) => [r.agent_session_id, r.hidden_reason, r.turns]).sort(), [
    ["01a2295d-92ca-73a0-ac65-5a6372a1a905", "headless", 1],
    ["01a2295f-0ad6-7852-afe2-883c2e6eae7a", "harness folder", 2],
  ]);
  assert.deepEqual((await s.get("/api/sessions")).sessions, []);
});

Deno.test("the list kept between writes is rebuilt after the ledger's next write", async () => {
  const { hookEvent } = await import("../../lib/ledger/_test_utils.ts");
  const { startServer } = await import("../../lib/server/mod.ts");
  const home = Deno.makeTempDirSync({ prefix: "asm-sessions-cache-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    const list = async () => (await (await server.api(`/api/sessions`)).json()).sessions.length;
    server.ledger.applyEvent(hookEvent({ agent_session_id: "one", cwd: "/home/user/a" }));
    assert.equal(await list(), 1);
    assert.equal(await list(), 1);
    server.ledger.applyEvent(hookEvent({ agent_session_id: "two", cwd: "/home/user/b" }));
    assert.equal(await list(), 2);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});
