import assert from "node:assert/strict";
import { recordActivity } from "../../lib/ledger/mod.ts";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { startServer } from "../../lib/server/mod.ts";
import { ROUTES } from "../mod.ts";

Deno.test("GET /api/live lists the live sessions with their words, and its revision moves only on a change", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-live-route-" });
  const server = startServer({ asmHome: home, port: 0, services: [], routes: ROUTES });
  try {
    const get = async (path = "/api/live") => await (await server.api(path)).json();
    const visible = hookEvent({ agent_session_id: "aaaaaaaa-0000-4000-8000-000000000001", cwd: "/home/u/p" });
    const hidden = hookEvent({ agent_session_id: "bbbbbbbb-0000-4000-8000-000000000002", cwd: home });
    server.ledger.applyEvent(visible);
    server.ledger.applyEvent(hidden);

    const first = await get();
    assert.deepEqual(first.live, [visible.asm_id]);
    assert.deepEqual(first.sessions[0].activity, null, "no reading stays null");
    assert.deepEqual(first.sessions[0].context_tokens, null);
    assert.equal((await get()).revision, first.revision, "nothing displayed changed");

    recordActivity(server.ledger, [{
      asm_id: visible.asm_id,
      activity: "waiting",
      activity_reason: "permission",
      activity_at: "2026-11-29T22:00:05.000Z",
    }]);
    const second = await get();
    assert.equal(second.revision, first.revision + 1);
    const s = second.sessions[0];
    assert.deepEqual(
      [s.status, s.activity, s.activity_word, s.activity_reason, s.activity_at],
      ["live", "waiting", "Waiting on you", "permission", "2026-11-29T22:00:05.000Z"],
    );

    const all = await get("/api/live?all=1");
    assert.deepEqual(all.live.slice().sort(), [visible.asm_id, hidden.asm_id].sort());
    assert.equal(
      all.sessions.find((x: { asm_id: string }) => x.asm_id === hidden.asm_id).hidden_reason,
      "harness folder",
    );
    assert.equal(
      (await get()).revision,
      second.revision,
      "asking for all does not move the default revision",
    );
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});
