import assert from "node:assert/strict";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { hookEvent } from "../../lib/ledger/_test_utils.ts";
import { bootId, identityOf } from "../../lib/procs/mod.ts";
import { startServer } from "../../lib/server/mod.ts";
import { testTmux, waitFor } from "../../lib/launch/_test_utils.ts";
import { ROUTES } from "../mod.ts";

/** A stand-in agent whose process is the shell in the pane (so asm proves it like any agent's). */
const AGENTS_TOML = `
[shellagent]
display = "Shell Agent"
tag = "shellagent"
adapter = "claude"
tested = false
exe = ["**/dash", "**/bash"]
script = []
shared = false
session_env = ""
pid_env = ""
entrypoint_env = ""
inject = "none"
keep_copies = false
command = "sh"
one_shot = ["{prompt}"]
interrupt_key = "C-c"
[shellagent.events]
SessionStart = "SessionStart"
`;

/** A server whose terminal host is a tmux server of the test's own, and one session in a pane of it. */
async function world(script: string) {
  const home = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-terminal-" }));
  Deno.writeTextFileSync(join(home, "agents.toml"), AGENTS_TOML);
  const tmux = testTmux();
  const env = { ...Deno.env.toObject(), HOME: home, ASM_TMUX_SOCKET: tmux.socketPath };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  const opened = await tmux.host.open({ name: "shell", argv: ["sh", "-c", script] });
  const id = identityOf(opened.panePid)!;
  const event = hookEvent({
    agent: "shellagent",
    agent_session_id: `shell-${opened.panePid}`,
    agent_pid: opened.panePid,
    agent_proc_start: id.procStart,
    boot_id: bootId(),
    ts: new Date().toISOString(),
  });
  server.ledger.applyEvent(event);
  return {
    server,
    tmux,
    pane: opened.paneId,
    asmId: event.asm_id,
    async [Symbol.asyncDispose]() {
      await server.close();
      await tmux[Symbol.asyncDispose]();
      Deno.removeSync(home, { recursive: true });
    },
  };
}

/** The stream's lines, read as they come. */
function lines(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  return {
    async next(): Promise<Record<string, unknown>> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        if (Date.now() > deadline) throw new Error("the stream said nothing for 30 s");
        const nl = pending.indexOf("\n");
        if (nl !== -1) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          return JSON.parse(line);
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const { value, done } = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error("the stream said nothing for 30 s")),
              deadline - Date.now(),
            );
          }),
        ]).finally(() => clearTimeout(timer));
        if (done) throw new Error("the stream ended");
        pending += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

const text = (b64: unknown) => Buffer.from(String(b64), "base64").toString("utf8");

Deno.test("no token, a foreign Origin, a session not running or unknown: no stream, each with its sentence", async () => {
  await using w = await world("read a; read b");
  const noToken = await fetch(`${w.server.url}/api/terminal?session=${w.asmId}`);
  assert.equal(noToken.status, 401);
  await noToken.body?.cancel();
  const foreign = await w.server.api(`/api/terminal?session=${w.asmId}`, {
    headers: { origin: "http://evil.example" },
  });
  assert.equal(foreign.status, 403);
  await foreign.body?.cancel();
  for (
    const [query, status, why] of [
      ["", 400, /name what to show/],
      ["session=nope", 404, /asm has no session nope/],
      ["launch=nope", 404, /asm has no launch nope/],
    ] as const
  ) {
    const res = await w.server.api(`/api/terminal?${query}`);
    assert.equal(res.status, status, query);
    assert.match((await res.json()).error, why);
  }
  const keys = await w.server.api(`/api/terminal/not-a-view/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: "Enter" }),
  });
  assert.equal(keys.status, 404);
  assert.match((await keys.json()).error, /no such view/);

  // opens at the same moment are counted from the first: at most 8 views, the rest told why
  const opens = await Promise.all(
    Array.from({ length: 12 }, () => w.server.api(`/api/terminal?session=${w.asmId}`)),
  );
  const statuses = opens.map((r) => r.status).sort();
  console.log(
    `12 views asked at once: ${statuses.filter((s) => s === 200).length} opened, ${
      statuses.filter((s) => s === 503).length
    } refused`,
  );
  assert.equal(statuses.filter((s) => s === 200).length, 8);
  assert.equal(statuses.filter((s) => s === 503).length, 4);
  const first = lines(opens.find((r) => r.status === 200)!);
  const view = (await first.next()).view;
  for (const name of ["constructor", "toString", "__proto__", "Up"]) {
    const res = await w.server.api(`/api/terminal/${view}/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: name }),
    });
    assert.equal(res.status, 400, name);
    await res.body?.cancel();
  }
  await first.cancel();
  for (const r of opens) {
    if (r.status !== 200 || r !== opens.find((o) => o.status === 200)) await r.body?.cancel();
  }
});

Deno.test("10 MB through a session's pane while its page reads nothing: the server's memory stays flat, and the view catches up", async () => {
  await using w = await world(
    "read go; head -c 10000000 /dev/zero | tr '\\0' x; printf '\\nflood-over\\n'; read wait",
  );
  const res = await w.server.api(`/api/terminal?session=${w.asmId}`);
  assert.equal(res.status, 200);
  const stream = lines(res);
  try {
    const hello = await stream.next();
    assert.equal(typeof hello.view, "string");
    assert.equal(hello.interrupt, "C-c", "the agent's own interrupt key");
    assert.match(String(hello.attach), /^tmux -S \S+ attach-session -t @\d+$/);
    const paint = await stream.next();
    assert.ok("paint" in paint, JSON.stringify(paint).slice(0, 200));
    const post = (body: unknown) =>
      w.server.api(`/api/terminal/${hello.view}/keys`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const before = Deno.memoryUsage().rss;
    const go = await post({ bytes: Buffer.from("\r").toString("base64") });
    assert.equal(go.status, 200, await go.text());
    await waitFor(
      async () => (await w.tmux.tmux(["capture-pane", "-p", "-t", w.pane])).out.includes("flood-over"),
      "the flood ended in the pane",
      { timeoutMs: 60_000 },
    );
    const grew = Math.round((Deno.memoryUsage().rss - before) / 1e6);
    console.log(`10 MB through the pane, the page reading nothing: server RSS +${grew} MB`);
    assert.ok(grew < 100, `the server's memory stayed flat (+${grew} MB)`);
    // the page reads again: it catches up to what the pane shows now
    let seen = "";
    let received = 0;
    const deadline = Date.now() + 30_000;
    while (!seen.includes("flood-over") && Date.now() < deadline) {
      const m = await stream.next();
      const shown = m.paint ?? m.out;
      if (shown === undefined) continue;
      received += String(shown).length;
      seen = (seen + text(shown)).slice(-100_000);
    }
    assert.match(seen, /flood-over/);
    console.log(`the page caught up on ${Math.round(received / 1e3)} kB of base64, not the 10 MB backlog`);
    // all of it would be 13.3 MB of base64; what the sockets already held comes through, the rest was dropped
    assert.ok(received < 10_000_000, `the backlog was dropped, not kept (${received} bytes sent)`);
    // its interrupt key reaches the pane: ^C ends the shell's read, and with it the session's process
    const stop = await post({ key: "interrupt" });
    assert.equal(stop.status, 200);
    await waitFor(
      async () => !(await w.tmux.host.panes()).some((p) => p.paneId === w.pane),
      "the interrupt key ended the shell",
    );
  } finally {
    await stream.cancel();
  }
});
