/**
 * The command line as a person meets it, run as real `deno run main.ts` processes in temporary homes: every
 * command of the table answers --help (and -h, and `./asm help <command>`) without acting on anything, refuses
 * an unknown flag and a stray argument with its usage, `sessions` shows ids that `end` resolves, and a taken
 * port is one sentence. Never the real ~/.claude, ~/.codex, ~/.gemini or ~/.asm: every home is a temp folder.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type CommandSpec } from "../lib/cli/mod.ts";
import { loadAgents } from "../lib/agents/registry.ts";
import { installHooks } from "../lib/install/mod.ts";
import { asmIdOf, type HookEvent, Ledger } from "../lib/ledger/mod.ts";
import { socketTable, TCP_LISTEN } from "../lib/procs/mod.ts";
import { startServer } from "../lib/server/mod.ts";
import { ROUTES } from "../routes/mod.ts";
import { TABLE } from "../main.ts";

const REPO = new URL("..", import.meta.url).pathname;
const MAIN = join(REPO, "main.ts");
/** A command that acts (a server, a test run) would outlive this: it is killed and the test fails. */
const TIMEOUT_MS = 15_000;
const PARALLEL = 4;

/** One temporary world: homes seeded with agent configs and a ledger, and the environment pointing at them. */
interface World {
  root: string;
  asmHome: string;
  tmuxSocket: string;
  env: Record<string, string>;
}

