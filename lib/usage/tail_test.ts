import assert from "node:assert/strict";
import { join } from "node:path";
import { readTail } from "./tail.ts";

Deno.test("the tail of a file keeps whole lines only", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-usage-tail-" });
  try {
    const path = join(dir, "f.jsonl");
    Deno.writeTextFileSync(path, "first line\nsecond line\nthird\n");
    assert.equal(readTail(path, 1_000), "first line\nsecond line\nthird\n");
    assert.equal(readTail(path, 10), "third\n", "the cut first line is dropped");
    Deno.writeTextFileSync(path, "");
    assert.equal(readTail(path, 10), "");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
