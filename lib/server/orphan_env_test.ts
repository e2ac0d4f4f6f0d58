import assert from "node:assert/strict";
import { join } from "node:path";
import { hookEvent } from "../ledger/_test_utils.ts";
import { fixture } from "../agents/_test_utils.ts";
import { startServer } from "./app.ts";
import { ROUTES } from "../../routes/mod.ts";

/** A notify Codex 0.169's TUI really sent (agents/codex fixtures, dumps-3), as the hook turns it into an event. */
function notifyEvent(dump: string) {
  const argv = JSON.parse(Deno.readTextFileSync(fixture(`codex/hook-dumps/dumps-3/${dump}`)))
    .argv as string[];
  const payload = JSON.parse(argv[argv.length - 1]);
  return hookEvent({
    agent: "codex",
    agent_session_id: payload["thread-id"],
    event: "Stop",
    raw_event: "agent-turn-complete",
    ts: "2026-11-29T22:13:57.000Z",
    source: "notify",
    cwd: payload.cwd,
    payload,
  });
}

Deno.test("the server's drain judges Codex's notifies in the server's own Codex folder: the person's thread gets its row, the title thread none", async () => {
  // only notifies arrive while Codex's hooks are not trusted yet; the rollout of the person's thread is in the
  // CODEX_HOME the server was given, which is not the one of the process that runs it
  const root = Deno.makeTempDirSync({ prefix: "asm-orphan-env-" });
  const codexHome = join(root, "codex");
  const day = join(codexHome, "sessions", "2026", "11", "29");
  Deno.mkdirSync(day, { recursive: true });
  Deno.copyFileSync(
    fixture("codex/rollouts/tui-chat-plus-tool-call.rollout.jsonl"),
    join(day, "rollout-2026-11-29T22-13-44-01a2295f-0ad6-7852-afe2-883c2e6eae7a.jsonl"),
  );
  const asmHome = join(root, "asm");
  const server = await startServer({
    asmHome,
    port: 0,
    services: [],
    routes: ROUTES,
    env: { HOME: join(root, "home"), CODEX_HOME: codexHome, ASM_HOME: asmHome },
  });
  try {
    const title = notifyEvent("notify-1795990437030646511-15591.json");
    const person = notifyEvent("notify-1795990437114762556-15595.json");
    assert.match(JSON.stringify(title.payload), /Generate a concise, single-line task title/);
    for (const e of [title, person]) {
      Deno.writeTextFileSync(join(asmHome, "inbox", `${e.event_id}.json`), JSON.stringify(e));
    }
    server.drainNow();
    assert.equal(server.ledger.session(person.asm_id)?.status, "live", "the person's thread is a row");
    assert.equal(server.ledger.session(title.asm_id), null, "the title thread is none");
    const kept = server.ledger.query("SELECT outcome FROM events WHERE id = ?", title.event_id);
    assert.match(String(kept[0]?.outcome), /^ignored: .*title/);
  } finally {
    await server.close();
    Deno.removeSync(root, { recursive: true });
  }
});
