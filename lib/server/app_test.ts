import assert from "node:assert/strict";
import { join } from "node:path";
import { hookEvent } from "../ledger/_test_utils.ts";
import { StartRefused, startServer } from "./app.ts";
import { ROUTES } from "../../routes/mod.ts";
import { SERVICES } from "./services.ts";
import { waitFor } from "./_test_utils.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function rawGet(port: number, path: string, host: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
  );
  let text = "";
  const buf = new Uint8Array(4096);
  for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  return text;
}

Deno.test("the server binds 127.0.0.1, reports its health and drains the inbox on its own timer", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-server-" });
  const server = await startServer({
    asmHome: home,
    port: 0,
    drainEveryMs: 100,
    services: [],
    routes: ROUTES,
  });
  try {
    const health = await (await server.api(`/api/health`)).json();
    assert.equal(health.ok, true);
    assert.equal(health.port, server.port);
    assert.equal(health.pid, Deno.pid);
    assert.equal(health.tasks[0].name, "drain");
    const e = hookEvent({ cwd: "/home/user/work" });
    Deno.writeTextFileSync(join(home, "inbox", `${e.event_id}.json`), JSON.stringify(e));
    const counts = await waitFor("the drain", async () => {
      const h = await (await server.api(`/api/health`)).json();
      return h.counts.sessions === 1 ? h.counts : null;
    });
    assert.equal(counts.events, 1);
    assert.equal(server.ledger.session(e.asm_id)?.status, "live");
  } finally {
    await server.close();
  }
  // closing releases the lock: a new server can start on the same data folder
  const again = await startServer({ asmHome: home, port: 0, services: [], routes: ROUTES });
  await again.close();
  Deno.removeSync(home, { recursive: true });
});

Deno.test("a request with a foreign Host is refused (DNS rebinding)", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-server-" });
  const server = await startServer({ asmHome: home, port: 0, services: [], routes: ROUTES });
  try {
    // fetch() will not send a foreign Host header, so speak HTTP over a plain socket
    assert.match(await rawGet(server.port, "/api/health", `evil.example:${server.port}`), /^HTTP\/1\.1 403/);
    assert.match(await rawGet(server.port, "/api/health", `127.0.0.1:${server.port + 1}`), /^HTTP\/1\.1 403/);
    const ok = await fetch(`http://localhost:${server.port}/api/health`);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a second server on the same ASM_HOME refuses with a sentence naming the first one's pid and port", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-server-" });
  // temporary agent homes too: a real server imports the agents' history at start
  const env = {
    ...Deno.env.toObject(),
    ASM_HOME: home,
    HOME: home,
    CODEX_HOME: `${home}/.codex`,
    GEMINI_CLI_HOME: home,
  };
  const first = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--node-modules-dir=manual", MAIN, "serve", "--port", "0"],
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    const lock = await waitFor("the first server's lock", () => {
      try {
        const l = JSON.parse(Deno.readTextFileSync(join(home, "server.lock")));
        return l.port ? l : null;
      } catch {
        return null;
      }
    });
    assert.equal(lock.pid, first.pid);
    // a different port: the refusal comes from the lock, not from a port collision
    const second = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--node-modules-dir=manual", MAIN, "serve", "--port", "0"],
      env,
    }).output();
    const err = new TextDecoder().decode(second.stderr);
    assert.equal(second.code, 1);
    assert.match(err, new RegExp(`pid ${first.pid}, port ${lock.port}`));
    // the first one is still serving
    const token = Deno.readTextFileSync(join(home, "token")).trim();
    const res = await fetch(`http://127.0.0.1:${lock.port}/api/health`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal((await res.json()).pid, first.pid);
  } finally {
    first.kill("SIGTERM");
    await first.status;
    await first.stdout.cancel();
    await first.stderr.cancel();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a lock left by a dead process is taken over", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-server-" });
  const child = new Deno.Command("sleep", { args: ["30"] }).spawn();
  const stat = Deno.readTextFileSync(`/proc/${child.pid}/stat`);
  const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  Deno.writeTextFileSync(
    join(home, "server.lock"),
    JSON.stringify({
      pid: child.pid,
      proc_start: ticks,
      boot_id: null,
      port: 1,
      mode: "serve",
      started_at: "x",
    }),
  );
  child.kill("SIGKILL");
  await child.status;
  const server = await startServer({ asmHome: home, port: 0, services: [], routes: ROUTES });
  assert.equal(JSON.parse(Deno.readTextFileSync(join(home, "server.lock"))).pid, Deno.pid);
  await server.close();
  Deno.removeSync(home, { recursive: true });
});

