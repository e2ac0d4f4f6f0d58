/**
 * Failed and retried turns, end to end, with the REAL agents (Codex, Gemini CLI) started interactively in tmux
 * windows of one world shared by this file's tests, against their loopback fakes: a turn the API answers with a
 * non-retryable error reads Turn failed on the first poll after the agent wrote the turn's end, with the agent's
 * own message in the API and on the session page; a turn the API answers 503 a few times and then answers reads
 * Retrying, then Working, then Idle where the agent leaves evidence of its retries (Codex), and never Turn failed
 * where it leaves none (Gemini CLI: a documented gap). Each test drains and polls itself (no server poll), with
 * the world's poll: every agent's evidence, as the server's poll has it (an agent's own `run.poll()` asks only
 * that agent, so a poll for one agent running beside another would judge the other's sessions without theirs).
 * @module
 */
import assert from "node:assert/strict";
import { loadAgents } from "../lib/agents/mod.ts";
import { activityWord } from "../lib/liveness/mod.ts";
import { type InteractiveAgent, sharedLiveWorld } from "./live_world.ts";

const world = sharedLiveWorld(loadAgents().filter((a) => ["codex", "gemini"].includes(a.name)), {
  services: [],
});

/** --no-daemon: the TUI is the agent; the hooks of a scratch home are untrusted, so the bypass flag runs them. */
const CODEX = ["--no-daemon", "--dangerously-bypass-hook-trust"];

/** A row's activity as the page shows it: the stored key and its reason. */
function shown(run: InteractiveAgent): string {
  const r = run.row();
  return r?.activity ? `${r.activity}${r.activity_reason ? `: ${r.activity_reason}` : ""}` : "";
}

/**
 * Drains and polls every 250 ms until the agent's own file shows the turn's end (`ended` on its text), then polls
 * ONCE more and returns the row that poll left, with every activity seen before.
 */
async function afterTurnEnd(run: InteractiveAgent, ended: (text: string) => boolean, ms: number) {
  const w = await world();
  const seen: string[] = [];
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    run.drain();
    const row = run.row();
    const path = row ? run.ledger.session(row.asm_id)?.transcript_path : null;
    let done = false;
    try {
      done = !!path && ended(Deno.readTextFileSync(path));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    w.poll();
    if (done) return { row: run.row()!, seen };
    const now = shown(run);
    if (now && seen.at(-1) !== now) seen.push(now);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${run.agent.name}: the turn did not end in ${ms} ms; seen ${seen.join(" -> ")}`);
}

/** The text of an HTML page, tags dropped and entities read. */
function pageText(html: string): string {
  return html.replace(/<[^>]*>/g, "").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Asserts the session's failed turn and its message, as the API and the session page give them. */
async function assertFailedShown(
  run: InteractiveAgent,
  asmId: string,
  message: string | RegExp,
): Promise<void> {
  const w = await world();
  const api = await (await w.server.api(`/api/sessions/${asmId}`)).json();
  assert.equal(api.session.activity, "failed", `${run.agent.name}: the API's activity`);
  if (typeof message === "string") assert.equal(api.session.activity_reason, message);
  else assert.match(api.session.activity_reason, message);
  const page = await w.server.api(`/sessions/${asmId}`);
  assert.equal(page.status, 200);
  const html = await page.text();
  const text = pageText(html);
  assert.ok(
    text.includes(`Turn failed: ${api.session.activity_reason}`),
    `${run.agent.name}: the session page shows the failed turn's message; its activity cell reads ${
      /data-activity-for[^>]*>([^<]*)</.exec(html)?.[1]
    }`,
  );
}

Deno.test({
  name:
    "a turn the API answers 400 reads Turn failed on the first poll after the agent wrote its end, with the " +
    "agent's own message in the API and on the session page (Codex, Gemini CLI)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const w = await world();
    await Promise.all([
      (async () => {
        await using run = await w.startInteractive("codex", {
          argv: (p) => [...CODEX, p],
          prompt: "hello FAIL_HTTP:400",
          stalledAfterMs: 60_000,
        });
        // Codex ends a failed turn with a task_complete carrying the error
        const { row, seen } = await afterTurnEnd(run, (t) => t.includes('"task_complete"'), 30_000);
        assert.equal(row.activity, "failed", `Codex: after ${seen.join(" -> ")}`);
        assert.equal(activityWord(row.activity), "Turn failed");
        // the body of the 400 answer, as Codex recorded it
        await assertFailedShown(
          run,
          row.asm_id,
          '{"error":{"message":"mock failure 400","type":"api_error"}}',
        );
      })(),
      (async () => {
        await using run = await w.startInteractive("gemini", {
          argv: (p) => ["--prompt-interactive", p],
          prompt: "hello FAIL_HTTP:400",
          stalledAfterMs: 60_000,
        });
        // Gemini CLI ends a failed turn with an error record in its chat (and its AfterAgent hook fires as well)
        const { row, seen } = await afterTurnEnd(run, (t) => t.includes('"type":"error"'), 40_000);
        assert.equal(row.activity, "failed", `Gemini CLI: after ${seen.join(" -> ")}`);
        await assertFailedShown(
          run,
          row.asm_id,
          '[API Error: {"error":{"code":400,"message":"mock failure 400","status":"INVALID_ARGUMENT"}}]',
        );
      })(),
    ]);
  },
});

