import assert from "node:assert/strict";
import { join } from "node:path";
import { BoardChanged, BoardUnusable, type ListIds } from "./protocol.ts";
import { boardLocation, type MarkdownOptions, markdownOutliner } from "./markdown.ts";
import { type BoardIo, REAL_BOARD_IO } from "./markdown_io.ts";

const IDS: ListIds = { plan: "asm-plan", process: "asm-process", complete: "asm-complete" };

/** A board full of what a person keeps beside the cards: prose, other headings, CRLF, tabs, nested notes. */
const MESSY = [
  "---\r\n",
  "title: sprint\r\n",
  "---\r\n",
  "# My notes\r\n",
  "Some prose with trailing spaces   \r\n",
  "\r\n",
  "## SPRINT PLAN ^asm-plan\r\n",
  "Intro prose of the plan.\r\n",
  "- Fix the login redirect #webapp #claude ^c-7f3a2b\r\n",
  "\t- The prompt, line one\r\n",
  "\t\t- a nested note\r\n",
  "- A card typed by hand, no id yet #webapp #unknown-tag   \r\n",
  "\r\n",
  "> a quote between lists\r\n",
  "## Ideas\r\n",
  "- not a card, under another heading ^idea-1\r\n",
  "## IN PROCESS ^asm-process\r\n",
  "- Running card #api #codex ^c-000001\r\n",
  "  - its prompt\r\n",
  "\r\n",
  "```\r\n",
  "## COMPLETE ^asm-complete\r\n",
  "- a fenced example, not a card\r\n",
  "```\r\n",
  "## COMPLETE ^asm-complete\r\n",
  "- Done #webapp ^c-done\r\n",
  "trailing prose, no final line break",
].join("");

function scratch(text?: string): { dir: string; path: string; done(): void } {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-board-" }));
  const path = join(dir, "board.md");
  if (text !== undefined) Deno.writeTextFileSync(path, text);
  return { dir, path, done: () => Deno.removeSync(dir, { recursive: true }) };
}

/** Hex ids in order: c-aaaaaa, c-bbbbbb, ... */
function pinnedIds(): () => string {
  let n = 0;
  return () => "abcdef0123456789"[n++ % 16].repeat(6);
}

function board(path: string, extra: Partial<MarkdownOptions> = {}) {
  return markdownOutliner(path, { lists: IDS, randomHex: pinnedIds(), ...extra });
}

function bytes(path: string): Uint8Array {
  return Deno.readFileSync(path);
}

function leftovers(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "board.md").sort();
}

Deno.test("a board that does not exist yet is made with the three headings, mode 0600", async () => {
  const { dir, path, done } = scratch();
  try {
    const outliner = board(path);
    assert.equal(outliner.location, path);
    const read = await outliner.read();
    assert.deepEqual(read.lists, { plan: [], process: [], complete: [] });
    assert.equal(
      Deno.readTextFileSync(path),
      "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete\n",
    );
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
    assert.deepEqual(leftovers(dir), []);
  } finally {
    done();
  }
});

