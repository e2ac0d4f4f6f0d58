/**
 * `./asm bench api`: a generated ledger of 10,000 sessions (40 of them live on sleeping processes the bench
 * starts) behind `main.ts serve` in its own process; `GET /api/sessions` p50, `GET /api/live` p50 and the
 * Sessions page's time to interactive in Chromium, with baselines measured in the same run (`GET /api/health`
 * for the routes; the same page with scripts off for the page); then the server's resident memory under load:
 * 20 clients polling `/api/live` with the token for 20 s, 60 s of rest, and a second load round (a plateau: the
 * second round adds at most 10%). One JSON line.
 * Targets (not asserted anywhere): sessions <= 150 ms, live <= 5 ms, time to interactive <= 1.5 s, second load
 * round <= 1.1x the first.
 * @module
 */
import { isoAt, type Ledger } from "../lib/ledger/mod.ts";
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

/** Runs the benchmark. */
export async function benchApi(options: ApiBenchOptions = {}): Promise<ApiBench> {
  const count = options.sessions ?? 10_000;
  const loads = options.loads ?? 5;
  const live = await startLiveRuns(Math.min(LIVE_SESSIONS, count), "bench-api");
  let server: ServeChild | null = null;
  try {
    server = await startServeChild({ seed: (ledger) => seed(ledger, count - live.runs.length, live.events) });
    await server.timed("/api/sessions", 2);
    const sessions = await server.timed("/api/sessions", 20);
    const liveMs = await server.timed("/api/live", 50);
    const health = await server.timed("/api/health", 50);
    const page = await pageTimes(server, loads);

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

/** The Sessions page's time to interactive, and the same page with scripts off, `loads` times each. */
async function pageTimes(server: ServeChild, loads: number): Promise<{ tti: number[]; htmlOnly: number[] }> {
  const browser = await launchChromium();
  try {
    const tti: number[] = [];
    const htmlOnly: number[] = [];
    const page = await browser.newPage();
    // the page trades a one-time code for its key, as after `asm open`; later loads in the context keep it
    await page.goto(`${server.url}/#code=${await server.openCode()}`);
    for (let i = 0; i < loads; i++) {
      await page.goto(`${server.url}/`);
      await page.waitForFunction(() =>
        typeof (globalThis as { __asmRenders?: number }).__asmRenders === "number"
      );
      tti.push(await page.evaluate(() => performance.now()));
    }
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    for (let i = 0; i < loads; i++) {
      await plain.goto(`${server.url}/`, { waitUntil: "load" });
      htmlOnly.push(await plain.evaluate(() => performance.now()));
    }
    await noScript.close();
    return { tti, htmlOnly };
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
