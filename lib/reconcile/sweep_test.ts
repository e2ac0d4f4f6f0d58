import assert from "node:assert/strict";
import { pathExists } from "../files/mod.ts";
import { join } from "node:path";
import { BoardBusy, type BoardIo, markdownOutliner, REAL_BOARD_IO } from "../board/mod.ts";
import { bindCard, boardLinks, linkOf, markDropped } from "../ledger/mod.ts";
import { type BoardWorld, boardWorld, card } from "./_test_utils.ts";
import { plan } from "./plan.ts";
import { sweepOnce } from "./sweep.ts";
import type { PlanInput } from "./types.ts";

const T0 = "2026-11-29T22:00:00.000Z";

/** A session bound to card `cardId`; ended unless `live`. */
function bound(w: BoardWorld, cardId: string, options: { live?: boolean; dropped?: boolean } = {}): string {
  const s = w.session("typist", "Fix login");
  if (!options.live) w.ended(s);
  bindCard(w.ledger, { cardId, asmId: s, origin: "start", syncedTitle: "Fix login", at: T0 });
  if (options.dropped) markDropped(w.ledger, cardId, T0);
  w.settle();
  w.trace.length = 0;
  return s;
}

Deno.test("a drop re-checks the END claims at the last moment, then moves (marked dropped), then tags; the binding stays", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  const s = bound(w, "c1");
  const report = await sweepOnce(w.deps, { fresh: true, dryRun: false });
  w.settle();
  assert.deepEqual(report.actions, [{ kind: "drop", cardId: "c1" }]);
  assert.deepEqual(w.trace, [
    "read fresh",
    "move c1 plan",
    `links: c1->${s} start dropped`,
    'rename c1 "Fix login #webapp #typist #dropped"',
  ]);
});

Deno.test("a drop whose card an END claimed between the plan and the write is not made", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  bound(w, "c1");
  // the END is pressed while the pass is between its read and its writes
  const planThenEnd = (input: PlanInput) => {
    const actions = plan(input);
    w.deps.claims.claim("c1", "end");
    return actions;
  };
  const report = await sweepOnce(w.deps, { fresh: true, dryRun: false, plan: planThenEnd });
  assert.deepEqual([report.actions, report.skipped], [[{ kind: "drop", cardId: "c1" }], ["c1"]]);
  assert.deepEqual(w.trace.filter((t) => !t.startsWith("claims")), ["read fresh"], "nothing written");
  assert.deepEqual(w.outliner.lists.process.map((c) => c.id), ["c1"]);
});

Deno.test("a restore untags BEFORE it moves, and the card is no longer dropped", async () => {
  await using w = boardWorld({ plan: [card("c1", "Fix login #webapp #typist #dropped")] });
  const s = bound(w, "c1", { live: true, dropped: true });
  const report = await sweepOnce(w.deps, { fresh: true, dryRun: false });
  w.settle();
  assert.deepEqual(report.actions, [{ kind: "restore", cardId: "c1", asmId: s }]);
  assert.deepEqual(w.trace, [
    "read fresh",
    'rename c1 "Fix login #webapp #typist"',
    "move c1 process",
    `links: c1->${s} start`,
  ]);
});

Deno.test("a card typed by hand is given an id first, then planned like any other", async () => {
  await using w = boardWorld({ process: [card(null, "Typed by hand #webapp")] });
  const report = await sweepOnce(w.deps, { fresh: false, dryRun: false });
  assert.equal(report.identified, 1);
  assert.deepEqual(w.trace, [
    "read",
    "identify",
    "move mem-1 plan",
    'rename mem-1 "Typed by hand #webapp #dropped"',
  ]);
  assert.deepEqual(
    report.actions,
    [{ kind: "drop", cardId: "mem-1" }],
    "unbound in IN PROCESS, nothing matches",
  );
});

Deno.test("a hand edit between the read and a write abandons the pass's writes and plans again from a fresh read", async () => {
  await using w = boardWorld({
    process: [card("c1", "Fix login #webapp #typist"), card("c2", "Other #webapp #typist")],
  });
  bound(w, "c1");
  bound(w, "c2");
  let edits = 0;
  let planned = 0;
  const planThenEdit = (input: PlanInput) => {
    planned++;
    const actions = plan(input);
    if (edits++ === 0) {
      w.outliner.edit((lists) => (lists.process[1].name = "Other, retitled by hand #webapp #typist"));
    }
    return actions;
  };
  const report = await sweepOnce(w.deps, { fresh: false, dryRun: false, plan: planThenEdit });
  assert.equal(report.tries, 2);
  assert.deepEqual(w.trace.filter((t) => !t.startsWith("links")), [
    "read",
    "move c1 plan", // refused: the board changed since the read
    "read fresh",
    "move c1 plan",
    'rename c1 "Fix login #webapp #typist #dropped"',
    "move c2 plan",
    'rename c2 "Other, retitled by hand #webapp #typist #dropped"',
  ]);
  assert.deepEqual(w.outliner.lists.plan.map((c) => c.name), [
    "Other, retitled by hand #webapp #typist #dropped",
    "Fix login #webapp #typist #dropped",
  ], "the hand edit survives");
});