Deno.test("each write touches only its card's lines: the rest of a messy board is byte for byte the same", async () => {
  const cases: [string, (o: ReturnType<typeof board>, stamp: string) => Promise<unknown>, string][] = [
    [
      "rename",
      (o, s) => o.rename("c-7f3a2b", "Fix the logout redirect #webapp #claude", s),
      MESSY.replace("Fix the login redirect", "Fix the logout redirect"),
    ],
    [
      "identify",
      (o, s) => o.identify(s),
      MESSY.replace("#unknown-tag   \r\n", "#unknown-tag ^c-aaaaaa   \r\n"),
    ],
    [
      "create at the top",
      (o, s) => o.create("process", { name: "New card #x", children: ["one", "", "two\nthree"] }, "top", s),
      MESSY.replace(
        "## IN PROCESS ^asm-process\r\n",
        "## IN PROCESS ^asm-process\r\n- New card #x ^c-aaaaaa\r\n\t- one\r\n\t-\r\n\t- two\r\n\t- three\r\n",
      ),
    ],
    [
      "create at the bottom",
      (o, s) => o.create("process", { name: "New card", children: [] }, "bottom", s),
      MESSY.replace("  - its prompt\r\n", "  - its prompt\r\n- New card ^c-aaaaaa\r\n"),
    ],
    [
      "move to the bottom of another list",
      (o, s) => o.move("c-7f3a2b", "process", "bottom", s),
      MESSY.replace(
        "- Fix the login redirect #webapp #claude ^c-7f3a2b\r\n\t- The prompt, line one\r\n\t\t- a nested note\r\n",
        "",
      ).replace(
        "  - its prompt\r\n",
        "  - its prompt\r\n- Fix the login redirect #webapp #claude ^c-7f3a2b\r\n\t- The prompt, line one\r\n" +
          "\t\t- a nested note\r\n",
      ),
    ],
    [
      "move to the top of a list",
      (o, s) => o.move("c-done", "plan", "top", s),
      MESSY.replace("- Done #webapp ^c-done\r\n", "").replace(
        "Intro prose of the plan.\r\n",
        "Intro prose of the plan.\r\n- Done #webapp ^c-done\r\n",
      ),
    ],
  ];
  for (const [what, act, want] of cases) {
    const { dir, path, done } = scratch(MESSY);
    try {
      const outliner = board(path);
      const read = await outliner.read();
      await act(outliner, read.stamp);
      assert.equal(Deno.readTextFileSync(path), want, what);
      assert.deepEqual(leftovers(dir), [], `${what}: no temp file left`);
    } finally {
      done();
    }
  }
});

Deno.test("a card moved from the end of a file without a final line break keeps the rest as it was", async () => {
  const text =
    "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete\n- Last ^c-last";
  const { path, done } = scratch(text);
  try {
    const outliner = board(path);
    let { stamp } = await outliner.read();
    ({ stamp } = await outliner.move("c-last", "plan", "bottom", stamp));
    assert.equal(
      Deno.readTextFileSync(path),
      "## SPRINT PLAN ^asm-plan\n- Last ^c-last\n## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete\n",
    );
    await outliner.move("c-last", "complete", "bottom", stamp);
    assert.equal(
      Deno.readTextFileSync(path),
      "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete\n- Last ^c-last\n",
    );
  } finally {
    done();
  }
});

Deno.test("a card created at the very end of a file without a final line break leaves it without one", async () => {
  const { path, done } = scratch(
    "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete",
  );
  try {
    const outliner = board(path);
    const { stamp } = await outliner.read();
    await outliner.create("complete", { name: "Filed", children: ["why"] }, "bottom", stamp);
    assert.equal(
      Deno.readTextFileSync(path),
      "## SPRINT PLAN ^asm-plan\n## IN PROCESS ^asm-process\n## COMPLETE ^asm-complete\n- Filed ^c-aaaaaa\n  - why",
    );
  } finally {
    done();
  }
});

Deno.test("list ids that cannot end a heading are refused when the board is made", () => {
  assert.throws(
    () => markdownOutliner("/tmp/x.md", { lists: { ...IDS, plan: "asm plan" } }),
    /the plan list's id "asm plan" cannot end a Markdown heading/,
  );
  assert.throws(
    () => markdownOutliner("/tmp/x.md", { lists: { ...IDS, plan: "asm-process" } }),
    /three different ids/,
  );
});

Deno.test("a write reads back as written: create, rename, move and identify through the protocol", async () => {
  const { path, done } = scratch(MESSY);
  try {
    const outliner = board(path);
    let { stamp } = await outliner.read();
    const made = await outliner.create(
      "plan",
      { name: "Prompted", children: ["line 1", "  indented 2"] },
      "bottom",
      stamp,
    );
    assert.equal(made.id, "c-aaaaaa");
    ({ stamp } = await outliner.rename(made.id, "Prompted #webapp", made.stamp));
    ({ stamp } = await outliner.move(made.id, "process", "top", stamp));
    const given = await outliner.identify(stamp);
    assert.deepEqual(given.given, [{ list: "plan", index: 1, id: "c-bbbbbb" }]);
    const read = await outliner.read();
    assert.equal(read.stamp, given.stamp);
    assert.deepEqual(read.lists.process[0], {
      id: "c-aaaaaa",
      name: "Prompted #webapp",
      children: ["line 1", "  indented 2"],
    });
    assert.deepEqual(read.lists.plan.map((c) => c.id), ["c-7f3a2b", "c-bbbbbb"]);
    assert.deepEqual(read.lists.plan[0].children, ["The prompt, line one", "\t- a nested note"]);
    const nothing = await outliner.identify(read.stamp);
    assert.deepEqual(nothing, { stamp: read.stamp, given: [] }, "nothing to give: nothing written");
  } finally {
    done();
  }
});

