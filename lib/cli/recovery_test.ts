import assert from "node:assert/strict";
import { join } from "node:path";
import { hookEvent } from "../ledger/_test_utils.ts";
import { bindCard, boardLinks, type HookEvent, Ledger, openReadOnly } from "../ledger/mod.ts";
import { drainOnce } from "../inbox/mod.ts";
import { importWorld, placeFixtures } from "../history/_test_utils.ts";
import { takeSnapshot } from "../recovery/mod.ts";
import { startServer } from "../server/mod.ts";
import { rebuildCli } from "./recovery.ts";

function drained(asmHome: string, ledger: Ledger, event: HookEvent): void {
  Deno.writeTextFileSync(join(asmHome, "inbox", `${event.event_id}.json`), JSON.stringify(event));
  const report = drainOnce({ asmHome, ledger, log: () => {}, failures: new Map() });
  assert.equal(report.applied, 1);
}

Deno.test("./asm rebuild on a deleted ledger restores the snapshot, re-applies the events kept after it, and re-imports", async () => {
  const w = importWorld();
  try {
    placeFixtures(w);
    for (const dir of ["inbox", "processed"]) Deno.mkdirSync(join(w.asmHome, dir), { recursive: true });
    const inSnapshot = hookEvent({
      agent_session_id: "in-the-snapshot",
      session_name: "Kept by the snapshot",
    });
    drained(w.asmHome, w.ledger, inSnapshot);
    await takeSnapshot({ asmHome: w.asmHome, copy: (target) => w.ledger.snapshotInto(target) });
    const afterIt = hookEvent({
      agent_session_id: "after-the-snapshot",
      session_name: "Only in processed/",
      ts: "2026-11-29T23:00:00.000Z",
    });
    drained(w.asmHome, w.ledger, afterIt);
    w.ledger.close();
    Deno.removeSync(join(w.asmHome, "ledger.sqlite"));

    const lines: string[] = [];
    const code = await rebuildCli({ asmHome: w.asmHome, env: w.env, out: { line: (t) => lines.push(t) } });
    const said = lines.join("\n");
    assert.equal(code, 0, said);
    assert.match(said, /there was no ledger file to keep/);
    assert.match(said, /restored the snapshot of .*: 1 session\(s\)/);
    assert.match(said, /2 retained event file\(s\) in processed\/: 1 applied again, 1 already in the ledger/);
    assert.match(said, /importing the transcripts again\n[\s\S]*imported \d+ file\(s\)/);

    const rebuilt = openReadOnly(join(w.asmHome, "ledger.sqlite"))!;
    try {
      const ids = rebuilt.sessions({ all: true }).map((s) => s.asm_id);
      assert.ok(ids.includes(inSnapshot.asm_id), "the snapshot's session");
      assert.ok(ids.includes(afterIt.asm_id), "the session only the retained events knew");
      assert.ok(ids.length > 2, `the transcripts were imported again (${ids.length} sessions)`);
    } finally {
      rebuilt.close();
    }
  } finally {
    Deno.removeSync(w.root, { recursive: true });
  }
});

Deno.test("./asm rebuild keeps the old ledger aside, never deleting it", async () => {
  const w = importWorld();
  try {
    const direct = hookEvent({ agent_session_id: "only-in-the-old-ledger" });
    w.ledger.applyEvent(direct); // applied without a file in processed/: a rebuild cannot bring it back
    w.ledger.close();
    const lines: string[] = [];
    assert.equal(
      await rebuildCli({ asmHome: w.asmHome, env: w.env, out: { line: (t) => lines.push(t) } }),
      0,
    );
    const aside = /the old ledger is kept as (\S+) \(asm never deletes it\)/.exec(lines.join("\n"))?.[1];
    assert.ok(aside, lines.join("\n"));
    assert.match(lines.join("\n"), /no snapshot in .*snapshots: the ledger starts empty/);
    const old = openReadOnly(aside)!;
    assert.deepEqual(old.sessions({ all: true }).map((s) => s.asm_id), [direct.asm_id]);
    old.close();
    const now = openReadOnly(join(w.asmHome, "ledger.sqlite"))!;
    assert.equal(now.sessions({ all: true }).length, 0);
    now.close();
  } finally {
    Deno.removeSync(w.root, { recursive: true });
  }
});

