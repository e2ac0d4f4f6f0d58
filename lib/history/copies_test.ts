import assert from "node:assert/strict";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import {
  closeCopyStores,
  compressFile,
  copyBytes,
  copyRefOf,
  hasCopy,
  transcriptBytes,
  writeCopies,
} from "./copies.ts";

/** What an import does for one file: the read compresses it, the writer stores the parts. */
function writeCopy(source: string, ref: string): void {
  writeCopies([{ ref, parts: compressFile(source) }]);
}

function tempRoot(): string {
  return Deno.makeTempDirSync({ prefix: "asm-copies-" });
}

Deno.test("a transcript copy lives in the copy store under copies/, and reads back when the original is gone", () => {
  const root = tempRoot();
  try {
    const source = join(root, "session.jsonl");
    const bytes = new TextEncoder().encode('{"a":1}\n'.repeat(100_000));
    Deno.writeFileSync(source, bytes);
    const ref = copyRefOf(join(root, "asm"), "gemini", "tmp/p/chats/session.jsonl");
    assert.equal(ref, `${join(root, "asm", "copies", "copies.sqlite")}#gemini/tmp/p/chats/session.jsonl`);
    assert.equal(
      copyRefOf("/a", "g", "../../etc/passwd"),
      "/a/copies/copies.sqlite#g/etc/passwd",
      "never outside",
    );
    assert.equal(hasCopy(ref), false);
    writeCopy(source, ref);
    closeCopyStores();
    assert.ok(hasCopy(ref));
    assert.ok(Deno.statSync(join(root, "asm", "copies", "copies.sqlite")).size < bytes.length, "compressed");
    assert.deepEqual(transcriptBytes(source, ref), bytes);
    Deno.removeSync(source);
    assert.deepEqual(transcriptBytes(source, ref), bytes);
    assert.equal(transcriptBytes(source, null), null);
    assert.equal(copyBytes(copyRefOf(join(root, "asm"), "gemini", "other.jsonl")), null);
  } finally {
    closeCopyStores();
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a copy is replaced whole when written again, and a transcript larger than one part reads back", () => {
  const root = tempRoot();
  try {
    const source = join(root, "big.jsonl");
    const ref = copyRefOf(join(root, "asm"), "gemini", "big.jsonl");
    // over two parts (8 MB each), with bytes that do not compress to nothing
    const big = new Uint8Array(17 * 1024 * 1024 + 13);
    for (let i = 0; i < big.length; i += 65536) {
      crypto.getRandomValues(big.subarray(i, Math.min(i + 65536, big.length)));
    }
    Deno.writeFileSync(source, big);
    writeCopy(source, ref);
    assert.deepEqual(copyBytes(ref), big);
    const small = new TextEncoder().encode("one line\n");
    Deno.writeFileSync(source, small);
    writeCopy(source, ref);
    assert.deepEqual(copyBytes(ref), small, "no part of the older, longer copy is left");
    Deno.writeFileSync(source, new Uint8Array(0));
    writeCopy(source, ref);
    assert.deepEqual(copyBytes(ref), new Uint8Array(0));
    assert.ok(hasCopy(ref));
  } finally {
    closeCopyStores();
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a copy an earlier version wrote as a .gz file is still read", () => {
  const root = tempRoot();
  try {
    const legacy = join(root, "copies", "gemini", "s.jsonl.gz");
    Deno.mkdirSync(join(root, "copies", "gemini"), { recursive: true });
    const bytes = new TextEncoder().encode('{"b":2}\n');
    Deno.writeFileSync(legacy, gzipSync(bytes));
    assert.ok(hasCopy(legacy));
    assert.deepEqual(transcriptBytes(join(root, "gone.jsonl"), legacy), bytes);
    assert.equal(copyBytes(join(root, "missing.gz")), null);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
