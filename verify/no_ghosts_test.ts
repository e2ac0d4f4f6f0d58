/**
 * No ghost rows, end to end, with the three REAL agents in one world whose server drains and polls on its own
 * timers (as `asm serve` does): a session whose hooks cannot prove its agent's process is judged by the process
 * the hook ran under, so killing that process ends the row within the poll interval and 5 s, though its pane's
 * shell runs on; and a session no process of which was ever recorded offers END in a real Chromium, whose END
 * records it lost and files its card to COMPLETE without signalling anything.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadAgents } from "../lib/agents/mod.ts";
import { bindCard, isoAt, linkOf, UNSEEN_END_REASON } from "../lib/ledger/mod.ts";
import { UNSURE_NO_PROCESS } from "../lib/liveness/mod.ts";
import { readProc } from "../lib/procs/mod.ts";
import { POLL_EVERY_MS, SERVICES } from "../lib/server/mod.ts";
import { statusWord } from "../lib/ui/mod.ts";
import { launchChromium, openWithKey } from "./browser.ts";
import { sharedLiveWorld } from "./live_world.ts";

const BOARD = "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n" +
  "- Chase the vanished build #webapp #claude ^c-ghost01\n## COMPLETE ^asm-complete\n";

const world = sharedLiveWorld(loadAgents().filter((a) => ["claude", "codex", "gemini"].includes(a.name)), {
  // the server's own poll, on its own timer: the bound below is the poll interval's
  services: SERVICES.filter((s) => s.name === "poll"),
  drainEveryMs: 250,
  folders: ["webapp"],
  config: (folders) => ({ board: { folders: { webapp: folders.get("webapp") } } }),
  asmFiles: { "board.testing.md": BOARD },
});

/** Every agent's hook entry unable to prove its process (globs that match nothing); restored by the return. */
function hooksThatProveNothing(asmHome: string): () => void {
  const path = join(asmHome, "hook-agents.json");
  const original = Deno.readTextFileSync(path);
  const config = JSON.parse(original) as { agents: Record<string, { exe: string[]; script: string[] }> };
  for (const entry of Object.values(config.agents)) {
    entry.exe = ["/nowhere/no-such-agent"];
    entry.script = [];
  }
  Deno.writeTextFileSync(path, JSON.stringify(config));
  return () => Deno.writeTextFileSync(path, original);
}

Deno.test({
  name:
    "a session whose hooks prove no agent process is judged by the process its hook ran under, and reads " +
    "ENDED within the poll interval + 5 s of that process's SIGKILL, its pane's shell still running " +
    "(Claude Code, Codex, Gemini CLI)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const w = await world();
    const restore = hooksThatProveNothing(w.asmHome);
    try {
      const starts: Record<string, (p: string) => string[]> = {
        claude: (p) => [p],
        codex: (p) => ["--no-daemon", "--dangerously-bypass-hook-trust", p],
        gemini: (p) => ["--prompt-interactive", p],
      };
      const seen = await Promise.all(
        Object.entries(starts).map(async ([name, argv]) => {
          await using run = await w.startInteractive(name, {
            argv,
            prompt: "hello",
            stalledAfterMs: 60_000,
            underShell: true,
          });
          // the server drains and polls by itself: this only reads the ledger
          const row = await waitFor(`${name}'s first turn to end`, 40_000, () => {
            const r = run.row();
            return r && (r.activity === "idle" || r.activity === "waiting") && run.openRuns().length > 0 && r;
          });
          const events = run.ledger.query(
            "SELECT json_extract(payload, '$.agent_pid') AS pid FROM events WHERE asm_id = ?",
            row.asm_id,
          );
          assert.ok(
            events.length > 0 && events.every((e) => e.pid === null),
            `${name}: no event proved a pid`,
          );
          const procs = await run.agentProcesses();
          const runs = run.openRuns();
          assert.equal(runs.length, 1, `${name}: one run`);
          const judged = procs.find((p) => p.pid === runs[0].pid && p.startTicks === runs[0].proc_start);
          assert.ok(
            judged,
            `${name}: the run is the agent's own process (${runs[0].pid}), not its pane's shell`,
          );
          assert.equal(row.unsure_reason, null, `${name}: its process is known, so it is not unsure`);

          // the agent dies without a word (a crash, an OOM kill); the pane's shell is not touched
          const panes = new Set(
            (await w.tmux(["list-panes", "-a", "-F", "#{pane_pid}"])).out.trim().split("\n").map(Number),
          );
          let pane = judged.ppid;
          while (pane > 1 && !panes.has(pane)) pane = readProc(pane)?.ppid ?? 0;
          assert.ok(panes.has(pane), `${name}: the agent runs under its pane's shell`);
          const killedAt = Date.now();
          for (const p of procs) Deno.kill(p.pid, "SIGKILL");
          const ended = await waitFor(`${name}'s row to end`, POLL_EVERY_MS + 15_000, () => {
            const s = run.ledger.session(row.asm_id)!;
            return statusWord(s.status, s.end_reason).word === "ENDED" && s;
          });
          const ms = Date.now() - killedAt;
          assert.ok(readProc(pane) !== null, `${name}: the pane's shell (pid ${pane}) still runs`);
          return { name, ms, status: ended.status };
        }),
      );
      for (const { name, ms, status } of seen) {
        console.log(
          `${name}: ENDED (${status}) ${ms} ms after the SIGKILL (bound ${POLL_EVERY_MS + 5000} ms)`,
        );
        assert.ok(ms <= POLL_EVERY_MS + 5000, `${name}: ENDED ${ms} ms after the kill`);
      }
    } finally {
      restore();
    }
  },
});

