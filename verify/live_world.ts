/**
 * The scratch world of every test that runs the REAL agents (the live gates, the liveness cycle, the dashboard end
 * to end): temporary homes with each agent pointed at its loopback fake and the project folder pre-trusted (asm
 * never answers a trust dialog; a test seeds the trust the user would have given), asm's hooks installed by asm's
 * own installer, the real server in testing mode on a free port, and a tmux server of the world's own
 * (`ASM_TMUX_SOCKET`, a socket in the world's folder), killed at the end with every window in it. An agent starts
 * in it through the server (`POST /api/launch`, as a person launches) or straight in a window of its own
 * ({@link LiveWorld.startInteractive}, as a person starts one in a terminal). A launched agent gets only its
 * allow-list of the server's environment (lib/launch/env.ts): what a fake needs that is not the agent's own (a
 * custom provider's key) is listed in the world's `config.toml` `[launch] env`, as a person would list it.
 *
 * Building a world costs homes, fakes and an install: a test file whose tests can share one asks for it with
 * {@link sharedLiveWorld}. The drain does not run on its own here: a test drains when it wants events applied, so
 * it can tell what the poll decided from what a late hook event said.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { stringify } from "smol-toml";
import {
  adapterOf,
  type AgentConfig,
  type InstallResult,
  isAgentProcess,
  type LiveReport,
  loadAgents,
  offlineSetup,
  orphanEventReason,
} from "../lib/agents/mod.ts";
import { drainOnce } from "../lib/inbox/mod.ts";
import { installHooks } from "../lib/install/mod.ts";
import { paneCarrying, tmuxHost } from "../lib/launch/mod.ts";
import {
  asmIdOf,
  type HookEvent,
  isoAt,
  type LaunchRow,
  launchRow,
  type Ledger,
  type LiveRow,
  liveRows,
  type RunRow,
} from "../lib/ledger/mod.ts";
import { newPollState, pollOnce, type PollReport, procLookup } from "../lib/liveness/mod.ts";
import { bootId, isSameProcess, LINUX_PROC, type ProcInfo, readProc, snapshot } from "../lib/procs/mod.ts";
import { type RunningServer, type Service, startServer } from "../lib/server/mod.ts";
import { type FakeServer, type ReplyRule, startFake } from "./fakes/mod.ts";
import type { Check } from "./gate.ts";
import { agentsBinDir } from "./prerequisites.ts";
import { ROUTES } from "../routes/mod.ts";

/** Every character class the spec names: quotes, newlines, backticks, emoji, $(...), ;, &&, |, *, \ and a leading -. */
export const NASTY_PROMPT =
  `-leading dash "double" 'single' \`backticks\` $(echo subshell) $HOME ; && | * \\ back\\slash
second line 🎉 émoji\ttab`;

/** A session a launch became, live, with its run. */
export interface LiveSession {
  asmId: string;
  agentSessionId: string;
  pid: number;
  procStart: number;
  startSource: string | null;
  /** From the launch request to the session being live with its run, in ms (reported, never asserted). */
  ms: number;
}

