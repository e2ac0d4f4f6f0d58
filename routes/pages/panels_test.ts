import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { startServer } from "../../lib/server/mod.ts";
import { ROUTES } from "../mod.ts";

Deno.test("the Projects page draws one tile per project whose primary counts add up to the visible sessions", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-panels-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    for (const [sid, cwd] of [["a", "/home/user/web"], ["b", "/home/user/web"], ["c", "/home/user/api"]]) {
      server.ledger.applyEvent(hookEvent({ agent_session_id: sid, cwd, session_name: `work ${sid}` }));
    }
    const res = await fetch(`${server.url}/projects`);
    assert.equal(res.status, 200);
    const { document } = parseHTML(await res.text());
    const tiles = [...document.querySelectorAll(".tile")].map((t) => [
      t.querySelector(".tile-name")?.textContent,
      Number(t.querySelector(".tile-counts strong")?.textContent),
    ]);
    assert.deepEqual(tiles, [["web", 2], ["api", 1]]);
    const sum = tiles.reduce((n, [, c]) => n + (c as number), 0);
    assert.equal(sum, server.ledger.listSessions().length);

    const activity = parseHTML(await (await fetch(`${server.url}/activity`)).text()).document;
    assert.match(activity.querySelector("main")?.textContent ?? "", /No turns recorded yet/);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});
