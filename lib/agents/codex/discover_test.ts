import assert from "node:assert/strict";
import { join } from "node:path";
import { denoIo } from "../../history/mod.ts";
import { codexFileOf, discoverCodex, rolloutThreadId } from "./discover.ts";

Deno.test("Codex's walk finds rollouts in the day folders and the archive, named by their thread id", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-codex-walk-" });
  try {
    const codexHome = join(home, ".codex");
    const a = "01a2295d-92ca-73a0-ac65-5a6372a1a905";
    const b = "01a2295e-3e74-7b51-9630-f5ff1307a47f";
    Deno.mkdirSync(join(codexHome, "sessions", "2026", "11", "29"), { recursive: true });
    Deno.mkdirSync(join(codexHome, "archived_sessions"), { recursive: true });
    Deno.writeTextFileSync(
      join(codexHome, "sessions", "2026", "11", "29", `rollout-2026-11-29T22-12-08-${a}.jsonl`),
      "\n",
    );
    Deno.writeTextFileSync(
      join(codexHome, "archived_sessions", `rollout-2026-11-28T10-00-00-${b}.jsonl`),
      "\n",
    );
    Deno.writeTextFileSync(join(codexHome, "sessions", "history.jsonl"), "\n");
    const env = { HOME: home, CODEX_HOME: codexHome };
    const files = discoverCodex(env, denoIo, () => {});
    assert.deepEqual(files.map((f) => f.sessionHint).sort(), [a, b]);
    assert.equal(codexFileOf(files[0].path, env, denoIo)?.sessionHint, files[0].sessionHint);
    assert.equal(rolloutThreadId("rollout-x.jsonl"), null);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
