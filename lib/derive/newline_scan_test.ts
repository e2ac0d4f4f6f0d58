import assert from "node:assert/strict";
import { type LineBuffer, lineBuffer, plainBuffer, simdAvailable, TABLE_SLOTS } from "./newline_scan.ts";

function expected(bytes: Uint8Array, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to && out.length < TABLE_SLOTS; i++) if (bytes[i] === 10) out.push(i);
  return out;
}

/** A seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fill(buf: LineBuffer, rand: () => number, density: number): void {
  for (let i = 0; i < buf.bytes.length; i++) {
    // newlines at the asked density; every other byte anything but a newline (0x8a and 0x0b look close to it)
    buf.bytes[i] = rand() < density ? 10 : [0x8a, 0x0b, 0x09, 0x41, 0xff][Math.floor(rand() * 5)];
  }
}

Deno.test("WebAssembly SIMD is available, so the byte pass uses the vector search here", () => {
  assert.equal(simdAvailable(), true);
});

Deno.test("the vector search finds exactly the newlines indexOf finds, at every alignment, density and range", () => {
  const rand = random(7);
  for (const make of [lineBuffer, plainBuffer]) {
    const buf = make(4096 + 77);
    for (const density of [0, 0.0005, 0.01, 0.2, 1]) {
      fill(buf, rand, density);
      for (let k = 0; k < 200; k++) {
        const from = Math.floor(rand() * buf.bytes.length);
        const to = from + Math.floor(rand() * (buf.bytes.length - from + 1));
        assert.deepEqual(
          Array.from(buf.scan(from, to)),
          expected(buf.bytes, from, to),
          `${make.name} density ${density} [${from}, ${to})`,
        );
      }
      // the edges: empty ranges, the whole buffer, the last bytes
      for (
        const [from, to] of [[0, 0], [5, 5], [0, buf.bytes.length], [buf.bytes.length - 1, buf.bytes.length]]
      ) {
        assert.deepEqual(Array.from(buf.scan(from, to)), expected(buf.bytes, from, to));
      }
    }
  }
});

Deno.test("more newlines than the table holds: the first TABLE_SLOTS are reported, the rest on the next call", () => {
  const buf = lineBuffer(TABLE_SLOTS * 3);
  buf.bytes.fill(10);
  const first = Array.from(buf.scan(0, buf.bytes.length));
  assert.equal(first.length, TABLE_SLOTS);
  assert.equal(first[TABLE_SLOTS - 1], TABLE_SLOTS - 1);
  const next = buf.scan(first[TABLE_SLOTS - 1] + 1, buf.bytes.length);
  assert.equal(next[0], TABLE_SLOTS);
});

Deno.test("growing keeps the bytes already read and searches the new ones", () => {
  const buf = lineBuffer(100);
  buf.bytes.set(new TextEncoder().encode("ab\ncd"));
  buf.grow(70_000 * 4);
  assert.equal(buf.bytes.length, 280_000);
  assert.equal(new TextDecoder().decode(buf.bytes.subarray(0, 5)), "ab\ncd");
  buf.bytes[279_999] = 10;
  assert.deepEqual(Array.from(buf.scan(0, 280_000)), [2, 279_999]);
});
