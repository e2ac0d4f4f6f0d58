/**
 * Codex's hidden title thread, with the REAL Codex in a tmux window against its loopback fake: after each prompt
 * (until a title is accepted) the TUI starts an ephemeral thread of its own that asks the model for a title. That
 * thread has no rollout, no writer lock and no row in Codex's index; its only trace is its notify. Two prompts,
 * and the fake answers the two title requests in both orders around the session's own turn end (the first after
 * it, the second before it), so the drain meets the title thread's notify on either side of the session's Stop.
 * The session must stay ONE row: in the ledger (hidden rows included), in `/api/sessions` and in `/api/live`.
 * @module
 */
import assert from "node:assert/strict";
import { loadAgents } from "../lib/agents/mod.ts";
import { asmIdOf } from "../lib/ledger/mod.ts";
import { sharedLiveWorld } from "./live_world.ts";

/** The words that open Codex 0.169's title request (its TUI's own prompt). */
const TITLE = "^Generate a concise, single-line task title";

const world = sharedLiveWorld(loadAgents().filter((a) => a.name === "codex"), {
  services: [],
  fakeScripts: {
    codex: [
      // not a JSON title: Codex keeps no title and asks again after the next prompt
      { match: `${TITLE}.*first words`, reply: { text: "no title here" }, delayMs: 2500 },
      { match: `${TITLE}.*second words`, reply: { text: "no title either" } },
      { match: "^second words$", reply: { text: "the second reply" }, delayMs: 2500 },
    ],
  },
});

/** The thread ids of the title requests the fake received, in order. */
function titleThreads(requests: { headers: Record<string, string>; body: unknown }[]): string[] {
  const ids = requests.filter((r) =>
    JSON.stringify(r.body ?? "").includes("Generate a concise, single-line task")
  )
    .map((r) => r.headers["thread-id"]);
  return [...new Set(ids)];
}

Deno.test({
  name:
    "Codex's hidden title thread makes no row: one session in the ledger and the API, whichever of the title " +
    "and the turn ends first",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const w = await world();
    const fake = w.fakes.get("codex")!;
    await using run = await w.startInteractive("codex", {
      argv: (prompt) => ["--no-daemon", "--dangerously-bypass-hook-trust", prompt],
      prompt: "first words",
      stalledAfterMs: 60_000,
    });
    const ledger = run.ledger;
    // the server's own drain (its orphan rule, as `asm serve` runs it), then a poll
    const settle = async (what: string, done: () => boolean) => {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
        w.drain();
        run.poll();
        if (done()) return;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`timed out waiting for ${what}; rows ${
        JSON.stringify(ledger.query(
          "SELECT agent_session_id, status FROM sessions WHERE agent = 'codex'",
        ))
      }; events ${JSON.stringify(ledger.query("SELECT agent_session_id, event, outcome FROM events"))}`);
    };
    const stops = (id: string) =>
      ledger.query(
        "SELECT ts FROM events WHERE agent_session_id = ? AND event = 'Stop' AND outcome = 'applied' " +
          "AND json_extract(payload, '$.source') IS NULL ORDER BY ts",
        id,
      ).map((e) => String(e.ts));
    const ends = (id: string) =>
      ledger.query("SELECT ts, outcome FROM events WHERE agent_session_id = ? ORDER BY ts", id).map((e) => ({
        ts: String(e.ts),
        outcome: String(e.outcome),
      }));
    const main = () =>
      ledger.query("SELECT agent_session_id FROM sessions WHERE agent = 'codex'")[0]
        ?.agent_session_id as string | undefined;

    // first prompt: the title is answered 2.5 s after the session's turn ended
    await settle("the first turn's end and its title thread's notify", () => {
      const id = main();
      const titles = titleThreads(fake.requests());
      return id !== undefined && stops(id).length === 1 && titles.length === 1 && ends(titles[0]).length > 0;
    });
    // second prompt: the title is answered at once, the session's reply 2.5 s later
    await run.type("second words");
    await settle("the second turn's end and its title thread's notify", () => {
      const titles = titleThreads(fake.requests());
      return stops(main()!).length === 2 && titles.length === 2 && ends(titles[1]).length > 0;
    });

    const session = main()!;
    const [first, second] = titleThreads(fake.requests());
    assert.ok(first !== session && second !== session, "each title request came from a thread of its own");
    const [stop1, stop2] = stops(session);
    assert.ok(ends(first)[0].ts > stop1, "the first title thread ended after the session's first turn");
    assert.ok(ends(second)[0].ts < stop2, "the second title thread ended before the session's second turn");
    for (const title of [first, second]) {
      assert.equal(ledger.session(asmIdOf("codex", title)), null, `the title thread ${title} has no row`);
      for (const e of ends(title)) {
        assert.match(e.outcome, /^ignored: .*title/, "its events are kept as evidence");
      }
    }

    const rows = ledger.query("SELECT asm_id, agent_session_id, status FROM sessions WHERE agent = 'codex'")
      .map((r) => ({ ...r }));
    assert.deepEqual(rows, [{
      asm_id: asmIdOf("codex", session),
      agent_session_id: session,
      status: "live",
    }]);
    const listed = await (await w.server.api("/api/sessions?all=1")).json();
    assert.deepEqual(
      listed.sessions.filter((s: { agent: string }) => s.agent === "codex").map((s: { asm_id: string }) =>
        s.asm_id
      ),
      [asmIdOf("codex", session)],
      "the list shows the one session",
    );
    const live = await (await w.server.api("/api/live?all=1")).json();
    assert.deepEqual(
      live.sessions.filter((s: { agent: string }) => s.agent === "codex").map((s: { asm_id: string }) =>
        s.asm_id
      ),
      [asmIdOf("codex", session)],
      "one live row",
    );
  },
});
