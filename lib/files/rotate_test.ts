import assert from "node:assert/strict";
import { join } from "node:path";
import { appendRotating } from "./rotate.ts";

Deno.test("a log past its size moves aside, keeping two older generations and every line", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-rotate-" });
  try {
    const path = join(dir, "server.log");
    const line = (n: number) => `line ${String(n).padStart(3, "0")}\n`; // 9 bytes
    for (let n = 0; n < 10; n++) appendRotating(path, line(n), { maxBytes: 30 });
    const read = (p: string) => Deno.readTextFileSync(p);
    // 3 lines (27 bytes) fit; the 4th rotates
    assert.equal(read(path), line(9));
    assert.equal(read(`${path}.1`), line(6) + line(7) + line(8));
    assert.equal(read(`${path}.2`), line(3) + line(4) + line(5));
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "server.log",
      "server.log.1",
      "server.log.2",
    ]);
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
