import assert from "node:assert/strict";
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { hookEvent } from "../../lib/ledger/test_events.ts";
import { startServer } from "../../lib/server/app.ts";

const FIXTURES = Deno.env.get("ASM_FIXTURES") ??
  new URL("../../../shared/fixtures", import.meta.url).pathname;

Deno.test("a session's detail shows its conversation from its transcript, and the page draws it", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-detail-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env });
  try {
    const dir = join(FIXTURES, "claude", "p-mode", "transcripts");
    const name = [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(".jsonl"))!.name;
    const transcript = join(home, name);
    Deno.copyFileSync(join(dir, name), transcript);
    const e = hookEvent({ agent_session_id: name.replace(".jsonl", ""), transcript_path: transcript });
    server.ledger.applyEvent(e);

    const res = await fetch(`${server.url}/api/sessions/${e.asm_id}`);
    assert.equal(res.status, 200);
    const detail = await res.json();
    assert.equal(detail.session.asm_id, e.asm_id);
    assert.equal(detail.runs.length, 1);
    const prompts = detail.messages.filter((m: { kind: string }) => m.kind === "prompt");
    assert.ok(prompts.length > 0, "the typed prompt is there");
    assert.equal(detail.note, null);

    const page = parseHTML(await (await fetch(`${server.url}/sessions/${e.asm_id}`)).text()).document;
    assert.equal(page.querySelectorAll(".msg-prompt").length, prompts.length);

    const missing = await fetch(`${server.url}/api/sessions/no-such-id`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});
