/**
 * `./asm bench poll`: 50 live runs (sleeping processes the bench starts, registered as Claude, Codex and Gemini
 * sessions with their real pids, start ticks and boot id) and the cost of watching them:
 *
 * - the poll tick as the server runs it (`pollOnce` with the server's arguments and one state across ticks):
 *   wall time per tick, and the process's CPU time (user + system) per tick over every tick; against the same
 *   tick with no runs, and against reading the 50 processes from /proc once (the floor of a tick's own work);
 * - `GET /api/live` p50 with the token from `main.ts serve` in its own process on the same ledger, against
 *   `GET /api/health` with the token, the two interleaved; and what reading the kernel's socket table once costs
 *   (every request reads it to learn its peer's uid).
 *
 * One JSON line. Targets (reported, never asserted): a tick <= 50 ms, `/api/live` p50 <= 5 ms.
 * @module
 */
import process from "node:process";
import { join } from "node:path";
import { harnessRoots } from "../lib/config/mod.ts";
import { Ledger } from "../lib/ledger/mod.ts";
import { newPollState, pollOnce } from "../lib/liveness/mod.ts";
import { readProc } from "../lib/procs/mod.ts";
import { p50, percentile, ratio, round } from "./figures.ts";
import { type LiveRuns, startLiveRuns } from "./live_runs.ts";
import { type ServeChild, startServeChild } from "./serve_child.ts";

/** The figures. */
export interface PollBench {
  /** live runs registered */
  runs: number;
  /** poll ticks timed */
  ticks: number;
  /** open runs after the ticks: every one, or the poll closed a run whose process is alive */
  open_runs_after: number;
  tick_p50_ms: number;
  tick_p90_ms: number;
  /** CPU time (user + system) of the process per tick, over all ticks */
  tick_cpu_ms: number;
  /** the same tick with no runs */
  empty_tick_p50_ms: number;
  /** reading the runs' processes from /proc once (stat, cmdline, exe) */
  proc_read_p50_ms: number;
  ratio_tick_vs_proc_read: number;
  /** sessions in the `/api/live` answer */
  api_live_sessions: number;
  api_live_p50_ms: number;
  health_p50_ms: number;
  ratio_live_vs_health: number;
  /** reading /proc/net/tcp once: what every request pays for its peer's uid (lib/procs/sockets.ts) */
  socket_table_p50_ms: number;
}

/** Options of {@link benchPoll}. */
export interface PollBenchOptions {
  /** live runs (default 50) */
  runs?: number;
  /** timed ticks (default 40); two warm-up ticks come on top */
  ticks?: number;
  /** timed requests of each route (default 200) */
  requests?: number;
}

/** Runs the benchmark. */
export async function benchPoll(options: PollBenchOptions = {}): Promise<PollBench> {
  const ticks = options.ticks ?? 40;
  const requests = options.requests ?? 200;
  const live = await startLiveRuns(options.runs ?? 50, "bench-poll");
  const home = Deno.makeTempDirSync({ prefix: "asm-bench-poll-" });
  let server: ServeChild | null = null;
  try {
    const tick = timeTicks(home, live, ticks);
    const empty = timeTicks(join(home, "empty"), null, ticks);
    const procRead = timeProcRead(live, ticks);
    const socketTable = timeSocketTable(ticks);
    server = await startServeChild({
      seed: (ledger) => live.events(Date.now()).forEach((e) => ledger.applyEvent(e)),
    });
    await server.timed("/api/live", 5);
    const liveMs: number[] = [];
    const health: number[] = [];
    // interleaved so both routes see the same machine weather
    for (let i = 0; i < requests; i++) {
      liveMs.push(...await server.timed("/api/live", 1));
      health.push(...await server.timed("/api/health", 1));
    }
    const answer = await (await server.api("/api/live")).json();
    const figures = {
      tick_p50_ms: round(p50(tick.wall)),
      proc_read_p50_ms: round(p50(procRead)),
      api_live_p50_ms: round(p50(liveMs)),
      health_p50_ms: round(p50(health)),
    };
    return {
      runs: live.runs.length,
      ticks,
      open_runs_after: tick.openRunsAfter,
      tick_p50_ms: figures.tick_p50_ms,
      tick_p90_ms: round(percentile(tick.wall, 90)),
      tick_cpu_ms: round(tick.cpuMs / ticks),
      empty_tick_p50_ms: round(p50(empty.wall)),
      proc_read_p50_ms: figures.proc_read_p50_ms,
      ratio_tick_vs_proc_read: ratio(figures.tick_p50_ms, figures.proc_read_p50_ms),
      api_live_sessions: Array.isArray(answer.sessions) ? answer.sessions.length : 0,
      api_live_p50_ms: figures.api_live_p50_ms,
      health_p50_ms: figures.health_p50_ms,
      ratio_live_vs_health: ratio(figures.api_live_p50_ms, figures.health_p50_ms),
      socket_table_p50_ms: round(p50(socketTable)),
    };
  } finally {
    await server?.close();
    await live.stop();
    Deno.removeSync(home, { recursive: true });
  }
}

/**
 * `ticks` polls as the server's poll service runs them (its arguments, one state across ticks) on a ledger in
 * `asmHome` holding `live`'s sessions (none when null), after two warm-up ticks.
 */
function timeTicks(
  asmHome: string,
  live: LiveRuns | null,
  ticks: number,
): { wall: number[]; cpuMs: number; openRunsAfter: number } {
  Deno.mkdirSync(asmHome, { recursive: true, mode: 0o700 });
  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"), { harnessRoots: harnessRoots(asmHome) });
  try {
    for (const event of live?.events(Date.now()) ?? []) ledger.applyEvent(event);
    const home = join(asmHome, "home");
    const env = { HOME: home, CODEX_HOME: join(home, ".codex"), GEMINI_CLI_HOME: home, ASM_HOME: asmHome };
    const state = newPollState();
    const log = () => {};
    const tick = () => pollOnce({ ledger, env, asmHome, log, state });
    tick();
    tick();
    const wall: number[] = [];
    const cpu = process.cpuUsage();
    for (let i = 0; i < ticks; i++) {
      const started = performance.now();
      tick();
      wall.push(performance.now() - started);
    }
    const used = process.cpuUsage(cpu);
    return { wall, cpuMs: (used.user + used.system) / 1000, openRunsAfter: ledger.counts().open_runs };
  } finally {
    ledger.close();
  }
}

/** Reading every live run's process from /proc once, `times` times. */
function timeProcRead(live: LiveRuns, times: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    for (const run of live.runs) {
      if (readProc(run.pid) === null) throw new Error(`the bench's process ${run.pid} is gone`);
    }
    out.push(performance.now() - started);
  }
  return out;
}

/** Reading the kernel's IPv4 socket table, `times` times. */
function timeSocketTable(times: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    Deno.readTextFileSync("/proc/net/tcp");
    out.push(performance.now() - started);
  }
  return out;
}

if (import.meta.main) console.log(JSON.stringify(await benchPoll()));
