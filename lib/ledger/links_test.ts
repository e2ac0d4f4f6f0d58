import assert from "node:assert/strict";
import { DB, Ledger } from "./ledger.ts";
import {
  bindCard,
  bindLaunchedSessions,
  boardLinks,
  cardOfSession,
  launchedSessionOf,
  linkedSessions,
  linkedStatuses,
  linkOf,
  liveSessionFacts,
  markCompleted,
  markDropped,
  markRestored,
  setSyncedTitle,
  unbindCard,
  unboundLiveSessions,
} from "./links.ts";
import { type LaunchRequested, matchLaunch, recordLaunch } from "./launches.ts";
import { plan } from "../reconcile/plan.ts";

const T0 = "2026-11-29T22:00:00.000Z";
const T1 = "2026-11-29T22:00:01.000Z";
const T2 = "2026-11-29T22:00:02.000Z";

function memoryLedger() {
  const ledger = Ledger.open(":memory:");
  return { ledger, [Symbol.dispose]: () => ledger.close() };
}

interface SessionSeed {
  asm_id: string;
  agent?: string;
  status?: string;
  name?: string | null;
  title?: string | null;
  project?: string | null;
  source?: string | null;
  thread_source?: string | null;
  nested?: number;
  harness?: number;
  prompts?: number;
  turns?: number | null;
  unsure_reason?: string | null;
  launch_token?: string | null;
  started_at?: string;
}

/** A session row as the drain and the import would leave it: by default a driven, mintable one. */
function seed(ledger: Ledger, s: SessionSeed): void {
  ledger[DB].write((db) =>
    db.prepare(
      `INSERT INTO sessions (asm_id, agent, agent_session_id, status, name, title, project, source, thread_source,
         nested, harness, prompts, turns, unsure_reason, launch_token, started_at)
       VALUES ($asm_id, $agent, $asm_id, $status, $name, $title, $project, $source, $thread_source, $nested,
         $harness, $prompts, $turns, $unsure_reason, $launch_token, $started_at)`,
    ).run({
      agent: "claude",
      status: "live",
      name: null,
      title: "Fix login",
      project: "webapp",
      source: "interactive",
      thread_source: null,
      nested: 0,
      harness: 0,
      prompts: 1,
      turns: null,
      unsure_reason: null,
      launch_token: null,
      started_at: T0,
      ...s,
    })
  );
}

function launch(over: Partial<LaunchRequested>): LaunchRequested {
  return {
    token: "asmlt_a",
    agent: "claude",
    kind: "launch",
    cwd: "/home/user/webapp",
    name: null,
    model: null,
    sprint_node: "c1",
    script_path: "/a/launches/a.sh",
    prompt_path: null,
    requested_at: T1,
    continues_asm_id: null,
    resumes_asm_id: null,
    waiting_reason: null,
    host: "tmux",
    ...over,
  };
}

Deno.test("a binding is stored, marked dropped, restored, completed, and unbound", () => {
  using t = memoryLedger();
  const ledger = t.ledger;
  bindCard(ledger, {
    cardId: "c1",
    asmId: "s1",
    origin: "create",
    title: "Fix login",
    syncedTitle: "Fix login",
    at: T0,
  });
  assert.deepEqual(boardLinks(ledger), [{
    cardId: "c1",
    asmId: "s1",
    origin: "create",
    syncedTitle: "Fix login",
    dropped: false,
    completed: false,
    filing: false,
  }]);
  assert.equal(markDropped(ledger, "c1", T1), true);
  assert.equal(linkOf(ledger, "c1")?.dropped, true);
  assert.equal(linkOf(ledger, "c1")?.asmId, "s1", "the binding stays when the card is dropped");
  markRestored(ledger, "c1");
  assert.equal(linkOf(ledger, "c1")?.dropped, false);
  markCompleted(ledger, "c1", T2);
  assert.deepEqual([linkOf(ledger, "c1")?.completed, linkOf(ledger, "c1")?.asmId], [true, "s1"]);
  assert.equal(cardOfSession(ledger, "s1"), "c1");
  assert.equal(unbindCard(ledger, "c1"), true);
  assert.equal(unbindCard(ledger, "c1"), false);
  assert.deepEqual(boardLinks(ledger), []);
  assert.equal(cardOfSession(ledger, "s1"), null);
  assert.equal(markDropped(ledger, "c1", T1), false, "a mark on a card with no link changes nothing");
});

Deno.test("a rebind to the same session keeps the title in sync; another session starts without one", () => {
  using t = memoryLedger();
  const ledger = t.ledger;
  bindCard(ledger, { cardId: "c1", asmId: "s1", origin: "create", syncedTitle: "Fix login", at: T0 });
  markDropped(ledger, "c1", T0);
  // RESUME: the same session
  bindCard(ledger, { cardId: "c1", asmId: "s1", origin: "resume", at: T1 });
  assert.deepEqual(linkOf(ledger, "c1"), {
    cardId: "c1",
    asmId: "s1",
    origin: "resume",
    syncedTitle: "Fix login",
    dropped: false,
    completed: false,
    filing: false,
  });
  // CONTINUE: pending on its launch, then another session
  bindCard(ledger, { cardId: "c1", asmId: null, origin: "continue", at: T2 });
  assert.equal(linkOf(ledger, "c1")?.syncedTitle, null);
  bindCard(ledger, { cardId: "c1", asmId: "s2", origin: "adopt", syncedTitle: "Given", at: T2 });
  assert.equal(linkOf(ledger, "c1")?.syncedTitle, "Given");
  assert.equal(setSyncedTitle(ledger, "c1", "Agreed"), true);
  assert.equal(setSyncedTitle(ledger, "c1", "Agreed"), false, "an unchanged title is not written again");
  assert.equal(linkOf(ledger, "c1")?.syncedTitle, "Agreed");
});

