import assert from "node:assert/strict";
import { globToRegExp, matchesAny } from "./glob.ts";

Deno.test("** crosses folders, * and ? do not, classes work, and the match is anchored", () => {
  assert.equal(
    matchesAny("/a/b/node_modules/@openai/codex-linux-x64/vendor/x/bin/codex", [
      "**/@openai/codex-*/vendor/*/bin/codex",
    ]),
    true,
  );
  assert.equal(matchesAny("/a/bin/codex-helper", ["**/bin/codex"]), false);
  assert.equal(matchesAny("/usr/bin/node20", ["**/node[0-9]*"]), true);
  assert.equal(matchesAny("/usr/bin/nodejs", ["**/node?s"]), true);
  assert.equal(matchesAny("/x/a.b", ["**/a?b"]), true);
  assert.equal(globToRegExp("*.json").test("dir/x.json"), false);
});
