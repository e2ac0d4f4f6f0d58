import assert from "node:assert/strict";
import { join } from "node:path";
import { type LaunchRow, recordLaunch } from "../../lib/ledger/mod.ts";
import { startServer } from "../../lib/server/mod.ts";
import { actionRoutes } from "./actions.ts";

function world() {
  const root = Deno.makeTempDirSync({ prefix: "asm-actions-route-test-" });
  const asmHome = join(root, "asm");
  const env = {
    HOME: root,
    ASM_HOME: asmHome,
    PATH: "/usr/bin:/bin",
    ASM_TMUX_SOCKET: join(root, "tmux.sock"),
  };
  const server = startServer({ asmHome, port: 0, env, routes: actionRoutes, services: [] });
  const post = async (path: string, body: string, token = server.token) => {
    const res = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body,
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    root,
    server,
    post,
    async [Symbol.asyncDispose]() {
      await server.close();
      Deno.removeSync(root, { recursive: true });
    },
  };
}

Deno.test("every action is a POST whose refusal is a sentence with a 4xx status", async () => {
  await using w = world();
  assert.deepEqual(await w.post("/api/sessions/nope/end", ""), {
    status: 404,
    body: { error: "asm has no session nope" },
  });
  assert.deepEqual(await w.post("/api/launch", "{not json"), {
    status: 400,
    body: { error: "the request body is not JSON" },
  });
  assert.deepEqual(await w.post("/api/launch", "[1]"), {
    status: 400,
    body: { error: "the request body must be a JSON object" },
  });
  const unknown = await w.post("/api/launch", JSON.stringify({ agent: "nobody", folder: w.root }));
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.error, /"nobody" is not an agent asm knows/);
  const missing = await w.post("/api/launch", JSON.stringify({ agent: "claude", folder: w.root }));
  assert.deepEqual(missing, {
    status: 409,
    body: { error: 'Claude Code is not installed here: there is no "claude" on PATH' },
  });
  // two lines would press Enter in the middle: refused before the session is even looked for
  const send = await w.post("/api/sessions/nope/send", JSON.stringify({ text: "ls\nrm" }));
  assert.equal(send.status, 400);
  const unknownSession = await w.post("/api/sessions/nope/send", JSON.stringify({ text: "ls" }));
  assert.equal(unknownSession.status, 404, "free text is typed, into a session asm knows");
});

Deno.test("an action without the install token is refused before it runs", async () => {
  await using w = world();
  const res = await w.post("/api/sessions/nope/end", "", "0".repeat(64));
  assert.equal(res.status, 401, "a wrong key is refused before the route looks for the session");
});

Deno.test("GET /api/launches lists the launches still waiting for their session, with what they wait on", async () => {
  await using w = world();
  recordLaunch(w.server.ledger, {
    token: "asmlt_waiting",
    agent: "claude",
    kind: "launch",
    cwd: w.root,
    name: null,
    model: null,
    script_path: join(w.root, "asmlt_waiting.sh"),
    prompt_path: null,
    requested_at: "2026-11-29T22:00:00.000Z",
    continues_asm_id: null,
    resumes_asm_id: null,
    waiting_reason: "Claude Code asks whether you trust this folder; answer in its window",
    host: "tmux",
  });
  const body = await (await w.server.api(`/api/launches`)).json();
  assert.deepEqual(body.pending.map((l: LaunchRow) => [l.token, l.waiting_reason]), [[
    "asmlt_waiting",
    "Claude Code asks whether you trust this folder; answer in its window",
  ]]);
  assert.deepEqual(body.recent.map((l: LaunchRow) => l.token), ["asmlt_waiting"]);
});
