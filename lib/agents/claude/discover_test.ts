import assert from "node:assert/strict";
import { join } from "node:path";
import { denoIo } from "../../history/mod.ts";
import { claudeFileOf, claudeShape, discoverClaude } from "./discover.ts";

Deno.test("Claude's walk finds every session and sub-agent transcript, and nothing else", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-claude-walk-" });
  try {
    const slug = join(home, ".claude", "projects", "-tmp-p");
    const sid = "11111111-2222-4333-8444-555555555555";
    Deno.mkdirSync(join(slug, sid, "subagents"), { recursive: true });
    Deno.mkdirSync(join(slug, "memory"), { recursive: true });
    for (
      const f of [`${sid}.jsonl`, `${sid}/subagents/agent-abc.jsonl`, `${sid}/custom-title.json`, "notes.txt"]
    ) {
      Deno.writeTextFileSync(join(slug, f), "{}\n");
    }
    Deno.writeTextFileSync(join(slug, sid, "subagents", "agent-abc.meta.json"), "{}");
    const problems: string[] = [];
    const files = discoverClaude({ HOME: home }, denoIo, (p, why) => problems.push(`${p}: ${why}`));
    assert.deepEqual(problems, []);
    assert.deepEqual(
      files.map((f) => [f.sessionHint, f.role, f.parentSessionId, f.rel]).sort(),
      [
        [sid, "main", null, `-tmp-p/${sid}.jsonl`],
        [`${sid}/agent-abc`, "subagent", sid, `-tmp-p/${sid}/subagents/agent-abc.jsonl`],
      ].sort(),
    );
    assert.equal(files[0].size, 3);
    assert.equal(claudeFileOf(join(slug, `${sid}.jsonl`), { HOME: home }, denoIo)?.sessionHint, sid);
    assert.equal(claudeFileOf(join(home, "elsewhere.jsonl"), { HOME: home }, denoIo), null);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("an old-style sub-agent file beside the sessions is a sub-agent whose parent its lines name", () => {
  assert.deepEqual(claudeShape("/h/.claude/projects/s/agent-x.jsonl", "/h/.claude/projects"), {
    sessionHint: "agent-x",
    role: "subagent",
    parentSessionId: null,
  });
  assert.equal(claudeShape("/h/.claude/projects/s/a/b/c.jsonl", "/h/.claude/projects"), null);
});

Deno.test("a Claude store that does not exist is an empty list", () => {
  assert.deepEqual(discoverClaude({ HOME: "/nonexistent-asm-home" }, denoIo, () => {}), []);
});
