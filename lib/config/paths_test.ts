import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { relative } from "node:path";
import { asmHome, harnessRoots, relativeTo, repoRoot } from "./paths.ts";

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

Deno.test("relativeTo answers what node:path's relative does, for walked paths and odd ones", () => {
  const cases: [string, string][] = [
    ["/h/.claude/projects", "/h/.claude/projects/-tmp-a/x.jsonl"],
    ["/h/.claude/projects/", "/h/.claude/projects/-tmp-a/x.jsonl"],
    ["/h/root", "/h/root"],
    ["/h/root", "/h/rootless/x"],
    ["/h/root", "/h/root/../other/x"],
    ["/h/root", "/h/root/./a//b/x"],
    ["/h/root", "/elsewhere/x"],
    ["/h/root", "/h/root/.hidden/x"],
  ];
  for (const [root, path] of cases) {
    assert.equal(relativeTo(root, path), relative(root, path), `${root} ${path}`);
  }
});
