import assert from "node:assert/strict";
import { CardClaimed, Claims } from "./claims.ts";
import { plan } from "./plan.ts";
import type { Link, LiveSessionFacts, PlanInput, SessionStatusFacts } from "./types.ts";

const AGENTS = [{ name: "claude", tag: "claude" }];
const S1: LiveSessionFacts = {
  asmId: "s1",
  agent: "claude",
  title: "Fix login",
  project: "webapp",
  mintable: true,
  unsure: false,
};

function world(
  claims: Claims,
  w: {
    live: LiveSessionFacts[];
    statuses?: Record<string, SessionStatusFacts["status"]>;
    process?: string[];
    complete?: string[];
    links: Link[];
  },
): PlanInput {
  const card = (id: string) => ({ id, name: "Fix login #webapp #claude", children: [] });
  return {
    live: new Map(w.live.map((s) => [s.asmId, s])),
    statuses: new Map(Object.entries(w.statuses ?? {})),
    board: { plan: [], process: (w.process ?? []).map(card), complete: (w.complete ?? []).map(card) },
    links: w.links,
    claims: claims.view(),
    agents: AGENTS,
  };
}

function link(asmId: string | null, over: Partial<Link> = {}): Link {
  return {
    cardId: "c1",
    asmId,
    origin: "start",
    syncedTitle: "Fix login",
    dropped: false,
    completed: false,
    filing: false,
    ...over,
  };
}

function fakeClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

Deno.test("a pass between START's move and the session registering does not drop the card", () => {
  const clock = fakeClock();
  const claims = new Claims({ now: clock.now });
  const pending = { live: [], process: ["c1"], links: [link(null)] };
  // without the claim, the card in IN PROCESS with no session is exactly what rule 4 drops
  assert.deepEqual(plan(world(claims, pending)), [{ kind: "drop", cardId: "c1" }]);

  const start = claims.claim("c1", "start");
  // tag, move, bind, launch ... then the button returns and the claim waits for the session
  start.holdUntilLive();
  clock.advance(12_000);
  assert.deepEqual(claims.settle(new Set(), () => null), []);
  assert.deepEqual(plan(world(claims, pending)), []);

  // registered but not yet bound: still held
  assert.deepEqual(claims.settle(new Set(["s1"]), () => null), []);
  // bound to a session in the live set: released, and the card is simply kept
  assert.deepEqual(claims.settle(new Set(["s1"]), () => "s1"), ["c1"]);
  assert.deepEqual(plan(world(claims, { live: [S1], process: ["c1"], links: [link("s1")] })), []);
});

Deno.test("a window closed seconds after RESUME: once its launch registered, the hold ends and the card drops", () => {
  const claims = new Claims({ now: fakeClock().now });
  claims.claim("c1", "resume").holdUntilLive("asmlt_resume");
  const gone = { live: [], process: ["c1"], statuses: { s1: "ended" as const }, links: [link("s1")] };
  // no pass saw the session live before its window closed; the launch has not registered yet: held
  assert.deepEqual(claims.settle(new Set(), () => "s1", () => false), []);
  assert.deepEqual(plan(world(claims, gone)), []);
  // the launch registered (a run carries its token), and the session is gone again: released, and dropped
  assert.deepEqual(claims.settle(new Set(), () => "s1", (token) => token === "asmlt_resume"), ["c1"]);
  assert.deepEqual(plan(world(claims, gone)), [{ kind: "drop", cardId: "c1" }]);
  // another launch's registration ends no one else's hold
  claims.claim("c1", "start").holdUntilLive("asmlt_mine");
  assert.deepEqual(claims.settle(new Set(), () => null, (token) => token === "asmlt_other"), []);
});

Deno.test("a pass right after END does not restore the card; it stays in COMPLETE after the claim and a restart", () => {
  const claims = new Claims({ now: fakeClock().now });
  const end = claims.claim("c1", "end");
  // mark killed, close the window, file the card to COMPLETE; the liveness snapshot still holds the session
  end.holdUntilGone("s1");
  const filed = { complete: ["c1"], links: [link("s1", { completed: true })] };
  assert.deepEqual(claims.view().ending, new Set(["c1"]));
  assert.deepEqual(plan(world(claims, { ...filed, live: [S1], statuses: { s1: "live" } })), []);
  assert.deepEqual(
    claims.settle(new Set(["s1"]), () => "s1"),
    [],
    "held while the session is in the live set",
  );

  // the session leaves the snapshot: the claim goes, and the status keeps the card where it is
  assert.deepEqual(claims.settle(new Set(), () => "s1"), ["c1"]);
  assert.deepEqual(plan(world(claims, { ...filed, live: [], statuses: { s1: "killed" } })), []);

  // a restart forgets every claim; a stale live set still holding the killed session restores nothing
  const afterRestart = new Claims();
  assert.deepEqual(plan(world(afterRestart, { ...filed, live: [S1], statuses: { s1: "killed" } })), []);
});

Deno.test("a button that fails releases its claim, and the card can be claimed again", async () => {
  const claims = new Claims();
  async function startButton(): Promise<void> {
    const claim = claims.claim("c1", "start");
    try {
      await Promise.reject(new Error("the window could not be opened"));
      claim.holdUntilLive();
    } catch (err) {
      claim.release();
      throw err;
    }
  }
  await assert.rejects(startButton(), /window could not be opened/);
  assert.equal(claims.view().claimed.size, 0);
  claims.claim("c1", "resume").release();
  assert.equal(claims.view().claimed.size, 0);
});

Deno.test("a second button on a claimed card is refused with a sentence", () => {
  const claims = new Claims();
  claims.claim("c1", "end");
  assert.throws(() => claims.claim("c1", "done"), (err: unknown) => {
    assert.ok(err instanceof CardClaimed);
    assert.match(err.message, /another action \(END\) is still under way on this card/);
    return true;
  });
  // other cards are free
  claims.claim("c2", "start");
  assert.deepEqual(claims.view().claimed, new Set(["c1", "c2"]));
  assert.deepEqual(claims.view().ending, new Set(["c1"]));
});

Deno.test("an old handle never ends a newer claim on the same card", () => {
  const claims = new Claims();
  const first = claims.claim("c1", "start");
  first.release();
  const second = claims.claim("c1", "resume");
  first.release();
  first.holdUntilGone("s1");
  assert.deepEqual(claims.view().claimed, new Set(["c1"]));
  second.release();
  assert.equal(claims.view().claimed.size, 0);
});

Deno.test("a hold ends after maxHoldMs: a launch that never registers, a session that never leaves", () => {
  const clock = fakeClock();
  const claims = new Claims({ now: clock.now, maxHoldMs: 150_000 });
  claims.claim("launch", "start").holdUntilLive();
  claims.claim("end", "end").holdUntilGone("s1");
  claims.claim("busy", "done"); // a button still working holds its claim whatever the time
  clock.advance(149_999);
  assert.deepEqual(claims.settle(new Set(["s1"]), () => null), []);
  clock.advance(1);
  assert.deepEqual(claims.settle(new Set(["s1"]), () => null).sort(), ["end", "launch"]);
  assert.deepEqual(claims.view().claimed, new Set(["busy"]));
});
