import assert from "node:assert/strict";
import { join } from "node:path";
import { denoIo } from "./io.ts";
import { projectRoots } from "./roots.ts";

Deno.test("a path belongs to the nearest folder above it holding .git; home and / never do", () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-roots-" }));
  try {
    const home = join(root, "home");
    for (const d of [".git", "code/app/.git", "code/app/src", "code/loose"]) {
      Deno.mkdirSync(join(home, d), { recursive: true });
    }
    Deno.writeTextFileSync(join(home, "code/app/src/main.ts"), "");
    const roots = projectRoots(denoIo, [home]);
    const app = join(home, "code/app");
    assert.equal(roots.rootOf(join(app, "src/main.ts")), app);
    assert.equal(roots.rootOf(join(app, "src")), app);
    assert.equal(
      roots.rootOf(join(app, "src/deleted/long/ago.ts")),
      app,
      "a path that is gone resolves by its folder",
    );
    assert.equal(
      roots.rootOf(join(home, "code/loose")),
      null,
      "a dotfiles repository at home is not a project",
    );
    assert.equal(roots.rootOf("relative/path"), null);
    assert.deepEqual(roots.rollUp({ [join(app, "a")]: 2, [join(app, "src/main.ts")]: 1, "/nowhere/x": 5 }), {
      [app]: 3,
    });
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
