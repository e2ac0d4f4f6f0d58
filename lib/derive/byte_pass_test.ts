import assert from "node:assert/strict";
import type { TranscriptHandle } from "./transcript_types.ts";
import { GUARD_BYTES, passFile } from "./byte_pass.ts";

function handleOf(text: string | Uint8Array): TranscriptHandle {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  return {
    read(into, position) {
      const n = Math.max(0, Math.min(into.length, bytes.length - position));
      into.set(bytes.subarray(position, position + n));
      return n;
    },
    close() {},
  };
}

async function linesOf(text: string, from = 0, options = {}) {
  const size = new TextEncoder().encode(text).length;
  const lines: string[] = [];
  const out = await passFile(handleOf(text), from, size, {
    line: (buf, s, e) => lines.push(new TextDecoder().decode(buf.subarray(s, e))),
  }, options);
  return { lines, out };
}

Deno.test("every complete line reaches the sink whatever the chunk size; the offset stops at the last newline", async () => {
  const text = "alpha\nbeta\r\n\ngamma\ndelta-without-newline";
  for (const chunkBytes of [1, 2, 3, 7, 64, 1 << 20]) {
    const { lines, out } = await linesOf(text, 0, { chunkBytes });
    assert.deepEqual(lines, ["alpha", "beta", "gamma"], `chunk ${chunkBytes}`);
    assert.equal(out.offset, text.indexOf("delta"));
    assert.equal(out.partialTail, "delta-without-newline".length);
    assert.equal(out.shrank, false);
  }
});

Deno.test("a pass from an offset reads only what follows it", async () => {
  const text = "one\ntwo\nthree\n";
  const { lines, out } = await linesOf(text, 4);
  assert.deepEqual(lines, ["two", "three"]);
  assert.equal(out.bytesRead, text.length - 4);
  assert.equal(out.offset, text.length);
});

Deno.test("a line longer than the limit is skipped and counted, and the next line still arrives", async () => {
  const long = "x".repeat(10_000);
  const { lines, out } = await linesOf(`a\n${long}\nb\n${long}`, 0, { chunkBytes: 100, maxLineBytes: 1000 });
  assert.deepEqual(lines, ["a", "b"]);
  assert.equal(out.oversized, 2);
  assert.equal(
    out.offset,
    2 + long.length + 1 + 2 + long.length,
    "a file ending inside an oversized line is consumed",
  );
});

Deno.test("a file that ends before the size the walk saw is reported as shrunk", async () => {
  const size = 100;
  const out = await passFile(handleOf("a\nb\n"), 0, size, { line() {} });
  assert.equal(out.shrank, true);
  assert.equal(out.offset, 4);
});

Deno.test("a pass never sees the bytes an earlier pass left in its reused buffer", async () => {
  await linesOf("x".repeat(5000) + "\n" + "y".repeat(3000) + "\n");
  const { lines, out } = await linesOf("ab");
  assert.deepEqual(lines, []);
  assert.equal(out.partialTail, 2);
  assert.equal(out.offset, 0);
  const second = await linesOf("cd\nef");
  assert.deepEqual(second.lines, ["cd"]);
});

Deno.test("the guard keeps the file's first bytes and the bytes before the offset, whatever the chunks", async () => {
  let seed = 11;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let k = 0; k < 300; k++) {
    const lines: string[] = [];
    const count = Math.floor(rand() * 40);
    for (let i = 0; i < count; i++) {
      lines.push("x".repeat(Math.floor(rand() * (rand() < 0.1 ? 3000 : 200))) + i);
    }
    const text = lines.join("\n") + (rand() < 0.5 ? "\n" : "tail-without-newline");
    const bytes = new TextEncoder().encode(text);
    const chunkBytes = [7, 64, 100, 513, 4096][Math.floor(rand() * 5)];
    const maxLineBytes = rand() < 0.2 ? 1024 : undefined;
    const from = rand() < 0.3 ? Math.floor(rand() * bytes.length) : 0;
    const start = from === 0 ? 0 : bytes.indexOf(10, from) + 1; // a pass starts at a line start
    if (from !== 0 && start === 0) continue;
    const out = await passFile(handleOf(bytes), start, bytes.length, { line() {} }, {
      chunkBytes,
      maxLineBytes,
      guard: true,
    });
    const need = Math.min(GUARD_BYTES, out.offset);
    const label = `case ${k}: chunk ${chunkBytes}, from ${start}, offset ${out.offset}`;
    if (out.firstBytes !== null) assert.deepEqual(out.firstBytes, bytes.subarray(0, need), label);
    if (out.bytesBeforeOffset !== null) {
      assert.deepEqual(out.bytesBeforeOffset, bytes.subarray(out.offset - need, out.offset), label);
    }
    // a whole read with no oversized line always has both
    if (start === 0 && out.oversized === 0) {
      assert.ok(out.firstBytes !== null && out.bytesBeforeOffset !== null, label);
    }
    // a read on from an offset never has the file's first bytes (it did not see them)
    if (start > 0) assert.equal(out.firstBytes, null, label);
  }
});
