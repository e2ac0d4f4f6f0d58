import assert from "node:assert/strict";
import { join } from "node:path";
import { denoIo } from "./io.ts";

Deno.test("a missing path is an answer, not an error: empty listing, no stat, no text", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-io-" });
  try {
    assert.deepEqual(denoIo.readDir(join(dir, "none")), []);
    assert.equal(denoIo.stat(join(dir, "none")), null);
    assert.equal(denoIo.readText(join(dir, "none")), null);
    Deno.writeTextFileSync(join(dir, "f"), "0123456789");
    assert.equal(denoIo.readText(join(dir, "f"), 4), "0123");
    assert.deepEqual(denoIo.readDir(join(dir, "f")), [], "a file is not a folder to list");
    assert.throws(() => denoIo.open(join(dir, "none")), Deno.errors.NotFound);
    const h = denoIo.open(join(dir, "f"));
    const buf = new Uint8Array(3);
    assert.equal(h.read(buf, 5), 3);
    assert.equal(new TextDecoder().decode(buf), "567");
    assert.equal(h.read(buf, 10), 0);
    h.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