function hookEvent(agent: string, agentSessionId: string, event: string, n: number): HookEvent {
  return {
    v: 1,
    event_id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    asm_id: asmIdOf(agent, agentSessionId),
    agent,
    event,
    raw_event: null,
    ts: `2026-11-29T22:00:${String(n).padStart(2, "0")}.000Z`,
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

function world(sessions: string[] = ["own-session-1"]): World {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-cli-world-" }));
  const home = join(root, "home");
  const asmHome = join(root, "asm");
  for (
    const [path, text] of [
      [join(home, ".claude", "settings.json"), "{}\n"],
      [join(home, ".codex", "config.toml"), 'model = "x"\n'],
      [join(home, ".gemini", "settings.json"), "{}\n"],
    ]
  ) {
    Deno.mkdirSync(join(path, ".."), { recursive: true });
    Deno.writeTextFileSync(path, text);
  }
  Deno.mkdirSync(asmHome, { recursive: true, mode: 0o700 });
  Deno.mkdirSync(join(root, "tmp"));
  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"));
  sessions.forEach((sid, i) => ledger.applyEvent(hookEvent("claude", sid, "SessionStart", i + 1)));
  ledger.close();
  const tmuxSocket = join(root, "tmux.sock");
  const bin = Deno.env.get("ASM_AGENTS_BIN");
  const env = {
    PATH: `${bin ? `${bin}:` : ""}/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    ASM_HOME: asmHome,
    CODEX_HOME: join(home, ".codex"),
    GEMINI_CLI_HOME: home,
    TMPDIR: join(root, "tmp"),
    // a path: the tmux server a launch would open its window in, ours alone
    ASM_TMUX_SOCKET: tmuxSocket,
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME")!, ".cache", "deno"),
    NO_COLOR: "1",
  };
  // asm's hook already in every agent's config: an uninstall (or a second install) that ran would show
  const installed = installHooks({ env, asmHome, agents: loadAgents({ asmHome, env }).map((a) => a.name) });
  assert.deepEqual(installed.map((r) => r.kind), installed.map(() => "Installed"));
  return { root, asmHome, tmuxSocket, env };
}

/** Every file and folder under the homes (tmp aside), with size and mtime: any write shows. */
function snapshot(w: World): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      if (path === join(w.root, "tmp")) continue;
      const info = Deno.lstatSync(path);
      out.set(path, `${info.size} ${info.mtime?.getTime()}`);
      if (info.isDirectory) walk(path);
    }
  };
  walk(w.root);
  return out;
}

/**
 * True when `pid` holds a listening socket right now: its fd links first (a few), and only when one is a socket
 * the kernel's socket table (hundreds of rows on a busy machine, too many to read every few milliseconds).
 */
function listening(pid: number): boolean {
  const sockets = new Set<number>();
  for (const fd of safe(() => Array.from(Deno.readDirSync(`/proc/${pid}/fd`), (e) => e.name)) ?? []) {
    const inode = safe(() => Deno.readLinkSync(`/proc/${pid}/fd/${fd}`))?.match(/^socket:\[(\d+)\]$/)?.[1];
    if (inode) sockets.add(Number(inode));
  }
  if (sockets.size === 0) return false;
  return (socketTable() ?? []).some((row) => row.state === TCP_LISTEN && sockets.has(row.inode));
}

function safe<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null; // the process ended while we looked
  }
}

interface Run {
  argv: string[];
  code: number;
  out: string;
  err: string;
  listened: boolean;
  timedOut: boolean;
}

/** `deno run main.ts argv` in `w`, watched for a listening socket while it runs. */
async function asm(w: World, argv: string[]): Promise<Run> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--frozen", "--node-modules-dir=manual", MAIN, ...argv],
    cwd: REPO,
    env: w.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let running = true;
  let listened = false;
  let timedOut = false;
  const kill = () => safe(() => child.kill("SIGKILL"));
  const timer = setTimeout(() => (timedOut = true, kill()), TIMEOUT_MS);
  const watch = (async () => {
    while (running) {
      if (listening(child.pid)) {
        listened = true;
        kill();
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const result = await child.output();
  running = false;
  clearTimeout(timer);
  await watch;
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { argv, code: result.code, out: text(result.stdout), err: text(result.stderr), listened, timedOut };
}

/**
 * Runs the jobs `PARALLEL` at a time, each worker in a world of its own that it reuses: one process at a time
 * per world, so whatever changed in a world during a job is that job's doing.
 */
async function pooled<T, R>(items: T[], job: (item: T, w: World) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    const w = world();
    try {
      while (next < items.length) {
        const i = next++;
        results[i] = await job(items[i], w);
      }
    } finally {
      Deno.removeSync(w.root, { recursive: true });
    }
  }));
  return results;
}

/** Every command of the table by its words, a group and each of its commands alike. */
function commandPaths(specs: readonly CommandSpec[], prefix: string[] = []): [string[], CommandSpec][] {
  return specs.flatMap((spec): [string[], CommandSpec][] => [
    [[...prefix, spec.name], spec],
    ...commandPaths(spec.subcommands ?? [], [...prefix, spec.name]),
  ]);
}

const COMMANDS = commandPaths(TABLE);

/** A command line with every required positional filled in plausibly, then one argument too many. */
function withStray(path: string[], spec: CommandSpec): string[] | null {
  // a variadic positional takes any number (`test` would run them as test paths): nothing is stray there
  if (spec.positionals?.some((p) => p.variadic)) return null;
  const filled = (spec.positionals ?? []).map((p) => p.choices?.[0] ?? "abcd1234");
  const required = Object.entries(spec.options ?? {}).flatMap(([name, o]) =>
    o.type === "string" && o.required ? [`--${name}`, "x"] : []
  );
  return [...path, ...filled, ...required, "stray-argument"];
}

/** One command line of the walk, with the words of the command whose usage it should get. */
interface Line {
  argv: string[];
  path: string[];
}

/**
 * Runs each command line and says what it changed in its world: files under the homes, a listening socket, a
 * writer lock, a tmux window. Every line runs to the end before anything is asserted, so one failure leaves
 * nothing running.
 */
async function inWorlds(lines: Line[]): Promise<(Run & Line & { acted: string[] })[]> {
  return await pooled(lines, async (line, w) => {
    const before = snapshot(w);
    const run = await asm(w, line.argv);
    const acted: string[] = [];
    if (run.timedOut) acted.push(`was still running after ${TIMEOUT_MS} ms`);
    if (run.listened) acted.push("opened a listening socket");
    const after = snapshot(w);
    for (const path of new Set([...before.keys(), ...after.keys()])) {
      if (before.get(path) !== after.get(path)) acted.push(`changed ${path.slice(w.root.length)}`);
    }
    if (after.has(join(w.asmHome, "server.lock"))) acted.push("left a writer lock");
    const tmux = await new Deno.Command("tmux", {
      args: ["-S", w.tmuxSocket, "list-windows", "-a"],
      stdout: "piped",
      stderr: "null",
    }).output().catch(() => null);
    if (tmux?.success && tmux.stdout.length > 0) acted.push("opened a tmux window");
    return { ...run, ...line, acted };
  });
}

/** The lines that acted on something, each with what it did (empty when none did). */
function actedOn(runs: { argv: string[]; acted: string[] }[]): string[] {
  return runs.filter((r) => r.acted.length).map((r) => `./asm ${r.argv.join(" ")}: ${r.acted.join(", ")}`);
}

Deno.test("every command answers --help, -h and ./asm help <command> with its help, acting on nothing", async () => {
  const lines = COMMANDS.flatMap(([path]) =>
    [[...path, "--help"], [...path, "-h"], ["help", ...path]].map((argv) => ({ argv, path }))
  );
  const runs = await inWorlds(lines);
  assert.deepEqual(actedOn(runs), []);
  for (const run of runs) {
    const label = `./asm ${run.argv.join(" ")}`;
    assert.equal(run.code, 0, `${label}: ${run.err}`);
    const words = run.path.join(" ");
    assert.match(run.out, new RegExp(`^\\./asm ${words}: .*\\n\\nUSAGE:\\n {2}\\./asm ${words}\\b`), label);
    assert.equal(run.err, "", label);
  }
});

Deno.test("every command refuses an unknown flag and a stray argument with its usage and exit code 2", async () => {
  const lines = COMMANDS.flatMap(([path, spec]) => {
    const stray = withStray(path, spec);
    return [{ argv: [...path, "--no-such-flag"], path }, ...(stray ? [{ argv: stray, path }] : [])];
  });
  lines.push({ argv: ["help", "stray-argument"], path: [] });
  const runs = await inWorlds(lines);
  assert.deepEqual(actedOn(runs), []);
  for (const run of runs) {
    const label = `./asm ${run.argv.join(" ")}`;
    assert.equal(run.code, 2, `${label}: ${run.out}${run.err}`);
    assert.equal(run.out, "", label);
    const [sentence, ...usage] = run.err.split("\n\n");
    assert.match(
      sentence,
      run.argv.includes("--no-such-flag") ? /^asm: .*--no-such-flag/ : /^asm: .*stray-argument/,
    );
    // the usage under the sentence is the command's own (for a word that names no command: the list of them)
    const heading = run.path.length ? `./asm ${run.path.join(" ")}: ` : "asm: the AI Session Manager";
    assert.ok(usage.join("\n\n").startsWith(heading), `${label}: ${run.err}`);
  }
});

Deno.test("./asm sessions leads each row with a short id that ./asm end resolves to its session", async () => {
  const w = world(["own-session-1", "own-session-2", "own-session-3"]);
  try {
    const listed = await asm(w, ["sessions", "--all"]);
    assert.equal(listed.code, 0, listed.err);
    const rows = listed.out.trim().split("\n");
    const ids = [1, 2, 3].map((n) => asmIdOf("claude", `own-session-${n}`));
    assert.equal(rows.length, 3);
    const shown = rows.map((row) => row.split(/\s+/)[0]);
    for (const short of shown) {
      assert.ok(short.length >= 8 && ids.filter((id) => id.startsWith(short)).length === 1, short);
    }
    const json = JSON.parse((await asm(w, ["sessions", "--json", "--all"])).out);
    assert.deepEqual(json.map((s: { asm_id: string }) => s.asm_id).sort(), [...ids].sort());
    // the actions go through the server: one runs on the same world, and `end` names a session by its short id
    const server = startServer({ asmHome: w.asmHome, port: 0, env: w.env, services: [], routes: ROUTES });
    try {
      server.ledger.applyEvent(hookEvent("claude", "own-session-1", "SessionEnd", 9));
      const short = shown[rows.findIndex((row) => ids[0].startsWith(row.split(/\s+/)[0]))];
      const ended = await asm(w, ["end", short]);
      assert.deepEqual(
        [ended.code, ended.out.trim()],
        [1, "asm end: this session is not running (it is ended); there is nothing to end"],
      );
      const unknown = await asm(w, ["end", "zzzz"]);
      assert.deepEqual(
        [unknown.code, unknown.out.trim()],
        [1, 'asm end: no session has an id that is or begins with "zzzz"; asm sessions --all lists them'],
      );
    } finally {
      await server.close();
    }
  } finally {
    Deno.removeSync(w.root, { recursive: true });
  }
});

Deno.test("./asm serve on a taken port is one sentence naming the port and the pid holding it, and leaves no lock", async () => {
  const w = world();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (listener.addr as Deno.NetAddr).port;
    const run = await asm(w, ["serve", "--port", String(port)]);
    assert.equal(run.code, 1, run.out + run.err);
    assert.match(
      run.err,
      new RegExp(
        `^asm serve: port ${port} is already taken by pid ${Deno.pid} \\(deno\\); stop it or choose ` +
          "another port with --port N\\n$",
      ),
    );
    assert.throws(() => Deno.statSync(join(w.asmHome, "server.lock")), Deno.errors.NotFound);
  } finally {
    listener.close();
    Deno.removeSync(w.root, { recursive: true });
  }
});