Deno.test("identify changes only the id suffix of id-less cards, and never reuses an id the file holds", async () => {
  const text = "## SPRINT PLAN ^asm-plan\n- One\n- Two\t \n- Three ^c-aaaaaa\n## IN PROCESS ^asm-process\n" +
    "Note ^c-bbbbbb\n## COMPLETE ^asm-complete\n- Four #x\n";
  const { path, done } = scratch(text);
  try {
    const outliner = board(path);
    const { stamp } = await outliner.read();
    const { given } = await outliner.identify(stamp);
    assert.deepEqual(given, [
      { list: "plan", index: 0, id: "c-cccccc" },
      { list: "plan", index: 1, id: "c-dddddd" },
      { list: "complete", index: 0, id: "c-eeeeee" },
    ]);
    assert.equal(
      Deno.readTextFileSync(path),
      "## SPRINT PLAN ^asm-plan\n- One ^c-cccccc\n- Two ^c-dddddd\t \n- Three ^c-aaaaaa\n" +
        "## IN PROCESS ^asm-process\nNote ^c-bbbbbb\n## COMPLETE ^asm-complete\n- Four #x ^c-eeeeee\n",
    );
  } finally {
    done();
  }
});

Deno.test("a name with line breaks is written on one line: it cannot make a heading or a card of its own", async () => {
  const { path, done } = scratch(MESSY);
  try {
    const outliner = board(path);
    const { stamp } = await outliner.read();
    const made = await outliner.create(
      "plan",
      { name: "Evil\n## COMPLETE ^asm-complete\n- x", children: [] },
      "top",
      stamp,
    );
    const read = await outliner.read();
    assert.equal(read.lists.plan[0].name, "Evil ## COMPLETE ^asm-complete - x");
    assert.equal(read.lists.plan[0].id, made.id);
    assert.equal(read.lists.complete.length, 1);
  } finally {
    done();
  }
});

Deno.test("a write planned from an older read is refused and writes nothing", async () => {
  const { path, done } = scratch(MESSY);
  try {
    const outliner = board(path);
    const { stamp } = await outliner.read();
    const hand = MESSY.replace("Running card", "Running card, retitled by hand");
    Deno.writeTextFileSync(path, hand);
    await assert.rejects(outliner.rename("c-7f3a2b", "asm's title", stamp), BoardChanged);
    await assert.rejects(outliner.move("c-000001", "plan", "bottom", stamp), BoardChanged);
    await assert.rejects(outliner.create("plan", { name: "x", children: [] }, "top", stamp), BoardChanged);
    await assert.rejects(outliner.identify(stamp), BoardChanged);
    assert.equal(Deno.readTextFileSync(path), hand);
  } finally {
    done();
  }
});

/** The real file operations, with a hand edit landing at a chosen moment of the next write. */
function handAt(moment: "before temp" | "before rename", edit: () => void): BoardIo {
  return {
    read: REAL_BOARD_IO.read,
    stat: REAL_BOARD_IO.stat,
    writeAtomic(path, bytes, options) {
      if (moment === "before temp") edit();
      REAL_BOARD_IO.writeAtomic(path, bytes, {
        ...options,
        beforeRename: () => {
          if (moment === "before rename") edit(); // the new bytes are on disk beside the board by now
          options.beforeRename?.();
        },
      });
    },
  };
}

