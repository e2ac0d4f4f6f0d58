import assert from "node:assert/strict";
import { join } from "node:path";
import { startServer } from "../server/mod.ts";
import { asmIdOf, type HookEvent } from "../ledger/mod.ts";
import { actionCli, actionRequest, attachCommand, startWords } from "./actions.ts";
import { ROUTES } from "../../routes/mod.ts";

function tempHome() {
  const root = Deno.makeTempDirSync({ prefix: "asm-cli-test-" });
  return {
    root,
    env: { HOME: root, ASM_HOME: join(root, "asm") },
    [Symbol.dispose]: () => Deno.removeSync(root, { recursive: true }),
  };
}

/** A hook event as the hook writes it, for a session the ledger then holds. */
function hookEvent(agent: string, agentSessionId: string, event: string, n: number): HookEvent {
  return {
    v: 1,
    event_id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    asm_id: asmIdOf(agent, agentSessionId),
    agent,
    event,
    raw_event: null,
    ts: `2026-11-29T22:00:0${n}.000Z`,
    agent_session_id: agentSessionId,
    transcript_path: null,
    cwd: "/home/user/project",
    source: null,
    launch_token: null,
    session_name: null,
    agent_pid: null,
    agent_proc_start: null,
    boot_id: null,
    ancestors: [],
    nested: false,
    entrypoint: null,
    pid_shared: false,
    hook_ms: 1,
    payload: {},
  };
}

Deno.test("each verb becomes the POST the page sends, a resume without --model carrying no model key", () => {
  assert.deepEqual(
    actionRequest({ verb: "launch", agent: "claude", prompt: "-x y", folder: "p" }, "/w"),
    {
      path: "/api/launch",
      body: { agent: "claude", folder: "/w/p", model: null, name: null, prompt: "-x y" },
    },
  );
  assert.deepEqual(actionRequest({ verb: "launch", agent: "codex" }, "/w").body.folder, "/w");
  assert.deepEqual(actionRequest({ verb: "resume", session: "abc" }, "/w"), {
    path: "/api/sessions/abc/resume",
    body: { prompt: null },
  });
  assert.deepEqual(actionRequest({ verb: "resume", session: "abc", model: "m" }, "/w").body, {
    model: "m",
    prompt: null,
  });
  assert.deepEqual(actionRequest({ verb: "continue", session: "abc", agent: "codex" }, "/w"), {
    path: "/api/sessions/abc/continue",
    body: { agent: "codex", prompt: null, model: null },
  });
  assert.deepEqual(actionRequest({ verb: "send", session: "abc", text: "/compact now" }, "/w"), {
    path: "/api/sessions/abc/send",
    body: { text: "/compact now" },
  });
  assert.deepEqual(actionRequest({ verb: "end", session: "a/b" }, "/w").path, "/api/sessions/a%2Fb/end");
});

Deno.test("the attach command names the tmux server ASM_TMUX_SOCKET names, quoted for a shell", () => {
  assert.equal(attachCommand("@3", {}), "tmux attach -t @3");
  assert.equal(attachCommand("@3", { socketName: "asm-x" }), "tmux -L asm-x attach -t @3");
  assert.equal(
    attachCommand("@12", { socketPath: "/tmp/my dir/s" }),
    "tmux -S '/tmp/my dir/s' attach -t @12",
  );
});

Deno.test("a start is told in words: the agent, the folder, the window and how to attach", () => {
  const record = {
    token: "asmlt_abc",
    kind: "launch",
    agent: "claude",
    folder: "/home/user/project",
    host: "tmux",
    window_id: "@7",
    pane_id: "%9",
    waiting_reason: "its folder-trust dialog",
    resumes_asm_id: null,
    continues_asm_id: null,
  };
  assert.deepEqual(startWords(record, { socketPath: "/run/t.sock" }), [
    "launched claude in /home/user/project",
    "  window @7 of tmux (launch asmlt_abc)",
    "  attach: tmux -S /run/t.sock attach -t @7",
    "  waiting on you in the window: its folder-trust dialog",
    "  the session is listed by asm sessions once the agent reports its start",
  ]);
  const resumed = startWords({ ...record, waiting_reason: null, resumes_asm_id: "3f2a9c1e-0000" }, {});
  assert.equal(resumed[0], "resumed claude session 3f2a9c1e in /home/user/project");
  assert.equal(resumed.length, 3);
  const continued = startWords({ ...record, agent: "codex", continues_asm_id: "77c0ffee-1111" }, {});
  assert.equal(continued[0], "continued session 77c0ffee with codex in /home/user/project");
});

Deno.test("without a running server every verb refuses with the sentence to start ./asm serve", async () => {
  using h = tempHome();
  const lines: string[] = [];
  assert.equal(
    await actionCli({ verb: "end", session: "abc" }, { env: h.env, print: (l) => lines.push(l) }),
    1,
  );
  assert.match(lines.join("\n"), /asm is not running .*start it with asm serve/);
});

Deno.test("with a server running, an id prefix resolves to the session and its route answers with the install token", async () => {
  using h = tempHome();
  const server = startServer({ asmHome: h.env.ASM_HOME, port: 0, env: h.env, services: [], routes: ROUTES });
  try {
    server.ledger.applyEvent(hookEvent("claude", "own-session-1", "SessionStart", 1));
    server.ledger.applyEvent(hookEvent("claude", "own-session-1", "SessionEnd", 2));
    const asmId = asmIdOf("claude", "own-session-1");
    for (const ref of [asmId.slice(0, 8), "own-session-1"]) {
      const lines: string[] = [];
      const code = await actionCli({ verb: "end", session: ref }, {
        env: h.env,
        print: (l) => lines.push(l),
      });
      // the server found the session by its full id: its refusal is about the session's state
      assert.deepEqual([code, lines], [1, [
        "asm end: this session is not running (it is ended); there is nothing to end",
      ]]);
    }
  } finally {
    await server.close();
  }
});

Deno.test("an ambiguous or unknown id is refused before the server is asked, the candidates named", async () => {
  using h = tempHome();
  const server = startServer({ asmHome: h.env.ASM_HOME, port: 0, env: h.env, services: [], routes: ROUTES });
  try {
    // two sessions whose agents' own ids begin alike: "own-" begins no asm id, so it is looked up among those
    server.ledger.applyEvent(hookEvent("claude", "own-a", "SessionStart", 1));
    server.ledger.applyEvent(hookEvent("codex", "own-b", "SessionStart", 2));
    const a = asmIdOf("claude", "own-a");
    const lines: string[] = [];
    const print = (l: string) => lines.push(l);
    assert.equal(await actionCli({ verb: "focus", session: "own-" }, { env: h.env, print }), 1);
    assert.match(
      lines[0],
      new RegExp(`^asm focus: "own-" begins the ids of 2 sessions: .*${a} \\(claude\\)`),
    );
    assert.equal(await actionCli({ verb: "focus", session: "zzzz" }, { env: h.env, print }), 1);
    assert.equal(
      lines[1],
      'asm focus: no session has an id that is or begins with "zzzz"; asm sessions --all lists them',
    );
  } finally {
    await server.close();
  }
});
