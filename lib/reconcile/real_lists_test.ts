import assert from "node:assert/strict";
import { join } from "node:path";
import { boardLocation } from "../board/mod.ts";
import { DEFAULT_SETTINGS } from "../config/mod.ts";
import {
  configuredBoard,
  parseRealLists,
  readRealLists,
  REAL_LISTS_FILE,
  realListRefusal,
} from "./real_lists.ts";

/** A scratch folder (its real path), removed at the end of the test. */
function scratch(): { path: string } & Disposable {
  const path = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-real-lists-" }));
  return { path, [Symbol.dispose]: () => Deno.removeSync(path, { recursive: true }) };
}

Deno.test("the guard file: its format, and sentences for what cannot be used", () => {
  assert.deepEqual(parseRealLists('{"v":1,"lists":[{"backend":"markdown","location":"/r/board.md"}]}'), [
    { backend: "markdown", location: "/r/board.md" },
  ]);
  assert.deepEqual(parseRealLists('{"v":1,"lists":[]}'), []);
  for (const bad of ["{", '{"v":2,"lists":[]}', '{"v":1}', '{"v":1,"lists":[{"backend":"markdown"}]}']) {
    const parsed = parseRealLists(bad);
    assert.ok(!Array.isArray(parsed), bad);
    assert.match(parsed.problem, /"lists": \[\{"backend": "markdown", "location"/, bad);
  }
});

Deno.test("testing mode refuses a board on a real list, naming it; live mode and other boards start", () => {
  const real = [{ backend: "markdown", location: "/nowhere/real/board.md" }];
  const board = { backend: "markdown", location: "/nowhere/real/board.md", keys: ["/nowhere/real/board.md"] };
  assert.match(
    realListRefusal("testing", board, real) ?? "",
    /^asm will not start in testing mode: the configured board \/nowhere\/real\/board\.md is one of the real lists/,
  );
  assert.equal(realListRefusal("live", board, real), null, "live mode is meant to write the real board");
  assert.equal(
    realListRefusal("testing", { ...board, location: "/nowhere/copy.md", keys: ["/nowhere/copy.md"] }, real),
    null,
  );
  assert.equal(
    realListRefusal("testing", { ...board, backend: "workflowy" }, [
      ...real,
      { backend: "workflowy", location: "some-other-node" },
    ]),
    null,
    "keyed on the backend",
  );
  assert.match(
    realListRefusal("testing", board, { problem: "x is not JSON" }) ?? "",
    /the real-list guard cannot be read \(x is not JSON\), so it cannot tell whether the board/,
  );
  assert.equal(realListRefusal("live", board, { problem: "x" }), null);
});

Deno.test("a Markdown location is its real path: a link, a linked folder or .. name the real board", () => {
  using s = scratch();
  const h = s.path;
  const vault = join(h, "vault");
  Deno.mkdirSync(vault);
  Deno.writeTextFileSync(join(vault, "board.md"), "## SPRINT PLAN ^asm-plan\n");
  Deno.symlinkSync(vault, join(h, "linked"));
  Deno.symlinkSync(join(vault, "board.md"), join(h, "link.md"));
  const real = [{ backend: "markdown", location: join(vault, "board.md") }];
  for (
    const path of [
      join(h, "linked", "board.md"),
      join(h, "link.md"),
      join(h, "vault", "..", "vault", "board.md"),
    ]
  ) {
    assert.equal(boardLocation(path), join(vault, "board.md"), path);
    assert.ok(
      realListRefusal(
        "testing",
        { backend: "markdown", location: boardLocation(path), keys: [boardLocation(path)] },
        real,
      ),
      path,
    );
  }
  // a board file not written yet is named by its folder's real path
  assert.equal(boardLocation(join(h, "linked", "new.md")), join(vault, "new.md"));
});

Deno.test("the guard file is read from the data folder; none lists only its live board, a broken one a problem", () => {
  using s = scratch();
  const h = s.path;
  assert.deepEqual(readRealLists(h), [{ backend: "markdown", location: join(h, "board.md") }]);
  Deno.writeTextFileSync(join(h, REAL_LISTS_FILE), "not json");
  const broken = readRealLists(h);
  assert.ok(!Array.isArray(broken));
  assert.match(broken.problem, /real-lists\.json: it is not JSON/);
  Deno.removeSync(join(h, REAL_LISTS_FILE));
  Deno.mkdirSync(join(h, REAL_LISTS_FILE));
  assert.match((readRealLists(h) as { problem: string }).problem, /not a regular file/);
});

Deno.test("the configured board: testing mode's default file is never the live one", () => {
  const board = DEFAULT_SETTINGS.board;
  assert.deepEqual(configuredBoard("/nowhere/.asm", "testing", board), {
    backend: "markdown",
    location: "/nowhere/.asm/board.testing.md",
    keys: ["/nowhere/.asm/board.testing.md"],
  });
  assert.equal(configuredBoard("/nowhere/.asm", "live", board).location, "/nowhere/.asm/board.md");
});

Deno.test("a testing data folder of its own is still guarded by the person's: their guard file and live board", () => {
  using s = scratch();
  const home = join(s.path, "home");
  const own = join(home, ".asm");
  const trial = join(s.path, "trial");
  const vault = join(s.path, "vault");
  for (const dir of [own, trial, vault]) Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(
    join(own, REAL_LISTS_FILE),
    JSON.stringify({ v: 1, lists: [{ backend: "markdown", location: join(vault, "board.md") }] }),
  );
  const lists = readRealLists(trial, { home });
  assert.ok(Array.isArray(lists));
  const refused = (path: string) =>
    realListRefusal("testing", configuredBoard(trial, "testing", { ...DEFAULT_SETTINGS.board, path }), lists);
  assert.match(refused(join(vault, "board.md")) ?? "", /is one of the real lists/, "the person's guard file");
  assert.match(refused(join(own, "board.md")) ?? "", /is one of the real lists/, "the person's live board");
  assert.match(refused("board.md") ?? "", /is one of the real lists/, "this folder's own live board");
  assert.equal(refused("board.testing.md"), null, "a throwaway board starts");
  assert.equal(refused(join(vault, "copy.md")), null);
  // the person's guard broken: refused, naming that file
  Deno.writeTextFileSync(join(own, REAL_LISTS_FILE), "{");
  const broken = readRealLists(trial, { home });
  assert.ok(!Array.isArray(broken));
  assert.ok(broken.problem.startsWith(join(own, REAL_LISTS_FILE)), broken.problem);
  // asm on the person's own folder reads it once
  Deno.writeTextFileSync(join(own, REAL_LISTS_FILE), '{"v":1,"lists":[]}');
  assert.deepEqual(readRealLists(own, { home }), [{ backend: "markdown", location: join(own, "board.md") }]);
});

Deno.test("a Workflowy board is refused in testing mode when any one of its three list node ids is a real list", () => {
  const lists = { plan: "aaaa-1111", process: "bbbb-2222", complete: "cccc-3333" };
  const board = configuredBoard("/nowhere/.asm", "testing", {
    ...DEFAULT_SETTINGS.board,
    backend: "workflowy",
    lists,
  });
  assert.deepEqual(board.keys, ["aaaa-1111", "bbbb-2222", "cccc-3333"]);
  const guard = [
    { backend: "markdown", location: "/nowhere/.asm/board.md" },
    { backend: "workflowy", location: "bbbb-2222" },
  ];
  assert.equal(
    realListRefusal("testing", board, guard),
    "asm will not start in testing mode: the configured board list bbbb-2222 is one of the real lists " +
      "(real-lists.json); point [board] lists in config.toml at throwaway lists, or run in live mode",
  );
  assert.equal(realListRefusal("live", board, guard), null);
  const throwaway = configuredBoard("/nowhere/.asm", "testing", {
    ...DEFAULT_SETTINGS.board,
    backend: "workflowy",
    lists: { plan: "dddd", process: "eeee", complete: "ffff" },
  });
  assert.equal(realListRefusal("testing", throwaway, guard), null);
  // the same id in another case is the same node
  assert.match(
    realListRefusal("testing", board, [{ backend: "workflowy", location: "BBBB-2222" }]) ?? "",
    /list bbbb-2222 is one of the real lists/,
  );
  // a guard that names no Workflowy list cannot tell a throwaway list from a real one: refused, saying what to add
  for (const none of [[], [{ backend: "markdown", location: "bbbb-2222" }]]) {
    assert.match(
      realListRefusal("testing", throwaway, none) ?? "",
      /on a workflowy board while real-lists\.json names none of your real workflowy lists: add each/,
    );
  }
});