Deno.test("a hand edit landing between a write's re-read and its rename survives; nothing is written", async () => {
  for (const moment of ["before temp", "before rename"] as const) {
    for (const how of ["in place", "by rename"] as const) {
      const { dir, path, done } = scratch(MESSY);
      try {
        const hand = MESSY.replace("Intro prose", "Intro prose, typed a moment ago");
        const edit = () => {
          if (how === "in place") {
            Deno.writeTextFileSync(path, hand);
          } else {
            Deno.writeTextFileSync(join(dir, ".board.md.swp"), hand);
            Deno.renameSync(join(dir, ".board.md.swp"), path);
          }
        };
        const outliner = board(path, { io: handAt(moment, edit) });
        const { stamp } = await outliner.read();
        await assert.rejects(
          outliner.move("c-7f3a2b", "process", "top", stamp),
          (err: Error) => err instanceof BoardChanged && /nothing was written/.test(err.message),
        );
        assert.equal(Deno.readTextFileSync(path), hand, `${moment}, ${how}: the hand edit is the file`);
        assert.deepEqual(leftovers(dir), [], `${moment}, ${how}: the temp file is gone`);
        const again = await outliner.read();
        assert.equal(again.lists.plan[0].id, "c-7f3a2b", "the card did not move");
      } finally {
        done();
      }
    }
  }
});

Deno.test("reads are memoised for 60 s and busted by every write; a fresh read goes to the file", async () => {
  const { path, done } = scratch(MESSY);
  try {
    let reads = 0;
    let now = 1_000_000;
    const io: BoardIo = { ...REAL_BOARD_IO, read: (p, l) => (reads++, REAL_BOARD_IO.read(p, l)) };
    const outliner = board(path, { io, clock: () => now });
    const first = await outliner.read();
    assert.equal(reads, 1);
    now += 59_999;
    const second = await outliner.read();
    assert.equal(reads, 1, "a second read within 60 s does not touch the file");
    assert.equal(second.readAt, first.readAt);
    second.lists.plan.pop(); // a caller's copy: the memo is not changed by it
    assert.equal((await outliner.read()).lists.plan.length, 2);
    await outliner.read({ fresh: true });
    assert.equal(reads, 2, "fresh bypasses the memo");
    now += 60_000;
    await outliner.read();
    assert.equal(reads, 3, "60 s later the file is read again");
    const { stamp } = await outliner.read();
    assert.equal(reads, 3);
    await outliner.rename("c-7f3a2b", "Renamed", stamp);
    const afterWrite = reads;
    const read = await outliner.read();
    assert.equal(reads, afterWrite + 1, "a write busts the memo");
    assert.equal(read.lists.plan[0].name, "Renamed");
    outliner.forget();
    await outliner.read();
    assert.equal(reads, afterWrite + 2, "forget drops it too");
  } finally {
    done();
  }
});

Deno.test("the file's mode is kept, and a linked board is written at its target, the link left a link", async () => {
  const { dir, path, done } = scratch(MESSY);
  try {
    Deno.chmodSync(path, 0o640);
    const vault = join(dir, "vault");
    Deno.mkdirSync(vault);
    const link = join(vault, "Board.md");
    Deno.symlinkSync(path, link);
    const outliner = board(link);
    assert.equal(outliner.location, path);
    assert.equal(boardLocation(link), path);
    const { stamp } = await outliner.read();
    await outliner.rename("c-done", "Done and dusted #webapp", stamp);
    assert.ok(Deno.lstatSync(link).isSymlink);
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o640);
    assert.match(Deno.readTextFileSync(link), /Done and dusted #webapp \^c-done/);
  } finally {
    done();
  }
});