Deno.test("asm serve in testing mode refuses to start on a real list, with the sentence, and leaves no lock", async () => {
  const home = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-server-" }));
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    ASM_HOME: home,
    HOME: home,
    CODEX_HOME: `${home}/.codex`,
    GEMINI_CLI_HOME: home,
  };
  delete env.ASM_MODE; // config's mode and the flag are what is tested here; ASM_MODE last
  const real = join(home, "vault", "board.md");
  Deno.mkdirSync(join(home, "vault"));
  Deno.writeTextFileSync(real, "## SPRINT PLAN ^asm-plan\n");
  Deno.writeTextFileSync(
    join(home, "real-lists.json"),
    JSON.stringify({ v: 1, lists: [{ backend: "markdown", location: real }] }),
  );
  Deno.writeTextFileSync(join(home, "config.toml"), `[board]\npath = "vault/board.md"\n`);
  try {
    const serve = async (...flags: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--node-modules-dir=manual", MAIN, "serve", "--port", "0", ...flags],
        env,
        clearEnv: true,
        signal: AbortSignal.timeout(30_000), // a start that was not refused fails, never hangs the suite
      }).output();
      return { code: out.code, err: new TextDecoder().decode(out.stderr) };
    };
    const sentence =
      `asm serve: asm will not start in testing mode: the configured board ${real} is one of the ` +
      "real lists";
    const flagged = await serve("--testing");
    assert.equal(flagged.code, 1);
    assert.ok(flagged.err.startsWith(sentence), flagged.err);
    // config's mode refuses the same way
    Deno.writeTextFileSync(join(home, "config.toml"), `mode = "testing"\n[board]\npath = "vault/board.md"\n`);
    const configured = await serve();
    assert.equal(configured.code, 1);
    assert.ok(configured.err.startsWith(sentence), configured.err);
    assert.throws(() => Deno.statSync(join(home, "server.lock")), Deno.errors.NotFound);
    assert.equal(Deno.readTextFileSync(real), "## SPRINT PLAN ^asm-plan\n", "the real board is untouched");
    // config says live, but ASM_MODE=testing (what ./asm test sets) forces testing: refused the same way
    Deno.writeTextFileSync(join(home, "config.toml"), `mode = "live"\n[board]\npath = "vault/board.md"\n`);
    env.ASM_MODE = "testing";
    const forced = await serve();
    assert.equal(forced.code, 1);
    assert.ok(forced.err.startsWith(sentence), forced.err);
    delete env.ASM_MODE;
    // a broken guard refuses too; a mode config cannot read refuses without --testing
    Deno.writeTextFileSync(join(home, "config.toml"), `mode = "testing"\n[board]\npath = "vault/board.md"\n`);
    Deno.writeTextFileSync(join(home, "real-lists.json"), "{");
    assert.match(
      (await serve()).err,
      /the real-list guard cannot be read \(.*real-lists\.json: it is not JSON/,
    );
    Deno.writeTextFileSync(join(home, "config.toml"), `mode = "tseting"\n`);
    assert.match((await serve()).err, /mode must be "live" or "testing" \(it is "tseting"\)/);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("startServer takes its mode from config.toml unless told; a refused start throws StartRefused", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-server-" });
  try {
    Deno.writeTextFileSync(join(home, "config.toml"), `mode = "testing"\n`);
    const server = await startServer({ asmHome: home, port: 0, services: [], routes: ROUTES });
    assert.equal(server.context.mode, "testing");
    await server.close();
    const told = await startServer({ asmHome: home, port: 0, services: [], routes: ROUTES, mode: "live" });
    assert.equal(told.context.mode, "live", "the option (the --testing flag) overrides config");
    await told.close();
    Deno.writeTextFileSync(
      join(home, "real-lists.json"),
      JSON.stringify({ v: 1, lists: [{ backend: "markdown", location: join(home, "board.testing.md") }] }),
    );
    assert.throws(
      () => startServer({ asmHome: home, port: 0, services: [], routes: ROUTES }),
      StartRefused,
      "even the testing board's default file is refused when the guard names it",
    );
    // a Workflowy board whose lists include a real node id: refused with the sentence, before anything is asked
    Deno.writeTextFileSync(
      join(home, "config.toml"),
      `mode = "testing"\n[board]\nbackend = "workflowy"\nkey_file = "k"\nurl = "http://127.0.0.1:9/api/v1"\n` +
        `lists = { plan = "try-plan", process = "6ed4b9ca-256c-bf2e-bd70-d8754237b505", complete = "try-done" }\n`,
    );
    Deno.writeTextFileSync(
      join(home, "real-lists.json"),
      JSON.stringify({
        v: 1,
        lists: [{ backend: "workflowy", location: "6ed4b9ca-256c-bf2e-bd70-d8754237b505" }],
      }),
    );
    assert.throws(
      () => startServer({ asmHome: home, port: 0, services: [], routes: ROUTES }),
      (err: Error) =>
        err instanceof StartRefused &&
        err.message.startsWith(
          "asm will not start in testing mode: the configured board list 6ed4b9ca-256c-bf2e-bd70-d8754237b505 " +
            "is one of the real lists",
        ),
    );
    assert.throws(() => Deno.statSync(join(home, "server.lock")), Deno.errors.NotFound);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("the server's first board pass is a dry run in server.log, writing nothing; then the sweep is armed", async () => {
  const home = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-server-" }));
  const board = join(home, "board.testing.md");
  const text = "## SPRINT PLAN ^asm-plan\n- Typed by hand #webapp\n## IN PROCESS ^asm-process\n" +
    "- Nobody runs this #webapp ^c-000001\n## COMPLETE ^asm-complete\n";
  Deno.writeTextFileSync(board, text);
  const server = startServer({
    asmHome: home,
    port: 0,
    mode: "testing",
    routes: ROUTES,
    services: SERVICES.filter((s) => s.name === "sweep"),
  });
  try {
    const lines = await waitFor("the dry run's lines", () => {
      const log = Deno.readTextFileSync(join(home, "server.log")).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      return log.some((l) => l.what === "board dry run") ? log : null;
    });
    assert.deepEqual(
      lines.filter((l) => l.what.startsWith("board dry run")).map((l) => [l.what, l.kind ?? l.actions]),
      [
        ["board dry run: would", "drop"],
        ["board dry run", 1],
      ],
    );
    assert.equal(Deno.readTextFileSync(board), text, "the board file's bytes are unchanged");
    assert.equal(server.context.state.board.cadence().armed, true, "armed after the dry run");
    assert.equal(server.context.state.board.cadence().dry_run_done, true);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("the liveness poll wakes the board's sweep when a session arrives in the live set, not on a quiet tick", async () => {
  const home = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-server-" }));
  const server = startServer({
    asmHome: home,
    port: 0,
    mode: "testing",
    routes: ROUTES,
    services: SERVICES.filter((s) => s.name === "sweep"),
  });
  const poll = SERVICES.find((s) => s.name === "poll")!;
  const board = server.context.state.board;
  try {
    await waitFor("the dry run", () => board.cadence().armed || null);
    const timer = board.cadence().nextAt!;
    assert.ok(timer - Date.now() > 15_000, "armed: the next pass is the 20 s timer's");
    await poll.run(server.context); // the first set seen is only remembered
    await poll.run(server.context);
    assert.equal(board.cadence().nextAt, timer, "a quiet tick wakes nothing");
    // a session whose hook named no process: the poll cannot see it go, so it stays in the live set (UNSURE)
    server.ledger.applyEvent(hookEvent({
      agent_session_id: "s-arrives",
      cwd: home,
      ts: new Date().toISOString(),
      agent_pid: null,
      agent_proc_start: null,
    }));
    await poll.run(server.context);
    const woken = board.cadence().nextAt!;
    assert.ok(
      woken < timer && woken - Date.now() <= 3_000,
      `a wake: the next pass within seconds (${woken - Date.now()} ms)`,
    );
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});
