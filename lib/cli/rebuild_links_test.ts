/**
 * `./asm rebuild` and the board's card links, end to end: links made the way the product makes them (START from
 * a card, the session's hook event through the drain, a pass of the sweep binding it; the session's end dropping
 * its card; END filing one to COMPLETE) on a Markdown board in a real data folder, then `asm rebuild` run as a
 * person runs it (main.ts in a process of its own), then the links read back from the rebuilt ledger.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { markdownOutliner } from "../board/mod.ts";
import { DEFAULT_LIST_IDS } from "../config/mod.ts";
import { loadAgents } from "../agents/mod.ts";
import { asmIdOf, boardLinks, type HookEvent, Ledger } from "../ledger/mod.ts";
import { hookEvent } from "../ledger/_test_utils.ts";
import { drainOnce } from "../inbox/mod.ts";
import type { ActionDeps, TerminalHost } from "../launch/mod.ts";
import { bootId, identityOf } from "../procs/mod.ts";
import {
  BoardLock,
  BoardMemo,
  type ButtonDeps,
  Claims,
  endCard,
  startCard,
  sweepOnce,
} from "../reconcile/mod.ts";
import { standInHome } from "../reconcile/_test_utils.ts";
import { restoreNewestSnapshot, takeSnapshot } from "../recovery/mod.ts";
import { REBUILD_PENDING } from "./recovery.ts";

const BOARD = [
  "# Sprint",
  "## SPRINT PLAN ^asm-plan",
  ...["a", "b", "c", "d", "e"].flatMap((x) => [`- Card ${x} #webapp #typist ^c-${x}`, `  - do ${x}`]),
  "## IN PROCESS ^asm-process",
  "## COMPLETE ^asm-complete",
  "",
].join("\n");

/** A data folder with a Markdown board, a ledger, and the sweep's and buttons' dependencies on them. */
function linkWorld() {
  const { root, asmHome, folder, env } = standInHome("asm-rebuild-links-");
  Deno.writeTextFileSync(
    join(asmHome, "config.toml"),
    `mode = "testing"\n[board]\nfolders = { webapp = "${folder}" }\n`,
  );
  const boardFile = join(asmHome, "board.testing.md");
  Deno.writeTextFileSync(boardFile, BOARD);
  for (const dir of ["inbox", "processed"]) Deno.mkdirSync(join(asmHome, dir));
  const ledger = Ledger.open(join(asmHome, "ledger.sqlite"));
  const processes: Deno.ChildProcess[] = [];
  const carriers = new Map<string, Partial<HookEvent>>();
  const host: TerminalHost = {
    name: "fake",
    open: () => Promise.resolve({ windowId: "@1", paneId: "%1", panePid: Deno.pid }),
    panes: () => Promise.resolve([]),
    windowCount: () => Promise.resolve(0),
    type: () => Promise.resolve(),
    focus: () => Promise.resolve(),
    attach: () => Promise.reject(new Error("the fake host has no view")),
    attachCommand: () => "",
  };
  const agents = loadAgents({ asmHome, env });
  const actions: ActionDeps = {
    ledger,
    asmHome,
    env,
    host,
    agents,
    endWaitMs: 3000,
    kill: (pid, signal) => Deno.kill(pid, signal),
  };
  const deps: ButtonDeps = {
    outliner: markdownOutliner(boardFile, { lists: DEFAULT_LIST_IDS }),
    ledger,
    claims: new Claims(),
    agents: agents.map((a) => ({ name: a.name, tag: a.tag })),
    lock: new BoardLock(),
    memo: new BoardMemo(),
    log: () => {},
    actions,
    folderOf: (tag) => tag === "webapp" ? folder : null,
    wake: () => {},
  };
  /** A hook event through the inbox and the real drain, as the hook and the server make it. */
  const drained = (event: HookEvent) => {
    Deno.writeTextFileSync(join(asmHome, "inbox", `${event.event_id}.json`), JSON.stringify(event));
    const report = drainOnce({ asmHome, ledger, log: () => {}, failures: new Map() });
    assert.equal(report.applied, 1);
  };
  let closed = false;
  return {
    root,
    asmHome,
    boardFile,
    ledger,
    deps,
    /** START on the card, its session's first hook event (carrying the launch's token), a pass binding it. */
    async started(cardId: string): Promise<string> {
      const { launch } = await startCard(deps, cardId, { agent: "typist" });
      const child = new Deno.Command("sleep", { args: ["60"], stdout: "null", stderr: "null" }).spawn();
      processes.push(child);
      const carrier = {
        agent_pid: child.pid,
        agent_proc_start: identityOf(child.pid)!.procStart,
        boot_id: bootId(),
      };
      const sid = `session-${cardId}`;
      carriers.set(sid, carrier);
      drained(hookEvent({
        agent: "typist",
        agent_session_id: sid,
        cwd: folder,
        ...carrier,
        session_name: launch.name,
        launch_token: launch.token,
        ts: new Date().toISOString(),
      }));
      const pass = await sweepOnce(deps, { fresh: true, dryRun: false });
      assert.deepEqual(pass.bound, [cardId]);
      return asmIdOf("typist", sid);
    },
    /** The session's own end (its SessionEnd hook), then a pass: its card is dropped. */
    async ended(cardId: string): Promise<void> {
      const sid = `session-${cardId}`;
      drained(hookEvent({
        agent: "typist",
        agent_session_id: sid,
        event: "SessionEnd",
        source: "other",
        cwd: folder,
        ...carriers.get(sid),
        ts: new Date().toISOString(),
      }));
      const pass = await sweepOnce(deps, { fresh: true, dryRun: false });
      assert.deepEqual(pass.actions, [{ kind: "drop", cardId }]);
    },
    /** END on the card: its session is ended and the card filed to COMPLETE. */
    async endedByEnd(cardId: string): Promise<void> {
      const result = await endCard(deps, actions, cardId);
      assert.deepEqual(result.card, { id: cardId, filed: true, problem: null });
    },
    /** The card's lines taken out of the board file, as a person deletes it in an editor. */
    deletedByHand(cardId: string): void {
      const lines = Deno.readTextFileSync(boardFile).split("\n");
      const at = lines.findIndex((l) => l.endsWith(`^${cardId}`));
      let end = at + 1;
      while (lines[end]?.startsWith("  ")) end++;
      lines.splice(at, end - at);
      Deno.writeTextFileSync(boardFile, lines.join("\n"));
    },
    closeLedger(): void {
      if (!closed) ledger.close();
      closed = true;
    },
    /** `./asm rebuild` in a process of its own, as a person runs it; its exit code and what it printed. */
    async rebuild(): Promise<{ code: number; said: string }> {
      this.closeLedger();
      const main = fileURLToPath(new URL("../../main.ts", import.meta.url));
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--node-modules-dir=manual", main, "rebuild"],
        env: { ...Deno.env.toObject(), ...env, ASM_MODE: "testing" },
        stdin: "null",
      }).output();
      const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      return { code: out.code, said };
    },
    /** The rebuilt ledger's links, as `card->session` with their marks. */
    linksAfter(): string[] {
      const rebuilt = Ledger.open(join(asmHome, "ledger.sqlite"));
      try {
        return words(rebuilt);
      } finally {
        rebuilt.close();
      }
    },
    async [Symbol.asyncDispose]() {
      this.closeLedger();
      for (const p of processes) {
        try {
          p.kill("SIGKILL");
        } catch { /* ended by END already */ }
        await p.status;
      }
      Deno.removeSync(root, { recursive: true });
    },
  };
}

