/**
 * A scratch world for the live gates: temporary homes with each agent pointed at its loopback fake and the
 * project folder pre-trusted (asm never answers a trust dialog; a test seeds the trust the user would have given),
 * asm's hooks installed by asm's own installer, the real server in testing mode on a free port, and a tmux server
 * of the world's own (`ASM_TMUX_SOCKET`, a socket in the world's folder), killed at the end with every window in it.
 * A launched agent gets only its allow-list of the server's environment (lib/launch/env.ts): what a fake needs
 * that is not the agent's own (a custom provider's key) is listed in the world's `config.toml` `[launch] env`, as
 * a person would list it.
 *
 * The drain does not run on its own here: a gate drains when it wants events applied, so it can tell what the
 * poll decided from what a late hook event said.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { stringify } from "smol-toml";
import type { AgentConfig } from "../lib/agents/protocol.ts";
import { isAgentProcess } from "../lib/agents/glob.ts";
import { loadAgents, offlineSetup } from "../lib/agents/registry.ts";
import { installHooks } from "../lib/install/mod.ts";
import { paneCarrying, tmuxHost } from "../lib/launch/mod.ts";
import { asmIdOf, type HookEvent, isoAt, type LaunchRow, launchRow } from "../lib/ledger/mod.ts";
import { pollOnce, type PollReport } from "../lib/liveness/mod.ts";
import { bootId, isSameProcess, snapshot } from "../lib/procs/mod.ts";
import { type RunningServer, startServer } from "../lib/server/mod.ts";
import { type FakeServer, startFake } from "./fakes/mod.ts";
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
  server: RunningServer;
  /** The fake model server of each agent, by agent name. */
  fakes: Map<string, FakeServer>;
  /** A POST to the server with the install token. */
  post(path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Runs a raw tmux command on the world's tmux server. */
  tmux(args: string[]): Promise<{ ok: boolean; out: string }>;
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
  close(): Promise<void>;
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
  const tmux = async (args: string[]) => {
    const out = await new Deno.Command("tmux", {
      args: ["-S", socket, ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { ok: out.success, out: new TextDecoder().decode(out.stdout) };
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
    Deno.removeSync(root, { recursive: true });
  };
  try {
    const launchEnv = new Set(options.launchEnv ?? []);
    for (const agent of agents) {
      const setup = offlineSetup(agent);
      const fake = await startFake(setup.fakeKind);
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
    if (launchEnv.size) {
      Deno.writeTextFileSync(join(asmHome, "config.toml"), stringify({ launch: { env: [...launchEnv] } }));
    }
    const installed = installHooks({ env, asmHome, agents: agents.map((a) => a.name) });
    for (const r of installed) assert.notEqual(r.kind, "NotInstalled", JSON.stringify(r));
    server = startServer({
      routes: ROUTES,
      asmHome,
      port: 0,
      mode: "testing",
      env: { ...env, ...options.serverEnv },
      drainEveryMs: 3_600_000,
    });
  } catch (err) {
    await close();
    throw err;
  }
  const up = server;
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
    server: up,
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
    close,
  };
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