/** One scratch world. */
export interface LiveWorld {
  root: string;
  asmHome: string;
  /** The project folder (pre-trusted for every agent). */
  folder: string;
  /** The extra folders asked for ({@link LiveWorldOptions.folders}), by the name given, each pre-trusted. */
  folders: Map<string, string>;
  env: Record<string, string>;
  /** The server now (a restart gives another one). */
  readonly server: RunningServer;
  /** Closes the server and starts a new one on the same data folder and options (its state starts afresh). */
  restartServer(): Promise<void>;
  /** The fake model server of each agent, by agent name. */
  fakes: Map<string, FakeServer>;
  /** A POST to the server with the install token. */
  post(path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Runs a raw tmux command on the world's tmux server. */
  tmux(args: string[]): Promise<{ ok: boolean; out: string; err: string }>;
  /** How many tmux windows the world's server has. */
  windows(): Promise<number>;
  /** Drains the inbox until it is empty. */
  drain(): void;
  /** One liveness poll, as the server's poll service runs it. */
  poll(): PollReport;
  /** Waits (draining) until the launch's session is live with a run; throws after `timeoutMs`. */
  waitLive(token: string, timeoutMs?: number): Promise<LiveSession>;
  /** Waits until `probe` holds; throws `why` after `timeoutMs`. */
  until<T>(
    probe: () => T | undefined | false | Promise<T | undefined | false>,
    why: string,
    timeoutMs?: number,
  ): Promise<T>;
  /** Asserts the run's process is the agent's, in the launch's own tmux window. */
  assertInWindow(agent: AgentConfig, session: LiveSession, launch: LaunchRow): Promise<void>;
  /** Writes a hook event file into the inbox, as the hook would, and drains it. */
  hookEvent(fields: Partial<HookEvent> & Pick<HookEvent, "agent" | "agent_session_id">): string;
  /**
   * Starts one of the world's agents interactively, straight in a new window of the world's tmux server (no
   * launch, no token: as a person starts it in a terminal), in the project folder; dispose of it with
   * `await using` (the world stays).
   */
  startInteractive(agentName: string, options: InteractiveOptions): Promise<InteractiveAgent>;
  close(): Promise<void>;
}

/** One real agent running interactively in a window of a world's tmux server; the test drains and polls. */
export interface InteractiveAgent {
  agent: AgentConfig;
  ledger: Ledger;
  /** One drain of the inbox into the ledger. */
  drain(): void;
  /** One poll, with the poll state kept across calls (as the server keeps it). */
  poll(): PollReport;
  /** This agent's one session row (hidden rows included: the scratch folder is a harness folder). */
  row(): LiveRow | undefined;
  /** The open runs of that session. */
  openRuns(): RunRow[];
  /** The agent's own `live()` report right now. */
  live(): LiveReport;
  /** Drains and polls every 250 ms until `check` returns a value; fails after `ms` with `what`. */
  until<T>(what: string, check: () => T | null | undefined | false, ms: number): Promise<T>;
  /** Types `text` into the agent's window as a person would, then Enter. */
  type(text: string): Promise<void>;
  /** Kills the tmux window the agent runs in (what a person closing it with its X does). */
  killWindow(): Promise<void>;
  /** The agent's processes in its window (Gemini CLI: its launcher and its child), nearest the pane first. */
  agentProcesses(): Promise<ProcInfo[]>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of {@link LiveWorld.startInteractive}. */
export interface InteractiveOptions {
  /** The agent's argv after its command, given the first prompt (each agent has its own flags). */
  argv(prompt: string): string[];
  prompt: string;
  /** Overrides the agent's `stalled_minutes`, so Needs attention can be seen in seconds. */
  stalledAfterMs: number;
  /**
   * Runs the agent under a shell of the pane's own that outlives it (as a person's terminal does), instead of
   * as the pane's process: killing the agent then leaves the pane and its shell running.
   */
  underShell?: boolean;
}

/** Options of {@link liveWorld}. */
export interface LiveWorldOptions {
  /** Extra agent tables for `$ASM_HOME/agents.toml` (e.g. a copy of an agent marked shared). */
  extraAgents?: Record<string, Record<string, unknown>>;
  /** More project folders, by name (one path component each), made in the world's folder and pre-trusted. */
  folders?: string[];
  /** Variables in the server's environment only (not in `env`, which the world's own commands use too). */
  serverEnv?: Record<string, string>;
  /** More names for `config.toml` `[launch] env`, beside what the agents' fakes need. */
  launchEnv?: string[];
  /**
   * The server's background services (default: all of them, as `asm serve` runs them). A test that polls by
   * itself hands in none, so no poll of the server's lands between two of its own.
   */
  services?: readonly Service[];
  /**
   * More tables for `$ASM_HOME/config.toml` (e.g. `board`), beside the `[launch] env` the fakes need; given the
   * world's extra folders, so a table can name one.
   */
  config?: (folders: ReadonlyMap<string, string>) => Record<string, unknown>;
  /** Files written into the data folder before the server starts (e.g. a board), by name. */
  asmFiles?: Record<string, string>;
  /** The server's drain period (default: an hour, so a test drains when it wants events applied). */
  drainEveryMs?: number;
  /** Script rules of an agent's fake, by agent name (e.g. when and how Codex's title request is answered). */
  fakeScripts?: Record<string, ReplyRule[]>;
}

/** Builds a world for `agents` (each gets its fake; their kinds must differ). */
export async function liveWorld(agents: AgentConfig[], options: LiveWorldOptions = {}): Promise<LiveWorld> {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-gate-world-" }));
  const home = join(root, "home");
  const asmHome = join(root, "asm");
  const tmp = join(root, "tmp");
  const folder = join(root, "proj one");
  const folders = new Map((options.folders ?? []).map((name) => [name, join(root, name)]));
  for (const d of [home, asmHome, tmp, folder, ...folders.values()]) Deno.mkdirSync(d, { recursive: true });
  // the socket lives in the world's folder, so nothing of the tmux server outlives the world
  const socket = join(root, "tmux.sock");
  const fakes = new Map<string, FakeServer>();
  const env: Record<string, string> = {
    PATH: `${Deno.env.get("ASM_AGENTS_BIN") || agentsBinDir()}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    ASM_HOME: asmHome,
    ASM_TMUX_SOCKET: socket,
  };
  let server: RunningServer | null = null;
  const serverOptions = () => ({
    routes: ROUTES,
    asmHome,
    port: 0,
    mode: "testing" as const,
    env: { ...env, ...options.serverEnv },
    drainEveryMs: options.drainEveryMs ?? 3_600_000,
    services: options.services,
  });
  let installed: InstallResult[] = [];
  const tmux = async (args: string[]) => {
    const out = await new Deno.Command("tmux", {
      args: ["-S", socket, ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    return { ok: out.success, out: decode(out.stdout), err: decode(out.stderr).trim() };
  };
  const close = async () => {
    // every process the world's windows started: the agents may still write into the homes as they exit
    const panes = (await tmux(["list-panes", "-a", "-F", "#{pane_pid}"])).out.split("\n").filter(Boolean).map(
      Number,
    );
    const started = descendants(new Set(panes));
    await tmux(["kill-server"]);
    const left = () => started.filter((p) => running(p.pid, p.startTicks));
    for (let i = 0; i < 100 && left().length; i++) await new Promise((r) => setTimeout(r, 50));
    // what outlived its window (the shim sends SIGTERM after 3 s; this is the test's own guarantee)
    for (const sig of ["SIGTERM", "SIGKILL"] as const) {
      for (const p of left()) {
        try {
          Deno.kill(p.pid, sig);
        } catch { /* gone meanwhile */ }
      }
      for (let i = 0; i < 40 && left().length; i++) await new Promise((r) => setTimeout(r, 50));
    }
    await server?.close();
    for (const fake of fakes.values()) await fake.close();
    for (let i = 0;; i++) {
      try {
        Deno.removeSync(root, { recursive: true });
        break;
      } catch (err) {
        // a last hook (Gemini does not wait for its final SessionEnd) may still be writing into the inbox
        if (i >= 20) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  try {
    const launchEnv = new Set(options.launchEnv ?? []);
    for (const agent of agents) {
      const setup = offlineSetup(agent);
      const fake = await startFake(setup.fakeKind, { script: options.fakeScripts?.[agent.name] });
      fakes.set(agent.name, fake);
      Object.assign(
        env,
        setup.prepare({ home, fakeUrl: fake.url, trustFolders: [folder, ...folders.values()] }),
      );
      for (const name of setup.personEnv) launchEnv.add(name);
    }
    if (options.extraAgents) {
      Deno.writeTextFileSync(join(asmHome, "agents.toml"), stringify(options.extraAgents));
    }
    if (launchEnv.size || options.config) {
      Deno.writeTextFileSync(
        join(asmHome, "config.toml"),
        stringify({
          ...options.config?.(folders),
          ...(launchEnv.size ? { launch: { env: [...launchEnv] } } : {}),
        }),
      );
    }
    for (const [name, text] of Object.entries(options.asmFiles ?? {})) {
      Deno.writeTextFileSync(join(asmHome, name), text);
    }
    installed = installHooks({ env, asmHome, agents: agents.map((a) => a.name) });
    for (const r of installed) assert.notEqual(r.kind, "NotInstalled", JSON.stringify(r));
    server = startServer(serverOptions());
  } catch (err) {
    await close();
    throw err;
  }
  let up = server;
  const host = tmuxHost({ socketPath: socket });
  const drain = () => {
    for (let i = 0; i < 50 && up.drainNow().listed > 0; i++) { /* until the inbox is empty */ }
  };
  const until = async <T>(
    probe: () => T | undefined | false | Promise<T | undefined | false>,
    why: string,
    timeoutMs = 60_000,
  ): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs / 1000} s waiting: ${why}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  };
  return {
    root,
    asmHome,
    folder,
    folders,
    env,
    get server() {
      return up;
    },
    async restartServer() {
      await up.close();
      server = startServer(serverOptions());
      up = server;
    },
    fakes,
    tmux,
    windows: () => host.windowCount(),
    drain,
    poll: () => pollOnce({ ledger: up.ledger, env, asmHome }),
    async post(path, body) {
      const res = await fetch(`${up.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${up.token}`, "content-type": "application/json" },
        body: JSON.stringify(body ?? {}),
      });
      return { status: res.status, body: await res.json() };
    },
    until,
    async waitLive(token, timeoutMs = 60_000) {
      const started = launchRow(up.ledger, token)?.requested_at;
      return await until(
        () => {
          drain();
          const row = up.ledger.query(
            `SELECT r.asm_id, s.agent_session_id, r.pid, r.proc_start, r.start_source, s.status FROM runs r
           JOIN sessions s USING (asm_id) WHERE r.launch_token = ? AND r.ended_at IS NULL ORDER BY r.run_id LIMIT 1`,
            token,
          )[0];
          if (!row || row.status !== "live") return undefined;
          return {
            asmId: String(row.asm_id),
            agentSessionId: String(row.agent_session_id),
            pid: Number(row.pid),
            procStart: Number(row.proc_start),
            startSource: row.start_source as string | null,
            ms: started ? Date.now() - Date.parse(started) : NaN,
          };
        },
        `the session of launch ${token} to be live`,
        timeoutMs,
      );
    },
    async assertInWindow(agent, session, launch) {
      const procs = snapshot();
      const proc = procs.get(session.pid);
      assert.ok(proc, `the run's process ${session.pid} exists`);
      assert.equal(proc.startTicks, session.procStart, "the run's start ticks are the process's own");
      assert.equal(
        isAgentProcess(agent, proc.exe, proc.argv),
        true,
        `pid ${session.pid} is ${agent.display}: ${proc.exe}`,
      );
      const pane = paneCarrying(await host.panes(), procs, session.pid);
      assert.equal(pane?.windowId, launch.window_id, "the run's process is in the launch's own window");
    },
    hookEvent(fields) {
      const eventId = crypto.randomUUID();
      const event: HookEvent = {
        v: 1,
        event_id: eventId,
        asm_id: asmIdOf(fields.agent, fields.agent_session_id),
        event: "SessionStart",
        raw_event: "SessionStart",
        ts: isoAt(),
        transcript_path: null,
        cwd: folder,
        source: "startup",
        launch_token: null,
        session_name: null,
        agent_pid: null,
        agent_proc_start: null,
        boot_id: bootId(),
        ancestors: [],
        nested: false,
        entrypoint: null,
        pid_shared: false,
        hook_ms: 1,
        payload: {},
        ...fields,
      };
      Deno.writeTextFileSync(join(asmHome, "inbox", `${eventId}.json`), JSON.stringify(event));
      drain();
      return event.asm_id;
    },
    startInteractive: (agentName, interactive) =>
      startInteractive({ up, asmHome, env, folder, installed, tmux }, agentName, interactive),
    close,
  };
}

/** What {@link startInteractive} needs of its world. */
interface InteractiveWorld {
  up: RunningServer;
  asmHome: string;
  env: Record<string, string>;
  folder: string;
  installed: InstallResult[];
  tmux(args: string[]): Promise<{ ok: boolean; out: string; err: string }>;
}

async function startInteractive(
  world: InteractiveWorld,
  agentName: string,
  options: InteractiveOptions,
): Promise<InteractiveAgent> {
  const { up, asmHome, folder, tmux } = world;
  const ledger = up.ledger;
  const env = { ...world.env, TERM: "xterm-256color" };
  const agent = loadAgents({ asmHome, env }).find((a) => a.name === agentName);
  if (!agent) throw new Error(`no agent named ${agentName} in agents.toml`);
  const install = world.installed.find((r) => r.agent === agentName);
  assert.equal(
    install?.kind,
    "Installed",
    `the world installed asm's hooks for ${agentName}: ${JSON.stringify(install)}`,
  );
  // sessions from before this start are another test's: this agent's row is the one that appears after it
  const before = new Set(ledger.listSessions({ all: true }).map((s) => s.asm_id));
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  // a tmux session of its own (the server's launches use theirs); several arguments: tmux runs them directly,
  // no shell, so the prompt needs no quoting
  const newSession = () =>
    tmux([
      "new-session",
      "-d",
      "-P",
      "-F",
      "#{window_id}",
      "-s",
      `interactive-${agentName}-${crypto.randomUUID().slice(0, 8)}`,
      "-x",
      "200",
      "-y",
      "50",
      "-c",
      folder,
      "--",
      // `sh -c 'CMD "$@"; exec sleep'` keeps the shell as the agent's parent (no exec of the agent)
      ...(options.underShell ? ["/bin/sh", "-c", '"$@"; exec sleep 3600', "pane-shell"] : []),
      "env",
      "-i",
      ...envArgs,
      agent.command,
      ...options.argv(options.prompt),
    ]);
  // the window of an earlier start, closed a moment ago, may have been the server's last: tmux then tears the
  // whole server down, and a session asked for meanwhile fails ("server exited unexpectedly"); asm's own host
  // opens again in that case (lib/launch/tmux.ts), and so does this
  let started = await newSession();
  for (let i = 0; i < 5 && !started.ok; i++) {
    await new Promise((r) => setTimeout(r, 200));
    started = await newSession();
  }
  assert.ok(started.ok, `tmux could not start ${agentName}: ${started.err}`);
  const windowId = started.out.trim();

  const failures = new Map<string, number>();
  const orphan = orphanEventReason([agent], env);
  const state = newPollState();
  const pids = new Set<number>();
  const mine = <R extends { agent: string; asm_id: string }>(r: R) =>
    r.agent === agentName && !before.has(r.asm_id);
  const self: InteractiveAgent = {
    agent,
    ledger,
    drain() {
      drainOnce({
        asmHome,
        ledger,
        log: () => {},
        failures,
        orphanReason: orphan,
      });
    },
    poll() {
      return pollOnce({
        ledger,
        env,
        asmHome,
        agents: [agent],
        state,
        stalledAfterMs: options.stalledAfterMs,
      });
    },
    row() {
      // exactly one: a second row of this agent (Codex's hidden title thread made one, decision 235) is no row
      // at all, so a test waiting on it times out and names every row
      const rows = liveRows(ledger, { all: true }).filter(mine);
      return rows.length === 1 ? rows[0] : undefined;
    },
    openRuns() {
      const row = self.row() ?? ledger.listSessions({ all: true }).find(mine);
      const runs = row ? ledger.runs(row.asm_id).filter((r) => r.ended_at === null) : [];
      for (const r of runs) pids.add(r.pid);
      return runs;
    },
    live() {
      const row = self.row();
      return adapterOf(agent).live!({
        agent,
        env,
        procs: procLookup(LINUX_PROC),
        open: row
          ? [{
            agentSessionId: row.agent_session_id,
            transcriptPath: ledger.session(row.asm_id)?.transcript_path ?? null,
            runs: self.openRuns().map((r) => ({ pid: r.pid, procStart: r.proc_start })),
          }]
          : [],
        proc: LINUX_PROC,
      });
    },
    async until(what, check, ms) {
      const deadline = Date.now() + ms;
      let last: unknown = null;
      while (Date.now() < deadline) {
        self.drain();
        self.poll();
        const got = check();
        if (got !== null && got !== undefined && got !== false) return got;
        last = self.row() ?? null;
        await new Promise((r) => setTimeout(r, 250));
      }
      const screen = (await tmux(["capture-pane", "-p", "-t", windowId])).out;
      // every row of this agent since it started, whatever its status (a row that is not live is not `row()`)
      const rows = liveRows(ledger, { all: true }).filter(mine).map((r) => ({
        asm_id: r.asm_id,
        status: r.status,
        agent_session_id: r.agent_session_id,
        hidden_reason: r.hidden_reason,
        unsure_reason: r.unsure_reason,
        runs: ledger.runs(r.asm_id).length,
        events: ledger.query("SELECT event FROM events WHERE asm_id = ?", r.asm_id).map((e) => e.event),
      }));
      throw new Error(
        `timed out after ${ms} ms waiting for ${what}; last row ${JSON.stringify(last)}; rows ${
          JSON.stringify(rows)
        }\n${screen}`,
      );
    },
    async type(text) {
      assert.ok(
        (await tmux(["send-keys", "-t", windowId, "-l", text])).ok,
        `tmux could not type into ${windowId}`,
      );
      // a moment for the composer to take the text as typed, not as a paste that Enter would join
      await new Promise((r) => setTimeout(r, 300));
      assert.ok((await tmux(["send-keys", "-t", windowId, "Enter"])).ok, `tmux could not press Enter`);
    },
    async killWindow() {
      assert.ok((await tmux(["kill-window", "-t", windowId])).ok, `tmux could not kill window ${windowId}`);
    },
    async agentProcesses() {
      const pane = Number((await tmux(["display-message", "-p", "-t", windowId, "#{pane_pid}"])).out.trim());
      const procs = [...snapshot().values()];
      const under = new Set([pane]);
      // `env -i ... agent` execs the agent: the pane's own process may be it
      const found: ProcInfo[] = procs.filter((p) => p.pid === pane && isAgentProcess(agent, p.exe, p.argv));
      for (let grew = true; grew;) {
        grew = false;
        for (const p of procs) {
          if (under.has(p.pid) || !under.has(p.ppid)) continue;
          under.add(p.pid);
          grew = true;
          if (isAgentProcess(agent, p.exe, p.argv)) found.push(p);
        }
      }
      for (const p of found) pids.add(p.pid);
      return found;
    },
    async [Symbol.asyncDispose]() {
      await tmux(["kill-window", "-t", windowId]); // already gone when the test killed it
      // the agent's processes end with their window; give them (and hooks still writing) a moment
      for (let i = 0; i < 40 && [...pids].some((p) => readProc(p) !== null); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      for (const pid of pids) {
        const p = readProc(pid);
        if (p && isAgentProcess(agent, p.exe, p.argv)) Deno.kill(pid, "SIGKILL");
      }
    },
  };
  return self;
}

/** The processes under (and including) `roots`, with their start ticks. */
function descendants(roots: Set<number>): { pid: number; startTicks: number }[] {
  const procs = [...snapshot().values()];
  const inTree = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) {
      if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
        inTree.add(p.pid);
        grew = true;
      }
    }
  }
  return procs.filter((p) => inTree.has(p.pid)).map((p) => ({ pid: p.pid, startTicks: p.startTicks }));
}