Deno.test("bad input gets a sentence and loses nothing: the file's bytes stay as they were", async () => {
  const rows: [string, (path: string) => void, RegExp][] = [
    [
      "a duplicated card id",
      (p) => Deno.writeTextFileSync(p, MESSY.replace("^c-done", "^c-7f3a2b")),
      /the id \^c-7f3a2b is on line 9 and on line 26/,
    ],
    [
      "a list id missing",
      (p) => Deno.writeTextFileSync(p, MESSY.replace("## IN PROCESS ^asm-process", "## IN PROCESS")),
      /no list with the id \^asm-process/,
    ],
    [
      "invalid UTF-8",
      (p) =>
        Deno.writeFileSync(
          p,
          new Uint8Array([...new TextEncoder().encode(MESSY.slice(0, 40)), 0xff, 0xfe, 0x0a]),
        ),
      /is not valid UTF-8 text \(line 5\)/,
    ],
    ["an empty file", (p) => Deno.writeTextFileSync(p, ""), /no list with the id \^asm-plan/],
    ["a file over 8 MB", (p) => Deno.truncateSync(p, 9 << 20), /is 9 MB, over the 8 MB a board may be/],
    [
      "a link where the board is",
      (p) => {
        Deno.writeTextFileSync(`${p}.real`, MESSY);
        Deno.removeSync(p);
        Deno.symlinkSync(`${p}.real`, p);
      },
      /is a link, and asm does not follow links there/,
    ],
    [
      "a FIFO where the board is",
      (p) => {
        Deno.removeSync(p);
        assert.ok(new Deno.Command("mkfifo", { args: [p] }).outputSync().success);
      },
      /is a FIFO, not a regular file/,
    ],
  ];
  for (const [what, make, why] of rows) {
    const { path, done } = scratch(MESSY);
    try {
      const outliner = board(path); // resolved while the board was a plain file
      const good = await outliner.read();
      make(path);
      const before = Deno.lstatSync(path).isFile ? bytes(path) : null;
      await assert.rejects(
        outliner.read({ fresh: true }),
        (err: Error) => err instanceof BoardUnusable && why.test(err.message),
        what,
      );
      await assert.rejects(outliner.rename("c-7f3a2b", "x", good.stamp), BoardUnusable, what);
      await assert.rejects(outliner.identify(good.stamp), BoardUnusable, what);
      if (before) assert.deepEqual(bytes(path), before, `${what}: the file is as it was`);
    } finally {
      done();
    }
  }
});

Deno.test("what a program does not know survives: stray headings, tabs, an unknown tag, a 100 KB card line", async () => {
  const long = `A very long card ${"words and\tspaces   ".repeat(5_500)}#webapp #not-an-agent`;
  const text = MESSY.replace("- Done #webapp ^c-done\r\n", `- Done #webapp ^c-done\r\n- ${long} ^c-long\r\n`);
  const { path, done } = scratch(text);
  try {
    const outliner = board(path);
    const read = await outliner.read();
    assert.ok(new TextEncoder().encode(long).length > 100_000);
    assert.equal(read.lists.complete[1].name, long);
    await outliner.move("c-7f3a2b", "complete", "top", read.stamp);
    const moved = Deno.readTextFileSync(path);
    const block =
      "- Fix the login redirect #webapp #claude ^c-7f3a2b\r\n\t- The prompt, line one\r\n\t\t- a nested note\r\n";
    assert.equal(
      moved,
      text.replace(block, "").replace(
        "## COMPLETE ^asm-complete\r\n- Done",
        `## COMPLETE ^asm-complete\r\n${block}- Done`,
      ),
    );
  } finally {
    done();
  }
});

Deno.test("a board that is gone after asm read it is not made anew; a missing folder is not created", async () => {
  const { dir, path, done } = scratch(MESSY);
  try {
    const outliner = board(path);
    await outliner.read();
    Deno.removeSync(path);
    await assert.rejects(
      outliner.read({ fresh: true }),
      /is gone; asm does not make a new board while it runs/,
    );
    assert.deepEqual(leftovers(dir), []);
    const nowhere = board(join(dir, "no-such-folder", "board.md"));
    await assert.rejects(nowhere.read(), /the folder of .* does not exist; asm does not create it/);
  } finally {
    done();
  }
});

Deno.test("peek and lastWritten tell asm's own write from someone else's", async () => {
  const { path, done } = scratch(MESSY);
  try {
    const outliner = board(path);
    assert.equal(outliner.lastWritten(), null);
    const { stamp } = await outliner.read();
    assert.equal(outliner.peek(), stamp);
    const written = await outliner.rename("c-done", "Done!", stamp);
    assert.equal(outliner.lastWritten(), written.stamp);
    assert.equal(outliner.peek(), written.stamp);
    Deno.writeTextFileSync(path, "by hand\n", { append: true });
    assert.notEqual(outliner.peek(), written.stamp);
  } finally {
    done();
  }
});
