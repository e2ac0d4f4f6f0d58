import assert from "node:assert/strict";
import { join } from "node:path";
import { copyPathOf, hasCopy, transcriptBytes, writeCopy } from "./copies.ts";

Deno.test("a transcript copy is gzip under copies/<agent>/, and reads back when the original is gone", async () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-copies-" });
  try {
    const source = join(root, "session.jsonl");
    const bytes = new TextEncoder().encode('{"a":1}\n'.repeat(1000));
    Deno.writeFileSync(source, bytes);
    const dest = copyPathOf(join(root, "asm"), "gemini", "tmp/p/chats/session.jsonl");
    assert.equal(dest, join(root, "asm", "copies", "gemini", "tmp", "p", "chats", "session.jsonl.gz"));
    assert.equal(
      copyPathOf("/a", "g", "../../etc/passwd"),
      "/a/copies/g/etc/passwd.gz",
      "never outside copies/",
    );
    await writeCopy(source, dest);
    assert.ok(hasCopy(dest));
    assert.ok(Deno.statSync(dest).size < bytes.length / 10, "compressed");
    assert.deepEqual(transcriptBytes(source, dest), bytes);
    Deno.removeSync(source);
    assert.deepEqual(transcriptBytes(source, dest), bytes);
    assert.equal(transcriptBytes(source, null), null);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
