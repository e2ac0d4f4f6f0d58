import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { asmHome, harnessRoots, repoRoot } from "./paths.ts";

Deno.test("the harness roots are the system temp folder, asm's data folder and the hooks folder", () => {
  const roots = harnessRoots("/home/me/.asm");
  assert.ok(roots.includes(tmpdir()));
  assert.ok(roots.includes("/tmp"));
  assert.ok(roots.includes("/home/me/.asm"));
  assert.ok(roots.includes(`${repoRoot()}/hooks`));
  assert.equal(Deno.statSync(`${repoRoot()}/hooks/hook.ts`).isFile, true, "repoRoot is this checkout");
});

Deno.test("ASM_HOME wins over HOME, and HOME alone gives ~/.asm", () => {
  assert.equal(asmHome({ HOME: "/home/me", ASM_HOME: "/srv/asm" }), "/srv/asm");
  assert.equal(asmHome({ HOME: "/home/me" }), "/home/me/.asm");
  assert.throws(() => asmHome({}), /HOME is not set/);
});
