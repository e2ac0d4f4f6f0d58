/**
 * The hook's cost per run, as an agent pays it: the installer's wrapper (docs/runbook.md section 3) on a temporary
 * ASM_HOME with its own DENO_DIR, fed a recorded Claude UserPromptSubmit payload (the hook that runs on every
 * prompt), against two baselines measured in the same run, interleaved with it: the floor, an empty script run the
 * same way (the same wrapper shape, runtime, flags and warmed DENO_DIR: what any hook on this runtime costs), and
 * a minimal POSIX sh that does the same file work (read stdin, write tmp, rename).
 * Run as main it prints one JSON line: `{"p50_ms","p90_ms","floor_p50_ms","ratio_vs_floor","sh_p50_ms","ratio",
 * "runs"}`. Target (reported, never asserted): the hook's p50 <= 1.3x the floor's.
 * @module
 */
import { parse } from "smol-toml";
import { percentile, ratio, round } from "./figures.ts";

/** Figures of one bench run, in milliseconds of wall time around each process spawn. */
export interface HookBench {
  p50_ms: number;
  p90_ms: number;
  /** an empty script under the same runtime, flags and DENO_DIR */
  floor_p50_ms: number;
  /** p50_ms / floor_p50_ms: the hook's own work on top of the runtime's start */
  ratio_vs_floor: number;
  sh_p50_ms: number;
  /** p50_ms / sh_p50_ms */
  ratio: number;
  runs: number;
}

/** Options of {@linkcode benchHook}. */
export interface HookBenchOptions {
  /** measured runs of each program (default 40); one warm-up run of each comes on top, not counted */
  runs?: number;
}

const HOOK = new URL("../hooks/hook.ts", import.meta.url).pathname;
const AGENTS_TOML = new URL("../lib/agents/agents.toml", import.meta.url).pathname;
const FIXTURE = new URL(
  "../../shared/fixtures/claude/p-mode/hook-dumps/221323.531-UserPromptSubmit-13429.json",
  import.meta.url,
).pathname;
/** The same recorded payload, for checkouts that have no shared/fixtures beside them. */
const RECORDED_PAYLOAD = JSON.stringify({
  session_id: "cb871653-c018-4b00-b2c0-436d50121d59",
  transcript_path:
    "/tmp/cc-home-3/.claude/projects/-tmp-cc-proj-3/cb871653-c018-4b00-b2c0-436d50121d59.jsonl",
  cwd: "/tmp/cc-proj-3",
  permission_mode: "bypassPermissions",
  hook_event_name: "UserPromptSubmit",
  prompt: "model test F",
}) + "\n";