Deno.test("a START's card gets the session of its launch, by the hook's token or the launch's match", () => {
  using t = memoryLedger();
  const ledger = t.ledger;
  bindCard(ledger, { cardId: "c1", asmId: null, origin: "start", at: T0 });
  recordLaunch(ledger, launch({ token: "asmlt_a", requested_at: T1 }));
  assert.deepEqual(bindLaunchedSessions(ledger), [], "no session yet");
  assert.equal(launchedSessionOf(ledger, "c1"), null);
  // the hook carried the token: the drain stored it on the session before the poll matched the launch
  seed(ledger, { asm_id: "s1", launch_token: "asmlt_a" });
  assert.equal(launchedSessionOf(ledger, "c1"), "s1");
  assert.deepEqual(bindLaunchedSessions(ledger), [{ cardId: "c1", asmId: "s1" }]);
  assert.equal(linkOf(ledger, "c1")?.asmId, "s1");
  assert.deepEqual(bindLaunchedSessions(ledger), [], "bound once");

  // CONTINUE rebinds the same card: the old launch (before the rebind) is not its session
  bindCard(ledger, { cardId: "c1", asmId: null, origin: "continue", at: T2 });
  assert.deepEqual(bindLaunchedSessions(ledger), []);
  assert.equal(launchedSessionOf(ledger, "c1"), null);
  recordLaunch(ledger, launch({ token: "asmlt_b", requested_at: T2, kind: "continue" }));
  seed(ledger, { asm_id: "s2" });
  matchLaunch(ledger, "asmlt_b", "s2", "ancestry", T2);
  assert.deepEqual(bindLaunchedSessions(ledger), [{ cardId: "c1", asmId: "s2" }]);
  assert.equal(cardOfSession(ledger, "s2"), "c1");
});

Deno.test("the live set for the planner: every live session, the mint rule's answer, the doubt, the title shown", () => {
  using t = memoryLedger();
  const ledger = t.ledger;
  seed(ledger, { asm_id: "a", name: "Named by hand", started_at: T0 });
  seed(ledger, { asm_id: "b", source: null, started_at: T1 });
  seed(ledger, {
    asm_id: "c",
    nested: 1,
    unsure_reason: "no run, and Claude's registry does not list it",
    started_at: T2,
  });
  seed(ledger, { asm_id: "d", status: "ended" });
  seed(ledger, { asm_id: "e", status: "starting", title: null, prompts: 0, started_at: T2 });
  const live = liveSessionFacts(ledger);
  assert.deepEqual([...live.keys()], ["a", "b", "c", "e"]);
  assert.deepEqual(live.get("a"), {
    asmId: "a",
    agent: "claude",
    title: "Named by hand",
    project: "webapp",
    mintable: true,
    unsure: false,
    status: "live",
    mintRefusal: null,
    hiddenReason: null,
  });
  assert.deepEqual([live.get("b")?.mintable, live.get("b")?.mintRefusal], [
    false,
    "not known to be interactive",
  ]);
  assert.deepEqual(
    [live.get("c")?.mintRefusal, live.get("c")?.unsure, live.get("c")?.hiddenReason],
    ["sub-agent", true, "sub-agent"],
  );
  assert.deepEqual([live.get("e")?.status, live.get("e")?.mintRefusal], ["starting", "no typed prompt"]);

  bindCard(ledger, { cardId: "c1", asmId: "d", origin: "create", at: T0 });
  bindCard(ledger, { cardId: "c2", asmId: "a", origin: "create", at: T0 });
  assert.deepEqual(linkedStatuses(ledger), new Map([["a", "live"], ["d", "ended"]]));
  assert.deepEqual(linkedSessions(ledger).get("d"), {
    agent: "claude",
    status: "ended",
    unsure_reason: null,
  });
  // not on the plan: visible, live, unbound (the sub-agent is hidden, a is bound)
  assert.deepEqual(unboundLiveSessions(ledger), [
    { asm_id: "b", agent: "claude", title: "Fix login", reason: "not known to be interactive" },
    { asm_id: "e", agent: "claude", title: null, reason: "no typed prompt" },
  ]);
});

Deno.test("the ledger's facts, planned: a driven session gets a card once, then is left alone", () => {
  using t = memoryLedger();
  const ledger = t.ledger;
  seed(ledger, { asm_id: "s1" });
  seed(ledger, { asm_id: "headless", source: "headless", title: "Nightly run" });
  const facts = () => ({
    live: liveSessionFacts(ledger),
    statuses: linkedStatuses(ledger),
    links: boardLinks(ledger),
    claims: { claimed: new Set<string>(), ending: new Set<string>() },
    agents: [{ name: "claude", tag: "claude" }],
  });
  const first = plan({ ...facts(), board: { plan: [], process: [], complete: [] } });
  assert.deepEqual(first, [{ kind: "create", asmId: "s1", name: "Fix login #webapp #claude" }]);
  // the sweep writes the card, then binds it with the title it wrote
  bindCard(ledger, {
    cardId: "c1",
    asmId: "s1",
    origin: "create",
    title: "Fix login",
    syncedTitle: "Fix login",
    at: T1,
  });
  const board = {
    plan: [],
    process: [{ id: "c1", name: "Fix login #webapp #claude", children: [] }],
    complete: [],
  };
  assert.deepEqual(plan({ ...facts(), board }), []);
});
