import assert from "node:assert/strict";
import { asmIdOf } from "../ledger/mod.ts";
import { newFacts } from "./facts.ts";
import { closeoutOf, type DeriveContext, deriveSession, titleOf } from "./session.ts";

Deno.test("closeout is closed only on the harness's own marker, open without it, null when nobody can say", () => {
  const table: [Record<string, number>, string, boolean, string | null][] = [
    [{ closeout: 1 }, "closeout", true, "closed"],
    [{}, "closeout", true, "open"],
    [{ "closeout-ish": 1 }, "closeout", true, "open"],
    [{ closeout: 1 }, "closeout", false, null], // the format has no marker: a claim would be a guess
    [{ closeout: 1 }, "", true, null], // no closeout skill configured
  ];
  for (const [skills, skill, markers, want] of table) assert.equal(closeoutOf(skills, skill, markers), want);
});

Deno.test("the title is the person's name, else the agent's title, its summary, the first message", () => {
  const f = newFacts("s");
  assert.equal(titleOf(f), null);
  f.first_message = "first";
  assert.equal(titleOf(f), "first");
  f.summary = "summary";
  assert.equal(titleOf(f), "summary");
  f.title = "agent title";
  assert.equal(titleOf(f), "agent title");
  f.name = "my name";
  assert.equal(titleOf(f), "my name");
});

Deno.test("a derived row carries its parent, its cleared predecessor, its project and its harness flag", () => {
  const f = newFacts("child");
  f.parent_session_id = "parent";
  f.cleared_from_session_id = "before";
  f.cwd = "/tmp/scratch";
  const ctx: DeriveContext = {
    agent: "claude",
    transcriptPath: "/h/t.jsonl",
    transcriptCopy: null,
    closeoutSkill: "closeout",
    skillMarkers: true,
    projectFolders: { "/w/app": 3 },
    home: "/tmp/scratch",
    rules: { skillFolders: {}, excludedSkills: [] },
    closeoutSkills: ["closeout"],
    harnessRoots: ["/tmp"],
  };
  const row = deriveSession(f, ctx);
  assert.equal(row.asm_id, asmIdOf("claude", "child"));
  assert.equal(row.parent_asm_id, asmIdOf("claude", "parent"));
  assert.equal(row.cleared_from_asm_id, asmIdOf("claude", "before"));
  assert.equal(row.primary_folder, "/w/app");
  assert.equal(row.project, "app");
  assert.equal(row.harness, true);
  assert.equal(row.closeout_state, "open");
  assert.throws(() => deriveSession(newFacts(null), ctx), /without an id/);
});
