import assert from "node:assert/strict";
import { folderAndParents } from "./folder_chain.ts";

Deno.test("a folder's chain runs from the folder itself up to the root", () => {
  assert.deepEqual(folderAndParents("/a/b/c/"), ["/a/b/c", "/a/b", "/a", "/"]);
  assert.deepEqual(folderAndParents("/"), ["/"]);
});
