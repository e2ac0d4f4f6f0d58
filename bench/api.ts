/**
 * `./asm bench api`: a generated ledger of 10,000 sessions (40 of them live on sleeping processes the bench
 * starts) behind `main.ts serve` in its own process; `GET /api/sessions` p50, `GET /api/live` p50 and the
 * Sessions page's time to interactive in Chromium, with baselines measured in the same run (`GET /api/health`
 * for the routes; the same page with scripts off for the page); then the server's resident memory under load:
 * 20 clients polling `/api/live` with the token for 20 s, 60 s of rest, and a second load round (a plateau: the
 * second round adds at most 10%). One JSON line.
 * Targets (not asserted anywhere): sessions <= 150 ms, live <= 5 ms, time to interactive <= 1.5 s, second load
 * round <= 1.1x the first. And a session page on a 5,000-message transcript (prompts, Markdown replies, tool
 * calls and their output, in Claude Code's format): its time to interactive (target <= 1.5 s), against the same
 * page with scripts off.
 * @module
 */
import { join } from "node:path";
import { asmIdOf, isoAt, type Ledger } from "../lib/ledger/mod.ts";
import { launchChromium } from "../verify/browser.ts";
import { benchEvent } from "./events.ts";
import { p50, ratio, round } from "./figures.ts";
import { startLiveRuns } from "./live_runs.ts";
import { type ServeChild, startServeChild } from "./serve_child.ts";

/** The figures. */
export interface ApiBench {
  sessions: number;
  api_sessions_p50_ms: number;
  api_live_p50_ms: number;
  health_p50_ms: number;
  tti_p50_ms: number;
  html_only_p50_ms: number;
  ratio_sessions_vs_health: number;
  ratio_live_vs_health: number;
  ratio_tti_vs_html_only: number;
  /** the server process before the load (after the figures above) */
  rss_before_load_mb: number;
  /** right after 20 clients polled `/api/live` for 20 s */
  rss_after_load_mb: number;
  /** 60 s after that load */
  rss_after_rest_mb: number;
  /** right after a second round of the same load */
  rss_after_second_load_mb: number;
  /** rss_after_second_load_mb / rss_after_load_mb: the plateau target is <= 1.1 */
  ratio_second_vs_first_load: number;
  /** the most the server process ever held */
  hwm_mb: number;
  /** `/api/live` requests answered in each load round */
  load_requests: [number, number];
  /** messages in the session page's transcript */
  session_page_messages: number;
  /** entries the page drew (its newest page: a prompt, a reply, a tool call with its output, ...) */
  session_page_entries_shown: number;
  /** the session page's time to interactive on that transcript (p50): the target is <= 1500 */
  session_page_ms: number;
  /** the same page with scripts off */
  session_page_html_only_ms: number;
  ratio_session_page_vs_html_only: number;
}

/** Options of {@link benchApi}. */
export interface ApiBenchOptions {
  /** generated sessions (default 10,000) */
  sessions?: number;
  /** page loads of each kind (default 5) */
  loads?: number;
  /** clients of each load round (default 20) */
  clients?: number;
  /** seconds of each load round (default 20) */
  loadSeconds?: number;
  /** seconds of rest between the rounds (default 60) */
  restSeconds?: number;
}

const LIVE_SESSIONS = 40;
/** Lines (messages) of the session page's transcript. */
const PAGE_MESSAGES = 5_000;
const PAGE_SESSION = "b0b0b0b0-0000-4000-8000-000000005000";

