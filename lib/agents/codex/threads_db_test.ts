import assert from "node:assert/strict";
import { join } from "node:path";
import { denoIo } from "../../history/mod.ts";
import { fixture } from "../_test_utils.ts";
import { codexStateDb, readCodexThreads } from "./threads_db.ts";

Deno.test("Codex's newest thread index is read read-only, and a thread it does not know is simply absent", () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-codex-db-" });
  try {
    Deno.copyFileSync(fixture("codex/state/home2-state_5.sqlite"), join(root, "state_5.sqlite"));
    Deno.writeTextFileSync(join(root, "state_4.sqlite"), "an older index");
    const path = codexStateDb({ HOME: root, CODEX_HOME: root }, denoIo);
    assert.equal(path, join(root, "state_5.sqlite"));
    const rows = readCodexThreads(path!, [
      "01a2295e-6988-7d92-8f7d-1003fec4bca0",
      "00000000-0000-7000-8000-000000000000",
    ]);
    assert.deepEqual([...rows.keys()], ["01a2295e-6988-7d92-8f7d-1003fec4bca0"]);
    assert.deepEqual(rows.get("01a2295e-6988-7d92-8f7d-1003fec4bca0"), {
      id: "01a2295e-6988-7d92-8f7d-1003fec4bca0",
      title: "second exec RUN_LS with hooks",
      name: null,
      source: "exec",
      thread_source: "user",
      parent_id: null,
    });
    assert.equal(codexStateDb({ HOME: root, CODEX_HOME: join(root, "none") }, denoIo), null);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
