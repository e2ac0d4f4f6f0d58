import assert from "node:assert/strict";
import { renderHeader } from "./header.ts";

const FACTS = {
  version: "0.5.0",
  commit: "e811775fadfb",
  sha256: "ab".repeat(32),
  cksum: "3676373959 48757682",
};

Deno.test("the header names the byte its payload starts at, whatever that offset's digits", () => {
  const text = renderHeader(FACTS);
  const bytes = new TextEncoder().encode(text).length;
  const offset = text.match(/^payload_offset=(\d+) *$/m);
  assert.ok(offset, "the offset line is there");
  assert.equal(Number(offset[1]), bytes);
  assert.ok(text.startsWith("#!/bin/sh\n") && text.endsWith("exit 1\n}\n"));
  assert.match(text, /^ASM_COMMIT='e811775fadfb'$/m);
});

Deno.test("a value that is not plain never reaches the shell header", () => {
  assert.throws(() => renderHeader({ ...FACTS, commit: "x'; rm -rf ~; '" }), /not a plain value/);
  assert.throws(() => renderHeader({ ...FACTS, version: "$(id)" }), /not a plain value/);
});

Deno.test("a copy cut short anywhere in the header runs none of it: a syntax error, nothing unpacked", async () => {
  const text = renderHeader(FACTS);
  const root = Deno.makeTempDirSync({ prefix: "asm-header-" });
  try {
    // every line end after the shebang's (a file of the shebang alone holds nothing to run)
    const cuts = [...text.matchAll(/\n/g)].map((m) => m.index! + 1).filter((at) =>
      at > 10 && at < text.length
    );
    const ran: string[] = [];
    for (const at of cuts) {
      const file = `${root}/cut`;
      Deno.writeTextFileSync(file, text.slice(0, at));
      const out = await new Deno.Command("/bin/sh", {
        args: [file, "--version"],
        env: { HOME: root, PATH: "/usr/bin:/bin" },
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (out.success || new TextDecoder().decode(out.stdout) !== "") ran.push(`cut at byte ${at}`);
    }
    console.log(`${cuts.length} cuts at line ends: ${ran.length} ran anything`);
    assert.deepEqual(ran, []);
    assert.throws(() => Deno.statSync(`${root}/.cache`), Deno.errors.NotFound, "nothing unpacked");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