Deno.test("./asm rebuild refuses while a server runs on the data folder", async () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-rebuild-" });
  const server = startServer({ asmHome: home, port: 0, services: [], routes: [] });
  try {
    server.ledger.applyEvent(hookEvent({ agent_session_id: "served" }));
    const lines: string[] = [];
    assert.equal(await rebuildCli({ asmHome: home, out: { line: (t) => lines.push(t) } }), 1);
    assert.match(
      lines.join("\n"),
      new RegExp(
        `asm is already running \\(pid ${Deno.pid}, port ${server.port}\\).*a rebuild replaces the ledger`,
      ),
    );
    assert.equal(server.ledger.counts().sessions, 1, "the served ledger is untouched");
    assert.deepEqual([...Deno.readDirSync(home)].filter((e) => e.name.includes("before-rebuild")), []);
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("./asm rebuild with no snapshot and a damaged ledger restores no card link, and says what is lost", async () => {
  const w = importWorld();
  try {
    Deno.writeTextFileSync(
      join(w.asmHome, "board.testing.md"),
      "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n- Fix login ^c-live\n## COMPLETE ^asm-complete\n",
    );
    const s = hookEvent({ agent_session_id: "bound" });
    w.ledger.applyEvent(s);
    bindCard(w.ledger, {
      cardId: "c-live",
      asmId: s.asm_id,
      origin: "start",
      at: "2026-12-04T10:00:00.000Z",
    });
    w.ledger.close();
    Deno.writeFileSync(join(w.asmHome, "ledger.sqlite"), new TextEncoder().encode("not a database at all"));
    const lines: string[] = [];
    const env = { ...w.env, ASM_MODE: "testing" };
    assert.equal(await rebuildCli({ asmHome: w.asmHome, env, out: { line: (t) => lines.push(t) } }), 0);
    const said = lines.join("\n");
    assert.match(said, /the ledger set aside cannot give its card links: .* not a database/);
    assert.match(
      said,
      /card links: none restored: there is no snapshot, and the ledger set aside could not give them\n/,
    );
    assert.match(
      said,
      /links made before this rebuild cannot be restored: 1 card\(s\) in IN PROCESS have no session now \(c-live\)/,
    );
  } finally {
    Deno.removeSync(w.root, { recursive: true });
  }
});

Deno.test("./asm rebuild with no board file restores the card links unchecked, and says so", async () => {
  const w = importWorld();
  try {
    const s = hookEvent({ agent_session_id: "bound" });
    w.ledger.applyEvent(s);
    bindCard(w.ledger, { cardId: "c-1", asmId: s.asm_id, origin: "start", at: "2026-12-04T10:00:00.000Z" });
    w.ledger.close();
    const lines: string[] = [];
    const env = { ...w.env, ASM_MODE: "testing" };
    assert.equal(await rebuildCli({ asmHome: w.asmHome, env, out: { line: (t) => lines.push(t) } }), 0);
    const said = lines.join("\n");
    assert.match(said, /card links: 1 restored from the ledger set aside; 0 not restored\n/);
    assert.match(
      said,
      /the board could not be read \(there is no board file at .*board\.testing\.md\), so the links were restored without checking that their cards are still on it/,
    );
    assert.deepEqual(
      [...Deno.readDirSync(w.asmHome)].filter((e) => e.name.startsWith("board")),
      [],
      "no board file made",
    );
    const rebuilt = Ledger.open(join(w.asmHome, "ledger.sqlite"));
    assert.deepEqual(boardLinks(rebuilt).map((l) => `${l.cardId}->${l.asmId}`), [`c-1->${s.asm_id}`]);
    rebuilt.close();
  } finally {
    Deno.removeSync(w.root, { recursive: true });
  }
});