Deno.test({
  name: "a session whose hook recorded no process reads UNSURE and offers END at 1920 and 390 px; END from " +
    "its card records it lost, signals nothing and files the card to COMPLETE (Chromium)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const w = await world();
    const sessionId = crypto.randomUUID();
    // a hook event that names no process at all (no proven agent, no judged process)
    const asmId = w.hookEvent({
      agent: "claude",
      agent_session_id: sessionId,
      cwd: w.folders.get("webapp")!,
      session_name: "Chase the vanished build",
      agent_pid: null,
      agent_proc_start: null,
      judged_pid: null,
      judged_proc_start: null,
    });
    bindCard(w.server.ledger, { cardId: "c-ghost01", asmId, origin: "start", at: isoAt() });
    // the server's poll finds nothing to prove it by
    await waitFor("the poll to call the session unsure", POLL_EVERY_MS + 10_000, () => {
      const r = w.server.ledger.query("SELECT unsure_reason FROM sessions WHERE asm_id = ?", asmId)[0];
      return r?.unsure_reason === UNSURE_NO_PROCESS;
    });
    const windows = await w.windows();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await openWithKey(page, w.server, "/?all=1&poll_ms=500");
      const card = page.locator('[data-lane="process"] [data-card-for="c-ghost01"]');
      for (const width of [1920, 390]) {
        await page.setViewportSize({ width, height: 900 });
        const row = page.locator(`tr[data-row-for="${asmId}"]`);
        await row.locator("td.status", { hasText: "UNSURE" }).waitFor({ timeout: 15_000 });
        const end = row.getByRole("button", { name: "END", exact: true });
        assert.equal(await end.isVisible(), true, `${width} px: the row offers END`);
        await card.locator("[data-status-for]", { hasText: "UNSURE" }).waitFor({ timeout: 15_000 });
        const cardEnd = card.locator('button[data-button="end"]');
        assert.equal(await cardEnd.isVisible(), true, `${width} px: the card offers END`);
        assert.notEqual(await cardEnd.getAttribute("class"), "refused", `${width} px: END is not refused`);
        console.log(`${width} px: the row reads UNSURE with END; the card offers END unrefused`);
      }
      await card.locator('button[data-button="end"]').click();
      const notice = page.locator('[data-card-for="c-ghost01"] .card-notice');
      await notice.filter({ hasText: "signalled nothing" }).waitFor({ timeout: 15_000 });
      await page.locator('[data-lane="complete"] [data-card-for="c-ghost01"]').waitFor({ timeout: 15_000 });
      const s = w.server.ledger.session(asmId)!;
      assert.deepEqual([s.status, s.end_reason], ["lost", UNSEEN_END_REASON]);
      assert.equal(linkOf(w.server.ledger, "c-ghost01")?.completed, true, "the card is filed, its link kept");
      assert.match(Deno.readTextFileSync(join(w.asmHome, "board.testing.md")), /## COMPLETE[^]*c-ghost01/);
      assert.equal(await w.windows(), windows, "no window was touched");
      await page.locator(`tr[data-row-for="${asmId}"] td.status`, { hasText: "ENDED" }).waitFor({
        timeout: 15_000,
      });
      console.log(
        "END: the card is in COMPLETE, the row reads ENDED, the ledger says lost; nothing signalled",
      );
    } finally {
      await browser.close();
    }
  },
});

/** Polls `probe` every 100 ms until it gives a value; fails with `what` after `ms`. */
async function waitFor<T>(what: string, ms: number, probe: () => T | false | null | undefined): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