function words(ledger: Ledger): string[] {
  return boardLinks(ledger).map((l) =>
    `${l.cardId}->${l.asmId}${l.dropped ? " dropped" : ""}${l.completed ? " completed" : ""}`
  ).sort();
}

Deno.test("./asm rebuild keeps the card links START, a drop and END made: card, session, dropped and completed", async () => {
  await using w = linkWorld();
  const a = await w.started("c-a");
  const b = await w.started("c-b");
  const c = await w.started("c-c");
  const d = await w.started("c-d");
  await w.ended("c-b");
  await w.endedByEnd("c-c");
  w.deletedByHand("c-d");
  const before = words(w.ledger);
  assert.deepEqual(before, [`c-a->${a}`, `c-b->${b} dropped`, `c-c->${c} completed`, `c-d->${d}`]);

  const { code, said } = await w.rebuild();
  assert.equal(code, 0, said);
  assert.match(said, /no snapshot in .*: the ledger starts empty/);
  assert.match(
    said,
    /asm rebuild: card links: 3 restored from the ledger set aside; 1 not restored: their card is no longer on the board \(c-d\)\n/,
  );
  assert.doesNotMatch(said, /cannot be restored/);
  assert.deepEqual(w.linksAfter(), before.slice(0, 3), "the three links, as they were");
});