/** Runs the benchmark. */
export async function benchApi(options: ApiBenchOptions = {}): Promise<ApiBench> {
  const count = options.sessions ?? 10_000;
  const loads = options.loads ?? 5;
  const live = await startLiveRuns(Math.min(LIVE_SESSIONS, count), "bench-api");
  let server: ServeChild | null = null;
  try {
    server = await startServeChild({
      seed: (ledger, home) => {
        seed(ledger, count - live.runs.length, live.events);
        seedTranscript(ledger, home);
      },
    });
    await server.timed("/api/sessions", 2);
    const sessions = await server.timed("/api/sessions", 20);
    const liveMs = await server.timed("/api/live", 50);
    const health = await server.timed("/api/health", 50);
    const page = await pageTimes(server, loads, "/");
    const sessionPage = await pageTimes(server, loads, `/sessions/${asmIdOf("claude", PAGE_SESSION)}`);
    // the figure is of the page with its transcript drawn, or it is of nothing
    if (sessionPage.shown < 300) {
      throw new Error(`the session page drew ${sessionPage.shown} entries of its 5,000-message transcript`);
    }

    const before = server.memory().rss_mb;
    const clients = options.clients ?? 20;
    const seconds = options.loadSeconds ?? 20;
    const first = await pollLoad(server, clients, seconds);
    const afterLoad = server.memory().rss_mb;
    await new Promise((resolve) => setTimeout(resolve, (options.restSeconds ?? 60) * 1000));
    const afterRest = server.memory().rss_mb;
    const second = await pollLoad(server, clients, seconds);
    const { rss_mb: afterSecond, hwm_mb } = server.memory();
    const figures = {
      api_sessions_p50_ms: round(p50(sessions)),
      api_live_p50_ms: round(p50(liveMs)),
      health_p50_ms: round(p50(health)),
      tti_p50_ms: round(p50(page.tti)),
      html_only_p50_ms: round(p50(page.htmlOnly)),
      session_page_ms: round(p50(sessionPage.tti)),
      session_page_html_only_ms: round(p50(sessionPage.htmlOnly)),
    };
    return {
      sessions: count,
      ...figures,
      ratio_sessions_vs_health: ratio(figures.api_sessions_p50_ms, figures.health_p50_ms),
      ratio_live_vs_health: ratio(figures.api_live_p50_ms, figures.health_p50_ms),
      ratio_tti_vs_html_only: ratio(figures.tti_p50_ms, figures.html_only_p50_ms),
      rss_before_load_mb: before,
      rss_after_load_mb: afterLoad,
      rss_after_rest_mb: afterRest,
      rss_after_second_load_mb: afterSecond,
      ratio_second_vs_first_load: ratio(afterSecond, afterLoad),
      hwm_mb,
      load_requests: [first, second],
      session_page_messages: PAGE_MESSAGES,
      session_page_entries_shown: sessionPage.shown,
      session_page_ms: figures.session_page_ms,
      session_page_html_only_ms: figures.session_page_html_only_ms,
      ratio_session_page_vs_html_only: ratio(figures.session_page_ms, figures.session_page_html_only_ms),
    };
  } finally {
    await server?.close();
    await live.stop();
  }
}

/** `ended` sessions that started and ended a minute apart, then the live runs' own starts (newest). */
function seed(
  ledger: Ledger,
  ended: number,
  liveEvents: (at: number) => ReturnType<typeof benchEvent>[],
): void {
  const agents = ["claude", "codex", "gemini"];
  const start = Date.parse("2024-01-01T00:00:00.000Z");
  for (let i = 0; i < ended; i++) {
    const agent = agents[i % 10 < 6 ? 0 : i % 10 < 9 ? 1 : 2];
    const sid = `bench-session-${i}`;
    const t = start + i * 60_000;
    const process = { agent_pid: 100000 + i, agent_proc_start: 1, boot_id: "bench" };
    ledger.applyEvent(
      benchEvent(agent, sid, "SessionStart", isoAt(t), { session_name: `Bench session ${i}`, ...process }),
    );
    ledger.applyEvent(benchEvent(agent, sid, "SessionEnd", isoAt(t + 30_000), process));
  }
  for (const event of liveEvents(start + ended * 60_000)) ledger.applyEvent(event);
}

/**
 * One Claude Code session with a transcript of {@link PAGE_MESSAGES} lines where Claude keeps them: a typed prompt,
 * a Markdown reply, a Bash call and its 20-line output, over and over.
 */
