import assert from "node:assert/strict";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { TranscriptLine } from "../derive/mod.ts";
import { messageLines, readTail } from "./scan.ts";
import { tailOf } from "../files/mod.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A classifier over a tiny test format: {"id","kind","text"} per line. */
function classify(raw: string): TranscriptLine | null {
  try {
    const v = JSON.parse(raw);
    return { kind: v.kind, text: v.text ?? "", ts: null, id: v.id ?? null };
  } catch {
    return null;
  }
}

Deno.test("the byte bound keeps the newest whole lines and says it cut", () => {
  const bytes = enc.encode("first line\nsecond line\nthird\n");
  assert.deepEqual(tailOf(bytes, 100), { bytes, truncated: false });
  const cut = tailOf(bytes, 10);
  assert.equal(dec.decode(cut.bytes), "third\n");
  assert.equal(cut.truncated, true);
  // a window that starts exactly on a line keeps that line
  assert.equal(dec.decode(tailOf(bytes, 18).bytes), "second line\nthird\n");
});

Deno.test("readTail reads the end of a file, or its copy when the original is gone", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-scan-" });
  try {
    const path = join(dir, "t.jsonl");
    const text = "one\ntwo\nthree\n";
    Deno.writeTextFileSync(path, text);
    assert.equal(dec.decode(readTail(path, null, 6)!.bytes), "three\n");
    assert.equal(dec.decode(readTail(path, null, 100)!.bytes), text);
    const copy = join(dir, "t.jsonl.gz");
    Deno.writeFileSync(copy, gzipSync(enc.encode(text)));
    Deno.removeSync(path);
    assert.deepEqual(readTail(path, copy, 100), { bytes: enc.encode(text), truncated: false });
    assert.equal(readTail(path, null, 100), null, "gone with no copy");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("message lines keep searched kinds only, and the last copy of a record id wins", () => {
  const lines = [
    { id: "a", kind: "prompt", text: "first draft" },
    { id: "b", kind: "injected", text: "context every session has" },
    { id: null, kind: "assistant", text: "a reply" },
    { id: "a", kind: "prompt", text: "final words" },
    { id: "c", kind: "assistant", text: "streaming" },
    { id: "c", kind: "assistant", text: "" },
    { id: null, kind: "meta", text: "" },
  ].map((l) => JSON.stringify(l)).join("\n") + "\nnot json\n";
  assert.deepEqual(messageLines(enc.encode(lines), classify).map((l) => l.text), ["a reply", "final words"]);
});
