import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type FileReader,
  insideAny,
  NODE_FILES,
  openRegularSync,
  readGrowth,
  readTail,
  readTailSync,
  RefusedFile,
  tailOf,
} from "./mod.ts";
import { closeSync } from "node:fs";

function scratch(): { dir: string; done(): void } {
  const dir = Deno.makeTempDirSync({ prefix: "asm-files-" });
  return { dir, done: () => Deno.removeSync(dir, { recursive: true }) };
}

Deno.test("links, FIFOs, devices and folders are refused with what they are; nothing blocks", async () => {
  const { dir, done } = scratch();
  try {
    const secret = join(dir, "secret");
    Deno.writeTextFileSync(secret, "s3cret\n");
    Deno.symlinkSync(secret, join(dir, "link"));
    const fifo = join(dir, "fifo");
    const made = new Deno.Command("mkfifo", { args: [fifo] }).outputSync();
    assert.ok(made.success, "mkfifo made the FIFO");
    const cases: [string, RegExp][] = [
      [join(dir, "link"), /is a link/],
      [fifo, /is a FIFO/],
      ["/dev/zero", /is a character device/],
      [dir, /is a folder/],
    ];
    for (const [path, why] of cases) {
      await assert.rejects(
        NODE_FILES.open(path),
        (err: Error) => err instanceof RefusedFile && why.test(err.message),
      );
      assert.throws(
        () => openRegularSync(path),
        (err: Error) => err instanceof RefusedFile && why.test(err.message),
      );
      await assert.rejects(readTail(path, 100), RefusedFile);
      assert.throws(() => readTailSync(path, 100), RefusedFile);
    }
    await assert.rejects(readTail(join(dir, "none"), 10), Deno.errors.NotFound);
    assert.throws(() => readTailSync(join(dir, "none"), 10), Deno.errors.NotFound);
    const file = openRegularSync(secret);
    assert.equal(file.size, 7);
    assert.equal(file.uid, Deno.uid());
    closeSync(file.fd);
  } finally {
    done();
  }
});

Deno.test("a file is read only when its real path lies in the folders named, whatever link leads there", async () => {
  const { dir, done } = scratch();
  try {
    const store = join(dir, "store");
    const elsewhere = join(dir, "elsewhere");
    Deno.mkdirSync(store);
    Deno.mkdirSync(elsewhere);
    Deno.writeTextFileSync(join(store, "in.jsonl"), "in\n");
    Deno.writeTextFileSync(join(elsewhere, "out.jsonl"), "out\n");
    Deno.symlinkSync(elsewhere, join(store, "linked"));
    const within = { within: [store] };
    assert.equal((await readTail(join(store, "in.jsonl"), 100, NODE_FILES, within)).size, 3);
    assert.equal(readTailSync(join(store, "in.jsonl"), 100, within).size, 3);
    for (const path of [join(store, "linked", "out.jsonl"), join(elsewhere, "out.jsonl")]) {
      await assert.rejects(
        readTail(path, 100, NODE_FILES, within),
        (err: Error) =>
          err instanceof RefusedFile && /leads outside the folders it belongs in/.test(err.message),
      );
      assert.throws(() => readTailSync(path, 100, within), RefusedFile);
    }
    // a store reached through a link is its real folder: its own files still read
    Deno.symlinkSync(store, join(dir, "store-link"));
    assert.equal(readTailSync(join(store, "in.jsonl"), 100, { within: [join(dir, "store-link")] }).size, 3);
    assert.equal(
      insideAny(join(dir, "storex", "a"), [store]),
      false,
      "a sibling with the same prefix is outside",
    );
  } finally {
    done();
  }
});

Deno.test("a tail keeps whole lines: a line starting exactly at the bound is kept, a cut one dropped", async () => {
  const { dir, done } = scratch();
  try {
    const path = join(dir, "t.jsonl");
    Deno.writeTextFileSync(path, "aaaa\nbbbb\ncccc\n");
    const dec = (b: Uint8Array) => new TextDecoder().decode(b);
    for (
      const read of [(m: number) => readTail(path, m), (m: number) => Promise.resolve(readTailSync(path, m))]
    ) {
      assert.deepEqual(dec((await read(100)).bytes), "aaaa\nbbbb\ncccc\n");
      const exact = await read(10);
      assert.equal(dec(exact.bytes), "bbbb\ncccc\n");
      assert.equal(exact.truncated, true);
      assert.equal(exact.size, 15);
      assert.equal(dec((await read(8)).bytes), "cccc\n");
      assert.equal(dec((await read(3)).bytes), "");
    }
    assert.equal(new TextDecoder().decode(tailOf(new TextEncoder().encode("ab\ncd\n"), 3).bytes), "cd\n");
  } finally {
    done();
  }
});

Deno.test("a tail of a large file reads at most the bound (plus one byte), counted at the seam", async () => {
  const { dir, done } = scratch();
  try {
    const path = join(dir, "big.jsonl");
    const line = "x".repeat(1023) + "\n";
    Deno.writeTextFileSync(path, line.repeat(20 * 1024)); // 20 MiB
    let read = 0;
    const counting: FileReader = {
      async open(p, options) {
        const h = await NODE_FILES.open(p, options);
        return {
          size: h.size,
          read: async (into, position) => {
            const n = await h.read(into, position);
            read += n;
            return n;
          },
          close: h.close,
        };
      },
    };
    const tail = await readTail(path, 4 << 20, counting);
    assert.equal(read, (4 << 20) + 1);
    assert.equal(tail.bytes.length, 4 << 20);
  } finally {
    done();
  }
});

Deno.test("what a file gained: whole lines only, a half-written line waits, a shrunk file says so, an endless line is skipped", async () => {
  const { dir, done } = scratch();
  try {
    const path = join(dir, "t.jsonl");
    Deno.writeTextFileSync(path, "one\ntwo\nthr");
    const first = await readGrowth(path, 0, 1024);
    assert.deepEqual([new TextDecoder().decode(first.bytes), first.next, first.size], ["one\ntwo\n", 8, 11]);
    const waiting = await readGrowth(path, first.next, 1024);
    assert.deepEqual([waiting.bytes.length, waiting.next], [0, 8], "the half line waits for its newline");
    Deno.writeTextFileSync(path, "ee\n", { append: true });
    const rest = await readGrowth(path, waiting.next, 1024);
    assert.deepEqual([new TextDecoder().decode(rest.bytes), rest.next], ["three\n", 14]);
    Deno.writeTextFileSync(path, "x\n");
    const shrunk = await readGrowth(path, rest.next, 1024);
    assert.deepEqual(
      [shrunk.bytes.length, shrunk.next, shrunk.size],
      [0, 14, 2],
      "below the cursor: rewritten",
    );
    Deno.writeTextFileSync(path, "y".repeat(5000));
    const endless = await readGrowth(path, 0, 1024);
    assert.deepEqual([endless.bytes.length, endless.next], [0, 1024], "a window of one line is passed over");
    await assert.rejects(readGrowth(join(dir, "missing"), 0, 1024), Deno.errors.NotFound);
  } finally {
    done();
  }
});
