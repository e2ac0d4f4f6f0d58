import assert from "node:assert/strict";
import { join } from "node:path";
import { startServer } from "../server/mod.ts";
import { actionCli, actionRequest } from "./cli.ts";
import { ROUTES } from "../../routes/mod.ts";

function tempHome() {
  const root = Deno.makeTempDirSync({ prefix: "asm-cli-test-" });
  return {
    root,
    env: { HOME: root, ASM_HOME: join(root, "asm") },
    [Symbol.dispose]: () => Deno.removeSync(root, { recursive: true }),
  };
}

Deno.test("each verb becomes the POST the page sends, a resume without --model carrying no model key", () => {
  assert.deepEqual(
    actionRequest("launch", ["--agent", "claude", "--prompt", "-x y", "--folder", "p"], "/w"),
    {
      path: "/api/launch",
      body: { agent: "claude", folder: "/w/p", model: null, name: null, prompt: "-x y" },
    },
  );
  assert.deepEqual(actionRequest("resume", ["abc"], "/w"), {
    path: "/api/sessions/abc/resume",
    body: { prompt: null },
  });
  assert.deepEqual(actionRequest("resume", ["abc", "--model", "m"], "/w").body, { model: "m", prompt: null });
  assert.deepEqual(actionRequest("continue", ["abc", "--agent", "codex"], "/w"), {
    path: "/api/sessions/abc/continue",
    body: { agent: "codex", prompt: null, model: null },
  });
  assert.deepEqual(actionRequest("send", ["abc", "/compact now"], "/w"), {
    path: "/api/sessions/abc/send",
    body: { text: "/compact now" },
  });
  assert.deepEqual(actionRequest("end", ["a/b"], "/w").path, "/api/sessions/a%2Fb/end");
});

Deno.test("without a running server every verb refuses with the sentence to start ./asm serve", async () => {
  using h = tempHome();
  const lines: string[] = [];
  assert.equal(await actionCli("end", ["abc"], { env: h.env, print: (l) => lines.push(l) }), 1);
  assert.match(lines.join("\n"), /asm is not running .*start it with \.\/asm serve/);
});

Deno.test("arguments that do not fit are a usage error naming what is missing", async () => {
  using h = tempHome();
  const lines: string[] = [];
  assert.equal(await actionCli("launch", [], { env: h.env, print: (l) => lines.push(l) }), 2);
  assert.match(lines[0], /launch needs --agent/);
  assert.equal(await actionCli("send", ["abc"], { env: h.env, print: (l) => lines.push(l) }), 2);
  assert.equal(await actionCli("end", ["abc", "extra"], { env: h.env, print: (l) => lines.push(l) }), 2);
});

Deno.test("with a server running, a verb reaches its route with the install token and prints the refusal", async () => {
  using h = tempHome();
  const server = startServer({ asmHome: h.env.ASM_HOME, port: 0, env: h.env, services: [], routes: ROUTES });
  try {
    const lines: string[] = [];
    assert.equal(await actionCli("end", ["no-such-session"], { env: h.env, print: (l) => lines.push(l) }), 1);
    assert.deepEqual(lines, ["asm end: asm has no session no-such-session"]);
  } finally {
    await server.close();
  }
});
