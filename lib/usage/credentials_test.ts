import assert from "node:assert/strict";
import { join } from "node:path";
import { fileStamp, numberField, readCredentialsFile, stringField } from "./credentials.ts";

const TOKEN = "tok-credentials-test-0123456789";

Deno.test("a credentials file reads as its object, absent, or invalid, and no message quotes the file", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-usage-creds-" });
  try {
    const path = join(dir, "creds.json");
    assert.deepEqual(await readCredentialsFile(path), { kind: "absent" });
    Deno.writeTextFileSync(path, JSON.stringify({ tokens: { access_token: TOKEN } }));
    const ok = await readCredentialsFile(path);
    assert.equal(ok.kind, "ok");
    assert.equal(stringField((ok as { root: Record<string, unknown> }).root.tokens, "access_token"), TOKEN);
    for (const text of [`{"tokens": {"access_token": "${TOKEN}"`, `["${TOKEN}"]`, `"${TOKEN}"`]) {
      Deno.writeTextFileSync(path, text);
      const bad = await readCredentialsFile(path);
      assert.equal(bad.kind, "invalid", text);
      assert.ok(!JSON.stringify(bad).includes(TOKEN), `the message quotes nothing of ${text}`);
      assert.match((bad as { message: string }).message, new RegExp(`^${path}`));
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a file's stamp changes when the file does, and says absent when there is none", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-usage-creds-" });
  try {
    const path = join(dir, "creds.json");
    assert.equal(fileStamp(path), "absent");
    Deno.writeTextFileSync(path, "{}");
    const first = fileStamp(path);
    Deno.writeTextFileSync(path, '{"a": 1}');
    assert.notEqual(fileStamp(path), first);
    assert.ok(!fileStamp(path).includes("a"), "the stamp is not the contents");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("fields are read only when they have the right type", () => {
  assert.equal(stringField({ a: "" }, "a"), null);
  assert.equal(stringField({ a: 1 }, "a"), null);
  assert.equal(stringField(null, "a"), null);
  assert.equal(numberField({ a: 5 }, "a"), 5);
  assert.equal(numberField({ a: "5" }, "a"), null);
});