/** True while the process (pid, start ticks) still runs. */
export function running(pid: number, procStart: number): boolean {
  return isSameProcess({ pid, procStart, bootId: null });
}

/**
 * One world for every test of a file: built when the first test asks for it (a file whose tests are all filtered
 * out builds none) and closed once after the file's last test. Its tests turn the sanitizers off: the world's
 * server and fakes outlive each of them.
 */
export function sharedLiveWorld(
  agents: AgentConfig[],
  options: LiveWorldOptions = {},
): () => Promise<LiveWorld> {
  let world: Promise<LiveWorld> | null = null;
  Deno.test.afterAll(async () => {
    // a world that failed to build was closed by liveWorld itself; each test that asked has already failed
    const built = await world?.catch(() => null);
    await built?.close();
  });
  return () => world ??= liveWorld(agents, options);
}

/** The tested agents, and the one after each (for continue-with). */
export function testedAgents(): AgentConfig[] {
  return loadAgents().filter((a) => a.tested);
}

/**
 * Registers a live gate as ONE test that runs its checks side by side: each check has its own world (homes,
 * fakes, server, tmux server), and most of a check is waiting for an agent to start, so the gate takes about as
 * long as its slowest check instead of their sum. A failure names every check that failed.
 */
export function registerSideBySide(gate: string, title: string, checks: () => Check[]): void {
  Deno.test({
    name: `${gate}: ${title}`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const list = checks();
      const results = await Promise.allSettled(list.map((c) => c.run()));
      const failed = results.flatMap((r, i) =>
        r.status === "rejected"
          ? [
            `${list[i].name}\n    ${
              r.reason instanceof Error ? r.reason.stack ?? r.reason.message : String(r.reason)
            }`,
          ]
          : []
      );
      if (failed.length) {
        throw new Error(`${failed.length} of ${list.length} checks failed:\n${failed.join("\n")}`);
      }
    },
  });
}

/** The transcript at `path` holds `text` (false while there is no path or no file yet). */
export function transcriptHolds(path: string | null, text: string): boolean {
  if (path === null) return false;
  try {
    return Deno.readTextFileSync(path).includes(text);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
