/**
 * `./asm bench api`: a generated ledger of 10,000 sessions behind a real server; `GET /api/sessions` p50,
 * `GET /api/live` p50 and the Sessions page's time to interactive in Chromium, with baselines measured in the same
 * run (`GET /api/health` for the routes; the same page with scripts off for the page). One JSON line.
 * Targets (not asserted anywhere): sessions <= 150 ms, live <= 5 ms, time to interactive <= 1.5 s.
 * @module
 */
import { asmIdOf, type HookEvent, isoAt } from "../lib/ledger/mod.ts";
import { startServer } from "../lib/server/mod.ts";
import { launchChromium, openWithKey } from "../verify/browser.ts";
import { ROUTES } from "../routes/mod.ts";

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
}

function p50(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)] * 100) / 100;
}

function event(
  agent: string,
  sid: string,
  kind: string,
  ts: string,
  extra: Partial<HookEvent> = {},
): HookEvent {
  return {
    v: 1,
    event_id: crypto.randomUUID(),
    asm_id: asmIdOf(agent, sid),
    agent,
    event: kind,
    raw_event: kind,
    ts,
    agent_session_id: sid,
    transcript_path: null,
    cwd: `/home/user/projects/project-${sid.length % 57}`,
    source: kind === "SessionEnd" ? "other" : "startup",
    launch_token: null,
    session_name: null,
    agent_pid: 100000 + Number(sid.split("-").pop()),
    agent_proc_start: 1,
    boot_id: "bench",
    ancestors: [],
    nested: false,
    entrypoint: "cli",
    pid_shared: false,
    hook_ms: 1,
    payload: {},
    ...extra,
  };
}

async function timed(url: string, count: number, token: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    out.push(performance.now() - t);
  }
  return out;
}

/** Runs the benchmark on `sessions` generated sessions (default 10,000). */
export async function benchApi(options: { sessions?: number; loads?: number } = {}): Promise<ApiBench> {
  const count = options.sessions ?? 10_000;
  const loads = options.loads ?? 5;
  const home = Deno.makeTempDirSync({ prefix: "asm-bench-api-" });
  const env = { ...Deno.env.toObject(), HOME: home, CODEX_HOME: `${home}/.codex`, GEMINI_CLI_HOME: home };
  const server = startServer({ asmHome: home, port: 0, services: [], env, routes: ROUTES });
  const browser = await launchChromium();
  try {
    const agents = ["claude", "codex", "gemini"];
    const start = Date.parse("2024-01-01T00:00:00.000Z");
    for (let i = 0; i < count; i++) {
      const agent = agents[i % 10 < 6 ? 0 : i % 10 < 9 ? 1 : 2];
      const sid = `bench-session-${i}`;
      const t = start + i * 60_000;
      server.ledger.applyEvent(
        event(agent, sid, "SessionStart", isoAt(t), { session_name: `Bench session ${i}` }),
      );
      // 40 of them stay live, the rest ended
      if (i < count - 40) server.ledger.applyEvent(event(agent, sid, "SessionEnd", isoAt(t + 30_000)));
    }
    await timed(`${server.url}/api/sessions`, 2, server.token);
    const sessions = await timed(`${server.url}/api/sessions`, 20, server.token);
    const live = await timed(`${server.url}/api/live`, 50, server.token);
    const health = await timed(`${server.url}/api/health`, 50, server.token);

    const tti: number[] = [];
    const htmlOnly: number[] = [];
    const page = await browser.newPage();
    await openWithKey(page, server, "/");
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
    const result: ApiBench = {
      sessions: count,
      api_sessions_p50_ms: p50(sessions),
      api_live_p50_ms: p50(live),
      health_p50_ms: p50(health),
      tti_p50_ms: p50(tti),
      html_only_p50_ms: p50(htmlOnly),
      ratio_sessions_vs_health: 0,
      ratio_live_vs_health: 0,
      ratio_tti_vs_html_only: 0,
    };
    result.ratio_sessions_vs_health = Math.round((result.api_sessions_p50_ms / result.health_p50_ms) * 100) /
      100;
    result.ratio_live_vs_health = Math.round((result.api_live_p50_ms / result.health_p50_ms) * 100) / 100;
    result.ratio_tti_vs_html_only = Math.round((result.tti_p50_ms / result.html_only_p50_ms) * 100) / 100;
    return result;
  } finally {
    await browser.close();
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await benchApi()));