Deno.test({
  name: "a Codex whose provider key is missing reads Turn failed with Codex's own words, not Idle",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using run = await (await world()).startInteractive("codex", {
      // the provider's key read from a variable nobody set (the case the issue was found on)
      argv: (p) => [...CODEX, "-c", "model_providers.mock.env_key=ASM_TEST_UNSET_KEY", p],
      prompt: "hello",
      stalledAfterMs: 60_000,
    });
    const { row, seen } = await afterTurnEnd(run, (t) => t.includes('"task_complete"'), 30_000);
    assert.equal(row.activity, "failed", `after ${seen.join(" -> ")}`);
    await assertFailedShown(run, row.asm_id, /ASM_TEST_UNSET_KEY/);
  },
});

/** Drains and polls until `done` holds for the row's activity, recording each activity seen (reason dropped). */
async function activitiesUntil(run: InteractiveAgent, done: (seen: string[]) => boolean, ms: number) {
  const w = await world();
  const seen: string[] = [];
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    run.drain();
    w.poll();
    const a = run.row()?.activity;
    if (a && seen.at(-1) !== a) seen.push(a);
    if (done(seen)) return seen;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${run.agent.name}: timed out after ${ms} ms; seen ${seen.join(" -> ")}`);
}

/** Whether `words` appear in `seen` in this order (others may come between). */
function inOrder(seen: string[], words: string[]): boolean {
  let i = 0;
  for (const s of seen) if (s === words[i]) i++;
  return i === words.length;
}

Deno.test({
  name: "a turn the API answers 503 five times and then answers reads Retrying, then Working, then Idle in " +
    "Codex (its log's retry rows), and never Turn failed in Gemini CLI (which leaves no retry evidence)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const w = await world();
    // Codex writes its log rows to its database about every 10 s (observed on 0.169), so the retries (five answers
    // held 2.5 s each) and the reply's stream (held 12 s) each outlast one write: Retrying, then Working, is seen
    const prompt = "hello RETRY:503x5 SLOW:2500 STREAM_SLOW:12000";
    await Promise.all([
      (async () => {
        await using run = await w.startInteractive("codex", {
          // the world's provider retries nothing (fast failures elsewhere); Codex's own sampling retries here
          argv: (p) => [...CODEX, "-c", "model_providers.mock.stream_max_retries=8", p],
          prompt,
          stalledAfterMs: 60_000,
        });
        const seen = await activitiesUntil(run, (s) => inOrder(s, ["retrying", "working", "idle"]), 75_000);
        assert.ok(!seen.includes("failed"), `Codex: ${seen.join(" -> ")}`);
        console.log(`Codex: ${seen.join(" -> ")}`);
      })(),
      (async () => {
        await using run = await w.startInteractive("gemini", {
          argv: (p) => ["--prompt-interactive", p],
          prompt,
          stalledAfterMs: 60_000,
        });
        const seen = await activitiesUntil(run, (s) => inOrder(s, ["working", "idle"]), 75_000);
        assert.ok(!seen.includes("failed") && !seen.includes("retrying"), `Gemini CLI: ${seen.join(" -> ")}`);
        console.log(`Gemini CLI: ${seen.join(" -> ")}`);
      })(),
    ]);
  },
});
