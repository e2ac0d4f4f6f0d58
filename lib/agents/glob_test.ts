import assert from "node:assert/strict";
import { globMatches, matchesAny } from "./glob.ts";
import GLOB_TABLE from "./_glob_cases.json" with { type: "json" };

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
  assert.equal(globMatches("dir/x.json", "*.json"), false);
});

Deno.test("every row of the shared glob table, which the hook's own matcher answers too", () => {
  for (const { why, cases } of GLOB_TABLE.groups) {
    for (const [glob, path, expected] of cases as [string, string, boolean][]) {
      assert.equal(globMatches(path, glob), expected, `${why}: ${glob} against ${path}`);
    }
  }
});

Deno.test("a path matches a list when it matches any glob of it, and an empty list matches nothing", () => {
  assert.equal(matchesAny("/usr/bin/node", ["**/nodejs", "**/node"]), true);
  assert.equal(matchesAny("/usr/bin/node", []), false);
});