Deno.test("./asm rebuild with the set-aside ledger unreadable takes the snapshot's links and says which it could not restore", async () => {
  await using w = linkWorld();
  const a = await w.started("c-a");
  const b = await w.started("c-b");
  const c = await w.started("c-c");
  await takeSnapshot({ asmHome: w.asmHome, copy: (target) => w.ledger.snapshotInto(target) });
  // after the snapshot: one card dropped, one filed by END, one started
  await w.ended("c-b");
  await w.endedByEnd("c-c");
  const e = await w.started("c-e");
  assert.deepEqual(words(w.ledger), [`c-a->${a}`, `c-b->${b} dropped`, `c-c->${c} completed`, `c-e->${e}`]);
  w.closeLedger();
  // the ledger file is damaged: its header is gone
  const file = await Deno.open(join(w.asmHome, "ledger.sqlite"), { write: true });
  await file.write(new TextEncoder().encode("this is not a database header"));
  file.close();

  const { code, said } = await w.rebuild();
  assert.equal(code, 0, said);
  assert.match(
    said,
    /the ledger set aside cannot give its card links: .*ledger\.sqlite\.before-rebuild-\S+ cannot be (opened|read): .*not a database/,
  );
  assert.match(
    said,
    /card links: 3 restored from the snapshot of \S+, their dropped and completed marks as the board shows the cards now; 0 not restored/,
  );
  assert.match(
    said,
    /links made or changed after \S+ cannot be restored: 1 card\(s\) in IN PROCESS have no session now \(c-e\); the next pass gives each the live session whose title matches it, or drops it to SPRINT PLAN/,
  );
  // the snapshot knew them all live and unmarked: the board tells the drop and the filing made since
  assert.deepEqual(w.linksAfter(), [`c-a->${a}`, `c-b->${b} dropped`, `c-c->${c} completed`]);
});

Deno.test("./asm rebuild after one cut short right after it set the ledger aside takes the links from that ledger", async () => {
  await using w = linkWorld();
  const a = await w.started("c-a");
  const b = await w.started("c-b");
  await takeSnapshot({ asmHome: w.asmHome, copy: (target) => w.ledger.snapshotInto(target) });
  // after the snapshot: one card dropped, one more started
  await w.ended("c-b");
  const e = await w.started("c-e");
  const before = words(w.ledger);
  assert.deepEqual(before, [`c-a->${a}`, `c-b->${b} dropped`, `c-e->${e}`]);
  w.closeLedger();
  // the first rebuild's first step, then its end (a kill, a full disk): the ledger aside and its record written,
  // the snapshot in place of it, nothing replayed and no link restored
  restoreNewestSnapshot(
    w.asmHome,
    Date.now,
    (asideAs) => Deno.writeTextFileSync(join(w.asmHome, REBUILD_PENDING), `${asideAs}\n`, { mode: 0o600 }),
  );

  const { code, said } = await w.rebuild();
  assert.equal(code, 0, said);
  assert.match(
    said,
    /an earlier rebuild was cut short: the card links come from the ledger it set aside, \S+before-rebuild-/,
  );
  assert.match(said, /card links: 3 restored from the ledger set aside; 0 not restored/);
  assert.deepEqual(w.linksAfter(), before, "every link, with its mark, as before the first rebuild");
  assert.throws(
    () => Deno.statSync(join(w.asmHome, REBUILD_PENDING)),
    Deno.errors.NotFound,
    "the record is gone",
  );
});
