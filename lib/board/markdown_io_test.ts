import assert from "node:assert/strict";
import { join } from "node:path";
import { BoardUnusable } from "./protocol.ts";
import { REAL_BOARD_IO } from "./markdown_io.ts";

function scratch(): { dir: string; done(): void } {
  const dir = Deno.makeTempDirSync({ prefix: "asm-board-io-" });
  return { dir, done: () => Deno.removeSync(dir, { recursive: true }) };
}

Deno.test("a read is bounded: nothing there is null, a file over the limit is refused with a sentence", () => {
  const { dir, done } = scratch();
  try {
    const path = join(dir, "board.md");
    assert.equal(REAL_BOARD_IO.read(path, 100), null);
    Deno.writeTextFileSync(path, "x".repeat(100));
    assert.equal(REAL_BOARD_IO.read(path, 100)!.length, 100);
    Deno.writeTextFileSync(path, "");
    assert.equal(REAL_BOARD_IO.read(path, 100)!.length, 0);
    Deno.writeTextFileSync(path, "x".repeat(101));
    assert.throws(
      () => REAL_BOARD_IO.read(path, 100),
      (err: Error) =>
        err instanceof BoardUnusable && /is 101 bytes, over the 100 bytes a board may be/.test(err.message),
    );
    Deno.mkdirSync(join(dir, "folder"));
    assert.throws(() => REAL_BOARD_IO.read(join(dir, "folder"), 100), /is a folder, not a regular file/);
  } finally {
    done();
  }
});

Deno.test("an atomic write keeps the mode asked for, and a throw before the rename leaves no trace", () => {
  const { dir, done } = scratch();
  try {
    const path = join(dir, "board.md");
    Deno.writeTextFileSync(path, "old\n");
    REAL_BOARD_IO.writeAtomic(path, new TextEncoder().encode("new\n"), { mode: 0o640 });
    assert.equal(Deno.readTextFileSync(path), "new\n");
    assert.deepEqual(REAL_BOARD_IO.stat(path), { mode: 0o640, size: 4 });
    assert.throws(
      () =>
        REAL_BOARD_IO.writeAtomic(path, new TextEncoder().encode("newer\n"), {
          mode: 0o600,
          beforeRename: () => {
            throw new Error("changed meanwhile");
          },
        }),
      /changed meanwhile/,
    );
    assert.equal(Deno.readTextFileSync(path), "new\n");
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["board.md"]);
  } finally {
    done();
  }
});

Deno.test("an exclusive write never replaces a file that is there", () => {
  const { dir, done } = scratch();
  try {
    const path = join(dir, "board.md");
    REAL_BOARD_IO.writeAtomic(path, new TextEncoder().encode("first\n"), { mode: 0o600, exclusive: true });
    assert.throws(
      () =>
        REAL_BOARD_IO.writeAtomic(path, new TextEncoder().encode("second\n"), {
          mode: 0o600,
          exclusive: true,
        }),
      Deno.errors.AlreadyExists,
    );
    assert.equal(Deno.readTextFileSync(path), "first\n");
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["board.md"]);
    assert.equal(REAL_BOARD_IO.stat(join(dir, "none")), null);
  } finally {
    done();
  }
});
