import assert from "node:assert/strict";
import { join } from "node:path";
import { isSameProcess, listenerOn, pidsHolding } from "../procs/mod.ts";
import { acquireWriterLock, currentHolder, type LockHolder } from "../server/lock.ts";
import { planRestart } from "./restart.ts";
import { asm, servedHome, spawnServe, until } from "./_test_utils.ts";

const HOLDER: LockHolder = {
  pid: 4242,
  proc_start: 1,
  boot_id: "b",
  port: 7777,
  mode: "serve",
  started_at: "2026-12-01T00:00:00.000Z",
};

Deno.test("the restart stops only a listener that the data folder's lock names as its server", () => {
  assert.deepEqual(planRestart({ port: 7777, holder: HOLDER, owners: [4242] }), {
    kind: "stop-then-start",
    pid: 4242,
  });
  assert.deepEqual(planRestart({ port: 7777, holder: null, owners: null }), { kind: "start" });
  const stranger = planRestart({ port: 7777, holder: null, owners: [99] });
  assert.equal(stranger.kind, "refuse");
  assert.match(stranger.kind === "refuse" ? stranger.why : "", /^port 7777 is held by pid 99, which is not/);
  const other = planRestart({ port: 7777, holder: HOLDER, owners: [99] });
  assert.match(other.kind === "refuse" ? other.why : "", /this data folder's server is pid 4242/);
  const hidden = planRestart({ port: 7777, holder: null, owners: [] });
  assert.match(hidden.kind === "refuse" ? hidden.why : "", /held by a process asm cannot see/);
  const draining = planRestart({
    port: 7777,
    holder: { ...HOLDER, mode: "drain", port: null },
    owners: null,
  });
  assert.match(
    draining.kind === "refuse" ? draining.why : "",
    /holds this data folder's lock but nothing listens/,
  );
});

Deno.test("the restart proves its process by tables, never by a command line", () => {
  const source = Deno.readTextFileSync(new URL("./restart.ts", import.meta.url));
  for (const word of [/cmdline/, /argv/, /\bpgrep\b/, /\bpkill\b/, /"ps"/]) {
    assert.ok(!word.test(source), `restart.ts never uses ${word}`);
  }
});

Deno.test("asm restart against a running server: a new pid owns config.toml's port, the old one is gone, one server", async () => {
  const { root, asmHome, port, env } = servedHome("asm-restart-");
  const first = spawnServe(env);
  let newPid: number | null = null;
  try {
    const old = await until("the first server", () => {
      const h = currentHolder(asmHome);
      return h && h.port === port ? h : null;
    });
    assert.equal(old.board_mode, "testing");
    const restarted = await asm(["restart"], env);
    assert.equal(restarted.code, 0, restarted.text);
    const now = currentHolder(asmHome)!;
    newPid = now.pid;
    assert.notEqual(now.pid, old.pid);
    assert.equal(isSameProcess({ pid: old.pid, procStart: old.proc_start, bootId: old.boot_id }), false);
    assert.equal((await first.status).code, 0, "the old server stopped cleanly on SIGTERM");
    const listener = listenerOn(port);
    assert.ok(listener, "something listens on the port");
    assert.deepEqual(pidsHolding(listener.inode), [now.pid], "the new server alone owns the port");
    assert.equal(now.board_mode, "testing", "the same kind of server was started");
    assert.equal(
      restarted.text,
      `stopped the server on port ${port} (pid ${old.pid})\nasm is serving on http://127.0.0.1:${port} (pid ${now.pid}; ` +
        `its output goes to ${join(asmHome, "serve.out")})\n`,
    );
    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    assert.equal((await health.json()).ok, true);

    // a second server on the same data folder is refused by the lock; the port's owner stays
    const second = await asm(["serve", "--port", "0"], env);
    assert.equal(second.code, 1);
    assert.match(second.text, new RegExp(`asm is already running \\(pid ${now.pid}, port ${port}\\)`));
  } finally {
    if (newPid !== null) {
      Deno.kill(newPid, "SIGTERM");
      await until("the new server to stop", () => currentHolder(asmHome) === null ? true : null);
    }
    try {
      first.kill("SIGTERM");
    } catch { /* already gone */ }
    await first.status;
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("asm restart refuses a port held by a process that is not this data folder's server, and leaves it", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-restart-" }));
  const home = join(root, "home");
  const asmHome = join(home, ".asm");
  Deno.mkdirSync(asmHome, { recursive: true });
  const stranger = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (stranger.addr as Deno.NetAddr).port;
  Deno.writeTextFileSync(join(asmHome, "config.toml"), `port = ${port}\n`);
  try {
    const out = await asm(["restart"], { HOME: home, ASM_HOME: asmHome, PATH: Deno.env.get("PATH") ?? "" });
    assert.equal(out.code, 1);
    assert.equal(
      out.text,
      `asm restart: port ${port} is held by pid ${Deno.pid}, which is not this data folder's asm server (no live ` +
        "lock names it); asm restart stops only its own server: stop that process yourself or choose another port\n",
    );
    assert.deepEqual(pidsHolding(listenerOn(port)!.inode), [Deno.pid], "the stranger still listens");
  } finally {
    stranger.close();
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a server that cannot bind its port exits non-zero with one sentence and one log line", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-bind-" }));
  const asmHome = join(root, "home", ".asm");
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  try {
    const out = await asm(["serve", "--port", String(port), "--testing"], {
      HOME: join(root, "home"),
      ASM_HOME: asmHome,
      PATH: Deno.env.get("PATH") ?? "",
    });
    assert.equal(out.code, 1);
    const sentence =
      `port ${port} is already taken by pid ${Deno.pid} (deno); stop it or choose another port with --port N`;
    assert.equal(out.text, `asm serve: ${sentence}\n`);
    const lines = Deno.readTextFileSync(join(asmHome, "server.log")).trim().split("\n").map((l) =>
      JSON.parse(l)
    )
      .filter((l) => l.what === "serve failed to bind");
    assert.deepEqual(lines.map((l) => [l.port, l.error]), [[port, sentence]]);
  } finally {
    taken.close();
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("asm stop stops the server its lock names and frees the port; with nothing running it says so", async () => {
  const { root, asmHome, port, env } = servedHome("asm-stop-");
  const server = spawnServe(env);
  try {
    const holder = await until("the server", () => {
      const h = currentHolder(asmHome);
      return h && h.port === port ? h : null;
    });
    const stopped = await asm(["stop"], env);
    assert.equal(stopped.code, 0, stopped.text);
    assert.equal(stopped.text, `stopped the server on port ${port} (pid ${holder.pid})\n`);
    assert.equal((await server.status).code, 0, "it ended cleanly on SIGTERM");
    assert.equal(currentHolder(asmHome), null, "the lock is released");
    assert.equal(listenerOn(port), null, "nothing listens on the port");
    const again = await asm(["stop"], env);
    assert.deepEqual([again.code, again.text], [0, `asm is not running for ${asmHome}\n`]);
  } finally {
    try {
      server.kill("SIGTERM");
    } catch { /* already gone */ }
    await server.status;
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("asm stop leaves an import that holds the lock to finish, and says so in one sentence", async () => {
  const { root, asmHome, env } = servedHome("asm-stop-import-");
  // this test process holds the data folder as an `asm import` would
  const lock = acquireWriterLock(asmHome, { mode: "import" });
  try {
    const refused = await asm(["stop"], env);
    assert.deepEqual([refused.code, refused.text], [
      1,
      `asm stop: asm import (pid ${Deno.pid}) holds ${asmHome} and ends by itself; asm stop stops only its ` +
      "server\n",
    ]);
    assert.equal(currentHolder(asmHome)?.pid, Deno.pid, "the import's lock is left alone");
  } finally {
    lock.release();
    Deno.removeSync(root, { recursive: true });
  }
});