/** Runs the hook, the floor and the sh baseline `runs` times each, interleaved, and returns their wall times. */
export async function benchHook(options: HookBenchOptions = {}): Promise<HookBench> {
  const runs = options.runs ?? 40;
  const home = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-bench-hook-" }));
  try {
    const wrapper = writeWrapper(home, "asm-hook", HOOK);
    Deno.writeTextFileSync(`${home}/empty.ts`, "");
    const floorWrapper = writeWrapper(home, "empty", `${home}/empty.ts`);
    Deno.writeTextFileSync(`${home}/hook-agents.json`, JSON.stringify(hookAgents()));
    const payload = new TextEncoder().encode(recordedPayload());
    const baselineOut = `${home}/sh-out`;
    Deno.mkdirSync(baselineOut);
    const hookRun = () => timeRun(wrapper, ["claude"], payload);
    const floorRun = () => timeRun(floorWrapper, ["claude"], payload);
    const shRun = (i: number) =>
      timeRun(
        "/bin/sh",
        ["-c", 'cat > "$1.tmp" && mv "$1.tmp" "$1"', "sh", `${baselineOut}/${i}.json`],
        payload,
      );
    // the first hook run transpiles into the fresh DENO_DIR and fills the code cache: not counted
    await hookRun();
    await floorRun();
    await shRun(-1);
    const hookMs: number[] = [];
    const floorMs: number[] = [];
    const shMs: number[] = [];
    // interleaved so the three programs see the same machine weather
    for (let i = 0; i < runs; i++) {
      hookMs.push(await hookRun());
      floorMs.push(await floorRun());
      shMs.push(await shRun(i));
    }
    assertEveryRunWrote(home, runs + 1);
    const p50 = percentile(hookMs, 50);
    const floorP50 = percentile(floorMs, 50);
    const shP50 = percentile(shMs, 50);
    return {
      p50_ms: round(p50, 1),
      p90_ms: round(percentile(hookMs, 90), 1),
      floor_p50_ms: round(floorP50, 1),
      ratio_vs_floor: ratio(p50, floorP50),
      sh_p50_ms: round(shP50, 1),
      ratio: ratio(p50, shP50),
      runs,
    };
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
}

/** The installer's wrapper, byte for byte the runbook's shape, running `script`. */
function writeWrapper(home: string, name: string, script: string): string {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  Deno.mkdirSync(`${home}/bin`, { recursive: true });
  const wrapper = `${home}/bin/${name}`;
  Deno.writeTextFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `ASM_HOME=${quote(home)}; export ASM_HOME`,
      `DENO_DIR=${quote(`${home}/cache/deno`)}; export DENO_DIR`,
      `exec ${quote(Deno.execPath())} run -A --no-config --no-lock --no-prompt ${quote(script)} "$@"`,
      "",
    ].join("\n"),
  );
  Deno.chmodSync(wrapper, 0o755);
  return wrapper;
}

/**
 * hook-agents.json as the installer writes it from agents.toml (events merged with notify_events), so the hook
 * runs against the real globs of every agent.
 */
function hookAgents(): { v: 1; agents: Record<string, unknown> } {
  const table = parse(Deno.readTextFileSync(AGENTS_TOML)) as Record<string, Record<string, unknown>>;
  const agents: Record<string, unknown> = {};
  for (const [name, agent] of Object.entries(table)) {
    const keys = ["exe", "script", "shared", "session_env", "pid_env", "entrypoint_env", "inject"];
    agents[name] = {
      ...Object.fromEntries(keys.map((key) => [key, agent[key]])),
      events: { ...agent.events as object, ...agent.notify_events as object },
    };
  }
  return { v: 1, agents };
}

function recordedPayload(): string {
  try {
    return JSON.parse(Deno.readTextFileSync(FIXTURE)).stdin_raw;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return RECORDED_PAYLOAD;
    throw err;
  }
}

/** Wall time of one process, from spawn to exit, with `input` on its stdin. */
async function timeRun(exe: string, args: string[], input: Uint8Array): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(exe, { args, stdin: "piped", stdout: "null", stderr: "null" }).spawn();
  const writer = child.stdin.getWriter();
  try {
    await writer.write(input);
    await writer.close();
  } catch (err) {
    // the floor's empty script may exit before it was handed the payload it never reads
    if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
  }
  const status = await child.status;
  const ms = performance.now() - started;
  if (status.code !== 0) throw new Error(`${exe} exited with ${status.code} during the hook bench`);
  return ms;
}

/** A bench of a hook that failed would measure the wrong thing: every run must have written its event. */
function assertEveryRunWrote(home: string, expected: number): void {
  const events = [...Deno.readDirSync(`${home}/inbox`)].filter((e) => e.name.endsWith(".json")).length;
  const failures = Deno.readTextFileSync(`${home}/hook.log`).split("\n").filter((l) =>
    l.includes('"ok":false')
  );
  if (events !== expected || failures.length) {
    throw new Error(
      `the hook wrote ${events} of ${expected} events during the bench; first failure: ${failures[0]}`,
    );
  }
}

if (import.meta.main) {
  console.log(JSON.stringify(await benchHook()));
}
