import assert from "node:assert/strict";
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { startServer } from "../../lib/server/mod.ts";
import { ROUTES } from "../mod.ts";

const FIXTURES = Deno.env.get("ASM_FIXTURES") ??
  new URL("../../../shared/fixtures", import.meta.url).pathname;

Deno.test("a session's detail shows its conversation from its transcript, and the page draws it", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-detail-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    const dir = join(FIXTURES, "claude", "p-mode", "transcripts");
    const name = [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(".jsonl"))!.name;
    // where Claude Code keeps it: a transcript is read only inside its agent's own folders
    const transcript = join(home, ".claude", "projects", "-p", name);
    Deno.mkdirSync(join(home, ".claude", "projects", "-p"), { recursive: true });
    Deno.copyFileSync(join(dir, name), transcript);
    const e = hookEvent({ agent_session_id: name.replace(".jsonl", ""), transcript_path: transcript });
    server.ledger.applyEvent(e);

    const res = await server.api(`/api/sessions/${e.asm_id}`);
    assert.equal(res.status, 200);
    const detail = await res.json();
    assert.equal(detail.session.asm_id, e.asm_id);
    assert.equal(detail.runs.length, 1);
    const prompts = detail.messages.filter((m: { kind: string }) => m.kind === "prompt");
    assert.ok(prompts.length > 0, "the typed prompt is there");
    assert.equal(detail.note, null);

    const page = parseHTML(await (await fetch(`${server.url}/sessions/${e.asm_id}`)).text()).document;
    assert.equal(page.querySelectorAll(".msg-prompt").length, prompts.length);

    const missing = await server.api(`/api/sessions/no-such-id`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a session whose start skipped standing rules carries the note, and only its page has a Standing rules row", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-detail-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  try {
    const why =
      "standing rules skipped: /home/user/project/.asm/rules.md is a link outside the session's folder";
    const skipped = hookEvent({ agent_session_id: "rules-skipped", rules_skipped: why });
    const clean = hookEvent({ agent_session_id: "rules-applied" });
    server.ledger.applyEvent(skipped);
    server.ledger.applyEvent(clean);

    const detail = await (await server.api(`/api/sessions/${skipped.asm_id}`)).json();
    assert.equal(detail.session.rules_note, why);
    const other = await (await server.api(`/api/sessions/${clean.asm_id}`)).json();
    assert.equal(other.session.rules_note, null);

    const rulesRow = async (asmId: string) => {
      const page = parseHTML(await (await fetch(`${server.url}/sessions/${asmId}`)).text()).document;
      const term = [...page.querySelectorAll("dt")].find((dt) => dt.textContent === "Standing rules");
      return term ? term.nextElementSibling?.textContent ?? "" : null;
    };
    assert.equal(await rulesRow(skipped.asm_id), why);
    assert.equal(await rulesRow(clean.asm_id), null);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});
