import assert from "node:assert/strict";
import { join } from "node:path";
import { denoIo } from "../../history/mod.ts";
import { discoverGemini, geminiFileOf } from "./discover.ts";

Deno.test("Gemini's walk finds session files with their folder from .project_root or projects.json", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-gemini-walk-" });
  try {
    const tmp = join(home, ".gemini", "tmp");
    for (const slug of ["proj-a", "proj-b"]) Deno.mkdirSync(join(tmp, slug, "chats"), { recursive: true });
    Deno.writeTextFileSync(join(tmp, "proj-a", ".project_root"), "/work/proj-a\n");
    Deno.writeTextFileSync(
      join(home, ".gemini", "projects.json"),
      JSON.stringify({ projects: { "/work/b": "proj-b" } }),
    );
    Deno.writeTextFileSync(join(tmp, "proj-a", "chats", "session-2026-11-29T22-22-03265f03.jsonl"), "\n");
    Deno.writeTextFileSync(join(tmp, "proj-b", "chats", "session-2026-11-29T22-23-4966ac10.jsonl"), "\n");
    Deno.writeTextFileSync(join(tmp, "proj-b", "logs.json"), "[]");
    const env = { HOME: home };
    const files = discoverGemini(env, denoIo, () => {});
    assert.deepEqual(files.map((f) => [f.cwd, f.rel]).sort(), [
      ["/work/b", "tmp/proj-b/chats/session-2026-11-29T22-23-4966ac10.jsonl"],
      ["/work/proj-a", "tmp/proj-a/chats/session-2026-11-29T22-22-03265f03.jsonl"],
    ]);
    assert.equal(geminiFileOf(files[0].path, env, denoIo)?.cwd, files[0].cwd);
    assert.equal(geminiFileOf(join(tmp, "proj-b", "logs.json"), env, denoIo), null);
    // GEMINI_CLI_HOME takes the place of HOME
    assert.equal(discoverGemini({ HOME: "/nonexistent", GEMINI_CLI_HOME: home }, denoIo, () => {}).length, 2);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