function seedTranscript(ledger: Ledger, home: string): void {
  const dir = join(home, ".claude", "projects", "-bench");
  Deno.mkdirSync(dir, { recursive: true });
  const path = join(dir, `${PAGE_SESSION}.jsonl`);
  const start = Date.parse("2026-11-01T00:00:00.000Z");
  const lines: string[] = [];
  const base = (i: number) => ({
    uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    timestamp: isoAt(start + i * 1000),
    sessionId: PAGE_SESSION,
    cwd: "/bench/project",
  });
  for (let i = 0; lines.length < PAGE_MESSAGES; i += 4) {
    const call = `toolu_bench_${i}`;
    const usage = { input_tokens: 3000, cache_read_input_tokens: 2000, output_tokens: 120 };
    lines.push(JSON.stringify({
      ...base(i),
      type: "user",
      message: { role: "user", content: `Step ${i / 4}: look at the build and fix what fails` },
      origin: { kind: "human" },
      promptSource: "typed",
    }));
    lines.push(JSON.stringify({
      ...base(i + 1),
      type: "assistant",
      message: {
        id: `msg_bench_${i}`,
        role: "assistant",
        model: "claude-bench-1",
        usage,
        content: [{
          type: "text",
          text:
            `I will **check** the build first.\n\n- read the log\n- run \`make test\`\n\n\`\`\`sh\nmake test\n\`\`\``,
        }],
      },
    }));
    lines.push(JSON.stringify({
      ...base(i + 2),
      type: "assistant",
      message: {
        id: `msg_bench_${i}`,
        role: "assistant",
        model: "claude-bench-1",
        usage,
        content: [{
          type: "tool_use",
          id: call,
          name: "Bash",
          input: { command: `make test STEP=${i / 4}` },
        }],
      },
    }));
    lines.push(JSON.stringify({
      ...base(i + 3),
      type: "user",
      message: {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: call,
          content: Array.from({ length: 20 }, (_, n) => `ok ${n} test/case_${n}.ts (${n * 3} ms)`).join("\n"),
        }],
      },
    }));
  }
  Deno.writeTextFileSync(path, lines.join("\n") + "\n");
  ledger.applyEvent(
    benchEvent("claude", PAGE_SESSION, "SessionStart", isoAt(start), {
      transcript_path: path,
      cwd: "/bench/project",
      agent_pid: 99_999,
      agent_proc_start: 1,
      boot_id: "bench",
    }),
  );
  ledger.applyEvent(benchEvent("claude", PAGE_SESSION, "SessionEnd", isoAt(start + PAGE_MESSAGES * 1000), {
    agent_pid: 99_999,
    agent_proc_start: 1,
    boot_id: "bench",
  }));
}

/** A page's time to interactive, and the same page with scripts off, `loads` times each. */
async function pageTimes(
  server: ServeChild,
  loads: number,
  path: string,
): Promise<{ tti: number[]; htmlOnly: number[]; shown: number }> {
  const browser = await launchChromium();
  try {
    const tti: number[] = [];
    const htmlOnly: number[] = [];
    const page = await browser.newPage();
    // the page trades a one-time code for its key, as after `asm open`; later loads in the context keep it
    await page.goto(`${server.url}/#code=${await server.openCode()}`);
    for (let i = 0; i < loads; i++) {
      await page.goto(`${server.url}${path}`);
      await page.waitForFunction(() =>
        typeof (globalThis as { __asmRenders?: number }).__asmRenders === "number"
      );
      tti.push(await page.evaluate(() => performance.now()));
    }
    const shown = await page.evaluate(() => document.querySelectorAll("[data-entries] .entry").length);
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    for (let i = 0; i < loads; i++) {
      await plain.goto(`${server.url}${path}`, { waitUntil: "load" });
      htmlOnly.push(await plain.evaluate(() => performance.now()));
    }
    await noScript.close();
    return { tti, htmlOnly, shown };
  } finally {
    await browser.close();
  }
}

/** `clients` loops polling `/api/live` with the token for `seconds`; the requests answered. */
async function pollLoad(server: ServeChild, clients: number, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let answered = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < until) {
      const res = await server.api("/api/live");
      if (!res.ok) throw new Error(`/api/live answered ${res.status} under load`);
      answered++;
    }
  }));
  return answered;
}

if (import.meta.main) console.log(JSON.stringify(await benchApi()));
