import assert from "node:assert/strict";
import { join } from "node:path";
import { markdownOutliner, type Outliner } from "../board/mod.ts";
import { DEFAULT_SETTINGS } from "../config/mod.ts";
import { bindCard } from "../ledger/mod.ts";
import { type BoardWorld, boardWorld, card } from "./_test_utils.ts";
import { BoardRuntime } from "./runtime.ts";
import { ManualTimers, type Timers } from "./wake.ts";

const manualTimers = () => new ManualTimers();

function runtime(w: BoardWorld, timers: Timers, outliner: Outliner = w.outliner): BoardRuntime {
  return new BoardRuntime({
    asmHome: w.asmHome,
    mode: "testing",
    board: DEFAULT_SETTINGS.board,
    ledger: w.ledger,
    log: w.deps.log,
    agents: w.deps.actions.agents,
    outliner,
    timers,
    watch: false,
  });
}

Deno.test("the first pass after a start is a logged dry run; the timer arms only after it succeeds", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  const s = w.session("typist", "Fix login");
  w.ended(s);
  bindCard(w.ledger, { cardId: "c1", asmId: s, origin: "start", at: "2026-11-29T22:00:00.000Z" });
  const clock = manualTimers();
  const board = runtime(w, clock.timers);
  board.wake(); // a wake before the dry run waits for it
  assert.deepEqual([board.cadence().armed, board.cadence().passes], [false, 0]);
  const report = await board.dryRun();
  assert.deepEqual(report?.actions, [{ kind: "drop", cardId: "c1" }]);
  assert.deepEqual(w.logs.map((l) => l.what), ["board dry run: would", "board dry run"]);
  assert.deepEqual(w.outliner.calls.map((c) => c.op), ["read"], "the dry run wrote nothing");
  assert.equal(board.cadence().armed, true);
  assert.equal(await board.dryRun(), null, "once per start");
  // the wake that came before the dry run earns one pass, after the settle window; it reads the board fresh
  assert.equal(await clock.fireNext(), 1000);
  assert.deepEqual(w.outliner.calls.slice(1).map((c) => c.op + (c.op === "read" ? ` ${c.fresh}` : "")), [
    "read true",
    "move",
    "rename",
  ]);
  // then the 20 s timer, from the memo
  assert.equal(await clock.fireNext(), 21_000);
  assert.deepEqual(w.outliner.calls.at(-1), { op: "read", fresh: false });
  await board.close();
});

Deno.test("a dry run that fails leaves the cadence unarmed and the sentence as the board's problem", async () => {
  await using w = boardWorld();
  const path = join(w.root, "board.md");
  Deno.writeTextFileSync(path, "## SPRINT PLAN ^asm-plan\n"); // two lists missing
  const clock = manualTimers();
  const board = runtime(w, clock.timers, markdownOutliner(path, { lists: DEFAULT_SETTINGS.board.lists }));
  await assert.rejects(board.dryRun());
  assert.equal(board.cadence().armed, false);
  assert.match(board.problem ?? "", /asm-process/);
  assert.equal(w.logs.filter((l) => l.what === "board problem").length, 1);
  await assert.rejects(board.dryRun());
  assert.equal(
    w.logs.filter((l) => l.what === "board problem").length,
    1,
    "one line while it stays the same",
  );
  Deno.writeTextFileSync(
    path,
    "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete\n",
  );
  await board.dryRun();
  assert.deepEqual([board.cadence().armed, board.problem], [true, null]);
  await board.close();
});

Deno.test("a driven session arriving in or leaving the live set wakes a pass; the same set does not", async () => {
  await using w = boardWorld();
  const clock = manualTimers();
  const board = runtime(w, clock.timers);
  await board.dryRun();
  board.observeLive(["a"]);
  assert.equal(board.cadence().nextAt, 20_000, "the first set is only remembered");
  board.observeLive(["a"]);
  assert.equal(board.cadence().nextAt, 20_000);
  board.observeLive(["a", "b"]);
  assert.equal(board.cadence().nextAt, 1000, "a wake: one pass after the settle window");
  await board.close();
});

Deno.test("the digest moves with the board, its links and claims, and costs no read", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #typist")] });
  const board = runtime(w, manualTimers().timers);
  assert.equal(typeof board.digest(), "string");
  await board.dryRun();
  const calls = w.outliner.calls.length;
  const first = board.digest();
  assert.equal(board.digest(), first);
  board.claims.claim("c1", "start");
  const claimed = board.digest();
  assert.notEqual(claimed, first);
  w.outliner.edit((lists) => lists.plan[0].name = "Retitled #webapp");
  assert.equal(board.digest(), claimed, "a hand edit moves it only once the server has read it");
  await board.board({ fresh: true });
  assert.notEqual(board.digest(), claimed);
  assert.equal(w.outliner.calls.length, calls + 1, "only the asked-for read");
  await board.close();
});

Deno.test("a Workflowy board whose url config.toml gives cannot be used is off, never sent to the default address", async () => {
  await using w = boardWorld();
  const board = new BoardRuntime({
    asmHome: w.asmHome,
    mode: "live",
    board: {
      ...DEFAULT_SETTINGS.board,
      backend: "workflowy",
      keyFile: "workflowy.key",
      url: "",
      lists: { plan: "p-1", process: "p-2", complete: "p-3" },
    },
    ledger: w.ledger,
    log: w.deps.log,
    agents: w.deps.actions.agents,
    timers: manualTimers().timers,
    watch: false,
  });
  assert.equal(board.deps, null);
  assert.match(board.problem ?? "", /^the board is off: config\.toml's \[board\] url cannot be used/);
  await board.close();
});
