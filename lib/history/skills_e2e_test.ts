/**
 * Skills, end to end on the real Codex and Gemini CLI against their fakes (docs/agents/skills.md): a skill the
 * harness ran is listed on the imported row and, being the closeout skill, closes the session out; a skill the
 * model only read, one the harness could not load, and a prompt that merely names the skill leave the row open.
 */
import assert from "node:assert/strict";
import { type AgentConfig, offlineSetup } from "../agents/mod.ts";
import { sessionViews } from "../ledger/mod.ts";
import { startFake } from "../../verify/fakes/mod.ts";
import { agentsBinDir } from "../../verify/prerequisites.ts";
import { type ImportWorld, importWorld } from "./_test_utils.ts";

const SKILL = "wrapup";
const SKILL_MD = `---
name: ${SKILL}
description: Wraps up a session with a one-line summary. Use when the person asks to wrap up.
---
Say "wrapped up" and stop.
`;

/** One headless run of a pinned agent in the world's home; returns its stdout and stderr. */
async function runAgent(w: ImportWorld, command: string, args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(command, {
    args,
    cwd: w.root,
    env: { ...w.env, ...env, PATH: `${agentsBinDir()}:/usr/bin:/bin`, TMPDIR: w.root, LANG: "C.UTF-8" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(90_000),
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.ok(out.success, `${command} ${args.join(" ")}:\n${text.slice(-2000)}`);
  return text;
}

/** The imported rows of one agent by their first message: skills and closeout. */
async function importedByPrompt(w: ImportWorld, agent: string) {
  // the skill is this test's closeout skill (agents.toml's is "closeout": routes/api/closeout_e2e_test.ts)
  const agents: AgentConfig[] = w.agents.map((a) => ({ ...a, closeout_skill: SKILL }));
  await w.run({ agents });
  const views = new Map(sessionViews(w.ledger, { all: true }).map((v) => [v.asm_id, v]));
  const rows = w.ledger.query("SELECT asm_id, first_message FROM sessions WHERE agent = ?", agent);
  return Object.fromEntries(rows.map((r) => {
    const v = views.get(String(r.asm_id))!;
    return [String(r.first_message), { skills: v.skills, closeout: v.closeout }];
  }));
}

Deno.test("Codex: a $skill the harness loaded closes the session out; the model reading SKILL.md, or the name without $, does not", async () => {
  await using w = importWorld();
  const agent = w.agents.find((a) => a.name === "codex")!;
  const fake = await startFake(offlineSetup(agent).fakeKind);
  try {
    const env = offlineSetup(agent).prepare({ home: w.home, fakeUrl: fake.url });
    w.write(`.codex/skills/${SKILL}/SKILL.md`, SKILL_MD);
    const exec = (prompt: string) => runAgent(w, "codex", ["exec", "--skip-git-repo-check", prompt], env);
    await exec(`$${SKILL} now`);
    // the fake's model opens the skill's SKILL.md with its shell tool, as Codex's skills instructions say
    const read = await exec(`USE_SKILL ${SKILL}`);
    assert.match(read, /Mock saw tool output: .*Say "wrapped up" and stop\./, "the model did read the skill");
    await exec(`please ${SKILL} now`);
    await exec("$nosuch-skill now");

    assert.deepEqual(await importedByPrompt(w, "codex"), {
      [`$${SKILL} now`]: { skills: [SKILL], closeout: "closed" },
      [`USE_SKILL ${SKILL}`]: { skills: [], closeout: "open" },
      [`please ${SKILL} now`]: { skills: [], closeout: "open" },
      "$nosuch-skill now": { skills: [], closeout: "open" },
    });
  } finally {
    await fake.close();
  }
});

Deno.test("Gemini CLI: an activate_skill call the CLI ran closes the session out; an unknown skill, or the name typed headless, does not", async () => {
  await using w = importWorld();
  const agent = w.agents.find((a) => a.name === "gemini")!;
  const fake = await startFake(offlineSetup(agent).fakeKind);
  try {
    const env = offlineSetup(agent).prepare({ home: w.home, fakeUrl: fake.url });
    w.write(`.gemini/skills/${SKILL}/SKILL.md`, SKILL_MD);
    // headless, the CLI offers activate_skill only with --yolo (a person's skill asks for a confirmation)
    const run = (prompt: string, ...flags: string[]) =>
      runAgent(w, "gemini", ["--skip-trust", ...flags, "-p", prompt], env);
    const used = await run(`USE_SKILL ${SKILL}`, "--yolo");
    assert.match(used, /Mock saw tool output: <activated_skill name="wrapup">/, "the CLI loaded the skill");
    const unknown = await run("USE_SKILL nosuch-skill", "--yolo");
    assert.match(unknown, /must be equal to one of the allowed values/, "the CLI refused the unknown skill");
    await run(`/${SKILL} please`);

    assert.deepEqual(await importedByPrompt(w, "gemini"), {
      [`USE_SKILL ${SKILL}`]: { skills: [SKILL], closeout: "closed" },
      "USE_SKILL nosuch-skill": { skills: [], closeout: "open" },
      [`/${SKILL} please`]: { skills: [], closeout: "open" },
    });
  } finally {
    await fake.close();
  }
});
