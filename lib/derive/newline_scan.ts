/**
 * Finding newlines at memory speed. The byte pass spends most of its time looking for the end of lines it will
 * skip on their first bytes (attachments, request dumps, instructions: kilobytes each), and V8's
 * `Uint8Array.prototype.indexOf` walks a byte at a time (about 2.8 GB/s here, slower than the reads themselves).
 * This is a 16-byte SIMD search compiled from the instruction list below into a WebAssembly module at load time:
 * no binary blob, no build step. It compares 64 bytes per step while they hold no newline (the common case in a
 * transcript) and writes the position of every newline it finds into a table in its own memory.
 *
 * The read buffer lives in the module's memory, so the file's bytes are read straight into the place they are
 * searched. Memory layout: `[0, TABLE_BYTES)` the table of newline positions (u32), then the buffer.
 * @module
 */

/** Newline positions one call can report (the table's length). */
export const TABLE_SLOTS = 16384;
const TABLE_BYTES = TABLE_SLOTS * 4;
const PAGE = 65536;

// ---- the instruction list (WebAssembly binary format, version 1, with the fixed-width SIMD proposal) ----

/** A non-negative number as signed LEB128 (what i32.const takes: 64 is two bytes). */
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>>= 7;
    if (n === 0 && (byte & 0x40) === 0) return [...out, byte];
    out.push(byte | 0x80);
  }
}

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  if: [0x04, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  i32: (n: number) => [0x41, ...sleb(n)],
  i32Load8U: [0x2d, 0x00, 0x00],
  i32Store: [0x36, 0x02, 0x00],
  i32Eqz: [0x45],
  i32Eq: [0x46],
  i32GtU: [0x4b],
  i32GeU: [0x4f],
  i32Ctz: [0x68],
  i32Add: [0x6a],
  i32Sub: [0x6b],
  i32And: [0x71],
  i32Shl: [0x74],
  v128Load: (offset: number) => [0xfd, 0x00, 0x00, offset], // align 1; offset < 128
  v128Or: [0xfd, 0x50],
  v128AnyTrue: [0xfd, 0x53],
  i8x16Splat: [0xfd, 0x0f],
  i8x16Eq: [0xfd, 0x23],
  i8x16Bitmask: [0xfd, 0x64],
};

// scan(p, end, table, max) -> count: the positions of 0x0a in [p, end), at most `max`, written to `table`
const P = 0, END = 1, TABLE = 2, MAX = 3, N = 4, BITS = 5, NL = 6;

/** Stores p + ctz(bits) at table[n] and counts it; leaves the function when the table is full. */
function record(exitDepth: number, position: number[]): number[] {
  return [
    ...op.get(N),
    ...op.get(MAX),
    ...op.i32Eq,
    ...op.brIf(exitDepth),
    ...op.get(TABLE),
    ...op.get(N),
    ...op.i32(2),
    ...op.i32Shl,
    ...op.i32Add,
    ...position,
    ...op.i32Store,
    ...op.get(N),
    ...op.i32(1),
    ...op.i32Add,
    ...op.set(N),
  ];
}

/** eq(load(p + offset), splat('\n')) */
function newlinesAt(offset: number): number[] {
  return [...op.get(P), ...op.v128Load(offset), ...op.get(NL), ...op.i8x16Eq];
}

const BODY = [
  // locals: n, bits (i32); nl (v128)
  0x02,
  0x02,
  I32,
  0x01,
  V128,
  ...op.i32(10),
  ...op.i8x16Splat,
  ...op.set(NL),
  ...op.block, // $exit (the table is full)
  ...op.block, // $tail (fewer than 16 bytes left)
  ...op.loop, // $step
  // 64 bytes without a newline are skipped in one step
  ...op.get(P),
  ...op.i32(63),
  ...op.i32Add,
  ...op.get(END),
  ...op.i32GeU, // p + 63 >= end: fewer than 64 bytes left
  ...op.i32Eqz,
  ...op.if,
  ...newlinesAt(0),
  ...newlinesAt(16),
  ...op.v128Or,
  ...newlinesAt(32),
  ...op.v128Or,
  ...newlinesAt(48),
  ...op.v128Or,
  ...op.v128AnyTrue,
  ...op.i32Eqz,
  ...op.if,
  ...op.get(P),
  ...op.i32(64),
  ...op.i32Add,
  ...op.set(P),
  ...op.br(2), // continue $step (if, if, loop)
  ...op.end,
  ...op.end,
  // 16 bytes: every newline in them, lowest first
  ...op.get(P),
  ...op.i32(16),
  ...op.i32Add,
  ...op.get(END),
  ...op.i32GtU,
  ...op.brIf(1), // -> $tail
  ...newlinesAt(0),
  ...op.i8x16Bitmask,
  ...op.set(BITS),
  ...op.block, // $bits_done
  ...op.loop, // $bit
  ...op.get(BITS),
  ...op.i32Eqz,
  ...op.brIf(1), // -> $bits_done
  ...record(4, [...op.get(P), ...op.get(BITS), ...op.i32Ctz, ...op.i32Add]), // loop, block, loop, block -> $exit
  ...op.get(BITS),
  ...op.get(BITS),
  ...op.i32(1),
  ...op.i32Sub,
  ...op.i32And,
  ...op.set(BITS),
  ...op.br(0), // continue $bit
  ...op.end,
  ...op.end,
  ...op.get(P),
  ...op.i32(16),
  ...op.i32Add,
  ...op.set(P),
  ...op.br(0), // continue $step
  ...op.end, // loop $step
  ...op.end, // block $tail
  // the last bytes, one at a time
  ...op.block, // $tail_done
  ...op.loop, // $byte
  ...op.get(P),
  ...op.get(END),
  ...op.i32GeU,
  ...op.brIf(1),
  ...op.get(P),
  ...op.i32Load8U,
  ...op.i32(10),
  ...op.i32Eq,
  ...op.if,
  ...record(3, op.get(P)), // if, loop, block -> $exit
  ...op.end,
  ...op.get(P),
  ...op.i32(1),
  ...op.i32Add,
  ...op.set(P),
  ...op.br(0),
  ...op.end,
  ...op.end,
  ...op.end, // block $exit
  ...op.get(N),
  ...op.end,
];

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function section(id: number, content: number[]): number[] {
  return [id, ...leb(content.length), ...content];
}