Deno.test("a hand edit between a drop's move and its tag: the card is dropped all the same, and restored later", async () => {
  await using w = boardWorld({
    process: [card("c1", "Fix login #webapp #typist")],
    plan: [card("other", "Other #webapp")],
  });
  const s = bound(w, "c1");
  const real = w.outliner;
  let edited = false;
  const outliner = {
    ...real,
    // the person types under another card the moment the drop's move is written: the tag's write is refused
    async move(
      id: string,
      list: "plan" | "process" | "complete",
      position: "top" | "bottom",
      basedOn: string,
    ) {
      const written = await real.move(id, list, position, basedOn);
      if (!edited) {
        edited = true;
        real.edit((l) => l.plan.find((c) => c.id === "other")!.children.push("typed by hand"));
      }
      return written;
    },
  };
  await sweepOnce({ ...w.deps, outliner }, { fresh: true, dryRun: false });
  assert.deepEqual(real.lists.plan.map((c) => c.id), ["c1", "other"], "moved");
  assert.equal(
    linkOf(w.ledger, "c1")?.dropped,
    true,
    "the link says dropped, though the tag was not written",
  );
  assert.deepEqual(real.lists.plan[1].children, ["typed by hand"], "the hand edit survives");
  // the session is driven again (a resume from the sessions list): the card is restored
  const live = new Map([[s, {
    asmId: s,
    agent: "typist",
    title: "Fix login",
    project: "webapp",
    mintable: true,
    unsure: false,
  }]]);
  assert.deepEqual(
    plan({
      live,
      statuses: new Map([[s, "live"]]),
      board: real.lists,
      links: boardLinks(w.ledger),
      claims: { claimed: new Set(), ending: new Set() },
      agents: [{ name: "typist", tag: "typist" }],
    }),
    [{ kind: "restore", cardId: "c1", asmId: s }],
  );
});

Deno.test("a pass on a Markdown board whose file is edited by hand mid-pass, through the file seam, keeps every other byte", async () => {
  await using w = boardWorld();
  const path = join(w.root, "board.md");
  const text =
    "---\r\ntitle: sprint\r\n---\r\n# notes   \r\n\r\n## SPRINT PLAN ^asm-plan\r\nIntro prose.\r\n" +
    "## IN PROCESS ^asm-process\r\n- Fix login #webapp #typist ^c-aaaaaa\r\n\t- the prompt\r\n\r\n> a quote\r\n" +
    "## COMPLETE ^asm-complete\r\n- Other card\t#webapp ^c-bbbbbb\r\n  - its prompt\r\n";
  Deno.writeTextFileSync(path, text);
  const hand = text.replace("Intro prose.", "Intro prose, typed while asm was writing.");
  let writes = 0;
  const io: BoardIo = {
    ...REAL_BOARD_IO,
    writeAtomic(file, bytes, options) {
      REAL_BOARD_IO.writeAtomic(file, bytes, {
        ...options,
        // the first write's new bytes are beside the board when the person's editor saves
        beforeRename: () => {
          if (writes++ === 0) Deno.writeTextFileSync(path, hand);
          options.beforeRename?.();
        },
      });
    },
  };
  const outliner = markdownOutliner(path, {
    lists: { plan: "asm-plan", process: "asm-process", complete: "asm-complete" },
    io,
  });
  bound(w, "c-aaaaaa");
  const report = await sweepOnce({ ...w.deps, outliner }, { fresh: true, dryRun: false });
  assert.equal(report.tries, 2, "the first try's write was refused, the second planned from the hand edit");
  assert.equal(
    Deno.readTextFileSync(path),
    "---\r\ntitle: sprint\r\n---\r\n# notes   \r\n\r\n## SPRINT PLAN ^asm-plan\r\n" +
      "- Fix login #webapp #typist #dropped ^c-aaaaaa\r\n\t- the prompt\r\nIntro prose, typed while asm was writing.\r\n" +
      "## IN PROCESS ^asm-process\r\n\r\n> a quote\r\n" +
      "## COMPLETE ^asm-complete\r\n- Other card\t#webapp ^c-bbbbbb\r\n  - its prompt\r\n",
    "the hand edit kept, the dropped card's lines moved and tagged, every other byte as it was",
  );
});

