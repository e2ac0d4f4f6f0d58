import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL as toFileUrl } from "node:url";
import { asmHome, findOnPath, harnessRoots, relativeTo, repoRoot } from "./paths.ts";

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

Deno.test("a command is found on PATH only as an executable file; one with a slash is taken as written", () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-path-" });
  try {
    for (const d of ["a", "b", "c"]) Deno.mkdirSync(join(dir, d));
    Deno.writeTextFileSync(join(dir, "a", "tool"), "not executable");
    Deno.mkdirSync(join(dir, "b", "tool")); // a folder of that name is not the command
    Deno.writeTextFileSync(join(dir, "c", "tool"), "#!/bin/sh\n");
    Deno.chmodSync(join(dir, "c", "tool"), 0o755);
    const PATH = ["", join(dir, "missing"), join(dir, "a"), join(dir, "b"), join(dir, "c")].join(":");
    assert.equal(findOnPath("tool", { PATH }), join(dir, "c", "tool"));
    assert.equal(findOnPath("other", { PATH }), null);
    assert.equal(findOnPath("tool", {}), null, "no PATH: nothing is found");
    assert.equal(findOnPath("./bin/tool", { PATH }), "./bin/tool");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the repo root of a checkout whose path holds a space is that path, not its URL spelling", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-root-" });
  try {
    const root = join(dir, "My Projects", "asm");
    Deno.mkdirSync(join(root, "lib", "config"), { recursive: true });
    Deno.copyFileSync(new URL("./paths.ts", import.meta.url), join(root, "lib", "config", "paths.ts"));
    const copy = await import(toFileUrl(join(root, "lib", "config", "paths.ts")).href);
    assert.equal(copy.repoRoot(), root);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