function name(text: string): number[] {
  return [text.length, ...new TextEncoder().encode(text)];
}

const MODULE_BYTES = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, [1, 0x60, 4, I32, I32, I32, I32, 1, I32]), // type 0: (i32 i32 i32 i32) -> i32
  ...section(3, [1, 0]), // function 0 has type 0
  ...section(5, [1, 0x00, 1]), // one memory, at least one page
  ...section(7, [2, ...name("memory"), 0x02, 0, ...name("scan"), 0x00, 0]),
  ...section(10, [1, ...leb(BODY.length), ...BODY]),
]);

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is not available (the pass then uses indexOf). */
function moduleOf(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(MODULE_BYTES);
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * A read buffer with a newline search over it. `bytes` is where the file is read into; `scan` reports the newline
 * positions of a range of it. `grow` makes the buffer bigger, keeping its bytes (the old `bytes` view is then
 * dead: use the new one).
 */
export interface LineBuffer {
  bytes: Uint8Array;
  /**
   * Newline positions in `bytes[from, to)`, ascending, at most TABLE_SLOTS: the view is valid until the next call.
   * Fewer than TABLE_SLOTS means every newline of the range was reported.
   */
  scan(from: number, to: number): Uint32Array;
  grow(bytes: number): void;
}

/** A buffer in WebAssembly memory searched with SIMD; the plain indexOf search where that is not available. */
export function lineBuffer(bytes: number): LineBuffer {
  const mod = moduleOf();
  return mod === null ? plainBuffer(bytes) : simdBuffer(mod, bytes);
}

function simdBuffer(mod: WebAssembly.Module, size: number): LineBuffer {
  const instance = new WebAssembly.Instance(mod);
  const memory = instance.exports.memory as WebAssembly.Memory;
  const scan = instance.exports.scan as (p: number, end: number, table: number, max: number) => number;
  let table = new Uint32Array(memory.buffer, 0, TABLE_SLOTS);
  const out: LineBuffer = {
    bytes: new Uint8Array(0),
    scan(from, to) {
      const n = scan(TABLE_BYTES + from, TABLE_BYTES + to, 0, TABLE_SLOTS);
      // positions are in memory coordinates: shift them to the buffer's own
      for (let i = 0; i < n; i++) table[i] -= TABLE_BYTES;
      return table.subarray(0, n);
    },
    grow(bytes) {
      const need = Math.ceil((TABLE_BYTES + bytes) / PAGE) - memory.buffer.byteLength / PAGE;
      if (need > 0) memory.grow(need);
      // growing detaches the old views
      table = new Uint32Array(memory.buffer, 0, TABLE_SLOTS);
      out.bytes = new Uint8Array(memory.buffer, TABLE_BYTES, bytes);
    },
  };
  out.grow(size);
  return out;
}

/** The same contract over a plain array with indexOf (no SIMD). */
export function plainBuffer(size: number): LineBuffer {
  const table = new Uint32Array(TABLE_SLOTS);
  const out: LineBuffer = {
    bytes: new Uint8Array(size),
    scan(from, to) {
      const view = out.bytes.subarray(0, to);
      let n = 0;
      for (let at = view.indexOf(10, from); at >= 0 && n < TABLE_SLOTS; at = view.indexOf(10, at + 1)) {
        table[n++] = at;
      }
      return table.subarray(0, n);
    },
    grow(bytes) {
      const bigger = new Uint8Array(bytes);
      bigger.set(out.bytes.subarray(0, Math.min(bytes, out.bytes.length)));
      out.bytes = bigger;
    },
  };
  return out;
}

/** True when the SIMD search is in use (the bench reports it). */
export function simdAvailable(): boolean {
  return moduleOf() !== null;
}