Deno.test("a board that changes under every try gives up with one sentence and writes nothing", async () => {
  await using w = boardWorld({ process: [card("c1", "Fix login #webapp #typist")] });
  bound(w, "c1");
  let planned = 0;
  const planThenEdit = (input: PlanInput) => {
    planned++;
    const actions = plan(input);
    w.outliner.edit((lists) => lists.process[0].children.push("autosaved"));
    return actions;
  };
  await assert.rejects(
    sweepOnce(w.deps, { fresh: false, dryRun: false, plan: planThenEdit }),
    (err) =>
      err instanceof BoardBusy && /changed 4 times in a row while asm was writing to it/.test(err.message),
  );
  assert.equal(planned, 4, "four tries in all, as the sentence says");
  assert.deepEqual(w.outliner.lists.process.map((c) => c.name), ["Fix login #webapp #typist"]);
  assert.equal(linkOf(w.ledger, "c1")?.dropped, false);
});

Deno.test("a dry run reads and plans, logs every action it would take, and writes nothing at all", async () => {
  await using w = boardWorld({
    plan: [card(null, "Typed by hand #webapp")],
    process: [card("c1", "Fix login #webapp #typist")],
  });
  bound(w, "c1");
  const links = boardLinks(w.ledger);
  const report = await sweepOnce(w.deps, { fresh: false, dryRun: true });
  w.settle();
  assert.deepEqual(report.actions, [{ kind: "drop", cardId: "c1" }]);
  assert.deepEqual(w.outliner.calls.map((c) => c.op), ["read"], "the outliner was only read");
  assert.deepEqual(w.trace, ["read"]);
  assert.deepEqual(boardLinks(w.ledger), links, "no link written");
  assert.equal(w.outliner.lists.plan[0].id, null, "no id given");
  assert.deepEqual(w.logs, [
    { what: "board dry run: would", kind: "drop", cardId: "c1" },
    { what: "board dry run", location: "memory", actions: 1, would_identify: 1, wrote: "nothing" },
  ]);
});

Deno.test("a dry run where no board exists yet makes none; the first real pass does", async () => {
  await using w = boardWorld();
  const path = join(w.root, "board.md");
  const outliner = markdownOutliner(path, {
    lists: { plan: "asm-plan", process: "asm-process", complete: "asm-complete" },
  });
  const report = await sweepOnce({ ...w.deps, outliner }, { fresh: true, dryRun: true });
  assert.deepEqual(report.actions, []);
  assert.equal(pathExists(path), false, "the dry run wrote no file");
  await sweepOnce({ ...w.deps, outliner }, { fresh: true, dryRun: false });
  assert.equal(
    Deno.readTextFileSync(path),
    "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete\n",
  );
});

Deno.test("a dry run on a Markdown board leaves the file's bytes as they were", async () => {
  await using w = boardWorld();
  const path = join(w.root, "board.md");
  const text = "# notes\n## SPRINT PLAN ^asm-plan\n- Typed by hand #webapp\n## IN PROCESS ^asm-process\n" +
    "- Fix login #webapp #typist ^c-aaaaaa\n  - the prompt\n## COMPLETE ^asm-complete\n";
  Deno.writeTextFileSync(path, text);
  const outliner = markdownOutliner(path, {
    lists: { plan: "asm-plan", process: "asm-process", complete: "asm-complete" },
  });
  bound(w, "c-aaaaaa");
  const bytes = Deno.readFileSync(path);
  const mtime = Deno.statSync(path).mtime;
  const report = await sweepOnce({ ...w.deps, outliner }, { fresh: true, dryRun: true });
  assert.deepEqual(report.actions, [{ kind: "drop", cardId: "c-aaaaaa" }]);
  assert.deepEqual(Deno.readFileSync(path), bytes);
  assert.deepEqual(Deno.statSync(path).mtime, mtime);
  // the same pass, for real, writes
  await sweepOnce({ ...w.deps, outliner }, { fresh: true, dryRun: false });
  assert.match(
    Deno.readTextFileSync(path),
    /## SPRINT PLAN \^asm-plan\n- Fix login #webapp #typist #dropped \^c-aaaaaa/,
  );
});
