import assert from "node:assert/strict";
import { join } from "node:path";
import { unrecordedStop } from "./lifecycle.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;

function lines(...entries: Record<string, unknown>[]): string {
  return entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

Deno.test("a listening server with no stop line after it is named by the next start; one that stopped is not", () => {
  const killed = lines(
    { ts: "2026-12-04T10:00:00.000Z", what: "listening", port: 7777, pid: 41 },
    { ts: "2026-12-04T10:00:01.000Z", what: "drain", listed: 1 },
  );
  assert.deepEqual(
    [unrecordedStop(killed, 99)?.what, unrecordedStop(killed, 99)?.pid],
    ["previous server stopped without a word", 41],
  );
  const stopped = killed +
    lines({ what: "stopping", pid: 41, cause: "signal SIGTERM" }, { what: "stopped", pid: 41 });
  assert.equal(unrecordedStop(stopped, 99), null);
  // a stop line of ANOTHER process (a CLI writing the same log) does not speak for the server
  assert.equal(unrecordedStop(killed + lines({ what: "process exiting", pid: 42 }), 99)?.pid, 41);
  // the starting process's own lines (a test starting servers in one process) are never a predecessor
  assert.equal(unrecordedStop(killed, 41), null);
  // a cut line and a later clean start and stop: only the last server counts
  const later = killed + '{"what":"listen' + "\n" +
    lines({ what: "listening", pid: 50 }, { what: "stopped", pid: 50 });
  assert.equal(unrecordedStop(later, 99), null);
  assert.equal(unrecordedStop("", 99), null);
});

interface Served {
  home: string;
  child: Deno.ChildProcess;
  log(): Record<string, unknown>[];
}

async function serve(home: string): Promise<Served> {
  const env = {
    ...Deno.env.toObject(),
    ASM_HOME: home,
    HOME: home,
    CODEX_HOME: `${home}/.codex`,
    GEMINI_CLI_HOME: home,
  };
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--node-modules-dir=manual", MAIN, "serve", "--testing", "--port", "0"],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const log = () => {
    try {
      return Deno.readTextFileSync(join(home, "server.log")).split("\n").filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  };
  const deadline = Date.now() + 30_000;
  while (!log().some((l) => l.what === "listening" && l.pid === child.pid)) {
    if (Date.now() > deadline) throw new Error("the server never logged that it listens");
    await new Promise((r) => setTimeout(r, 100));
  }
  return { home, child, log };
}

Deno.test("a server stopped by SIGTERM or SIGHUP logs the signal, its stop and its exit; one SIGKILLed is named by the next start", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-lifecycle-" });
  try {
    for (const signal of ["SIGTERM", "SIGHUP"] as const) {
      const server = await serve(home);
      server.child.kill(signal);
      const status = await server.child.status;
      assert.equal(status.code, 0, `${signal}: a clean exit`);
      const own = server.log().filter((l) => l.pid === server.child.pid).map((
        l,
      ) => [l.what, l.cause ?? null]);
      assert.deepEqual(own.slice(-3), [
        ["stopping", `signal ${signal}`],
        ["stopped", null],
        ["process exiting", `signal ${signal}`],
      ], `${signal}: the server's last three lines`);
    }
    const killed = await serve(home);
    killed.child.kill("SIGKILL");
    await killed.child.status;
    const next = await serve(home);
    try {
      const said = next.log().find((l) => l.what === "previous server stopped without a word");
      assert.equal(said?.pid, killed.child.pid, "the SIGKILLed server is named, by its pid");
      const order = next.log().map((l) => l.what);
      assert.ok(
        order.lastIndexOf("previous server stopped without a word") < order.lastIndexOf("listening"),
        "named before the new start",
      );
    } finally {
      next.child.kill("SIGTERM");
      await next.child.status;
    }
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a SIGTERM while the server is still starting closes it once started, with its lines", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-lifecycle-" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--node-modules-dir=manual", MAIN, "serve", "--testing", "--port", "0"],
      env: { ...Deno.env.toObject(), ASM_HOME: home, HOME: home, CODEX_HOME: `${home}/.codex` },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    // the writer lock is taken inside the start, after the listeners are in place and before it is serving
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        if (JSON.parse(Deno.readTextFileSync(join(home, "server.lock"))).pid === child.pid) break;
      } catch {
        // not written yet
      }
      if (Date.now() > deadline) throw new Error("the server never took its lock");
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0, "a clean exit");
    const own = Deno.readTextFileSync(join(home, "server.log")).split("\n").filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l)).filter((l) => l.pid === child.pid && l.what !== "listening")
      .map((l) => [l.what, l.cause ?? null]);
    assert.deepEqual(own, [
      ["stopping", "signal SIGTERM"],
      ["stopped", null],
      ["process exiting", "signal SIGTERM"],
    ]);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a serving process whose route handler throws outside the request logs it and goes on; Deno.exit logs its line", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-lifecycle-" });
  try {
    const server = new URL("./mod.ts", import.meta.url).href;
    const source = `import { keepServingThroughUncaught, startServer, stopOnSignals, json } from ${
      JSON.stringify(server)
    };
const running = await startServer({
  asmHome: ${JSON.stringify(home)},
  port: 0,
  mode: "testing",
  routes: [{ method: "GET", pattern: "/api/boom", handle: () => {
    setTimeout(() => { throw new Error("a handler's timer threw"); }, 0);
    return json({ ok: true });
  } }],
});
keepServingThroughUncaught(running.context.log);
stopOnSignals(running.context.log).serving(running);
const first = await running.api("/api/boom");
await first.body?.cancel();
await new Promise((r) => setTimeout(r, 200));
const health = await running.api("/api/boom");
console.log(String(health.status));
await health.body?.cancel();
Deno.exit(3);
`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--quiet", "--node-modules-dir=manual", "--frozen", "--ext=ts", source],
      cwd: ROOT,
      env: { ...Deno.env.toObject(), ASM_HOME: home, HOME: home, CODEX_HOME: `${home}/.codex` },
      stderr: "piped",
    }).output();
    assert.equal(out.code, 3, new TextDecoder().decode(out.stderr));
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "200", "the server answered after the throw");
    const log = Deno.readTextFileSync(join(home, "server.log")).split("\n").filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
    const thrown = log.find((l) => l.what === "uncaught error kept the server up");
    assert.equal(thrown?.error, "a handler's timer threw");
    const last = log.at(-1);
    assert.deepEqual([last?.what, last?.cause], ["process exiting", "Deno.exit, with no cause recorded"]);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
