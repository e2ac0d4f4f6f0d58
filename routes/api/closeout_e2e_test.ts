/**
 * The Closeout badge of Codex and Gemini CLI sessions, end to end: the real binaries, against their loopback fakes,
 * run (or do not run) the shipped agents.toml's closeout skill; the server imports their transcripts, and the list
 * page and the API say "closed out" or "open" from the harness's own record of the run, while both closeout
 * actions still refuse with the agent's sentence (asm cannot start a skill in these agents). One world for both
 * agents: the runs are the slow part.
 * @module
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { type AgentConfig, offlineSetup } from "../../lib/agents/mod.ts";
import { importWorld } from "../../lib/history/_test_utils.ts";
import { startFake } from "../../verify/fakes/mod.ts";
import { agentsBinDir } from "../../verify/prerequisites.ts";
import { importDone, serverWorld } from "../../verify/server_world.ts";

const SKILL_MD = `---
name: closeout
description: Closes a session out with a one-line summary. Use when the person asks to close out.
---
Say "closed out" and stop.
`;

/** One headless run of a pinned agent in the world's home, with its fake's environment. */
async function runAgent(root: string, env: Record<string, string>, command: string, args: string[]) {
  const out = await new Deno.Command(command, {
    args,
    cwd: root,
    env: { ...env, PATH: `${agentsBinDir()}:/usr/bin:/bin`, TMPDIR: root, LANG: "C.UTF-8" },
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

/** Runs `body` with the agent's fake up and the environment its binary needs to reach it. */
async function withFake(
  agent: AgentConfig,
  home: string,
  body: (env: Record<string, string>) => Promise<void>,
): Promise<void> {
  const fake = await startFake(offlineSetup(agent).fakeKind);
  try {
    await body(offlineSetup(agent).prepare({ home, fakeUrl: fake.url }));
  } finally {
    await fake.close();
  }
}

Deno.test("Codex and Gemini CLI sessions read closed out where the closeout skill ran and open where it did not, on the page and the API; the closeout actions refuse with the agent's sentence", async () => {
  await using s = await serverWorld(importWorld(), (w) => {
    w.write(".codex/skills/closeout/SKILL.md", SKILL_MD);
    w.write(".gemini/skills/closeout/SKILL.md", SKILL_MD);
  });
  const w = s.world;
  const agent = (name: string) => w.agents.find((a) => a.name === name)!;
  // the shipped agents.toml, untouched: its closeout skill is the one these sessions run or do not
  assert.deepEqual(w.agents.map((a) => [a.name, a.closeout_skill]), [
    ["claude", "closeout"],
    ["codex", "closeout"],
    ["gemini", "closeout"],
  ]);
  await withFake(agent("codex"), w.home, async (env) => {
    const exec = (prompt: string) =>
      runAgent(w.root, { ...w.env, ...env }, "codex", ["exec", "--skip-git-repo-check", prompt]);
    await exec("$closeout now");
    await exec("just say hello");
  });
  await withFake(agent("gemini"), w.home, async (env) => {
    // headless, the CLI offers activate_skill only with --yolo (a person's skill asks for a confirmation)
    const run = (prompt: string, ...flags: string[]) =>
      runAgent(w.root, { ...w.env, ...env }, "gemini", ["--skip-trust", ...flags, "-p", prompt]);
    const used = await run("USE_SKILL closeout", "--yolo");
    assert.match(used, /Mock saw tool output: <activated_skill name="closeout">/, "the CLI loaded the skill");
    await run("just say hello");
  });

  await s.post("/api/import").then((r) => r.body?.cancel());
  await importDone(s.get);
  const rows = (await s.get("/api/sessions?all=1")).sessions as {
    asm_id: string;
    agent: string;
    closeout: string | null;
  }[];
  const byPrompt = new Map<string, string>();
  for (const r of w.ledger.query("SELECT asm_id, agent, first_message FROM sessions")) {
    byPrompt.set(`${r.agent} ${r.first_message}`, String(r.asm_id));
  }
  const want: [string, string, string][] = [
    ["codex $closeout now", "closed", "closed out"],
    ["codex just say hello", "open", "open"],
    ["gemini USE_SKILL closeout", "closed", "closed out"],
    ["gemini just say hello", "open", "open"],
  ];
  assert.deepEqual(
    rows.map((r) => r.asm_id).sort(),
    want.map(([prompt]) => byPrompt.get(prompt)).sort(),
    "one row per run",
  );
  const list = parseHTML(await (await fetch(`${s.server.url}/?all=1`)).text()).document;
  const notes = new Map<string, string>();
  for (const [prompt, api, badge] of want) {
    const id = byPrompt.get(prompt)!;
    assert.equal(rows.find((r) => r.asm_id === id)?.closeout, api, `${prompt}: the API's closeout`);
    const cell = list.querySelector(`[data-closeout-for="${id}"]`);
    assert.deepEqual(
      [...(cell?.querySelectorAll(":scope > span:not([hidden])") ?? [])].map((e) => e.textContent),
      [badge],
      `${prompt}: the page's badge`,
    );
    assert.equal(cell?.querySelector("button"), null, `${prompt}: no Closeout button`);
    const agentName = prompt.split(" ")[0];
    notes.set(agentName, cell?.querySelector("[data-closeout-open]")?.getAttribute("title") ?? "");
    // both actions answer the agent's sentence, whatever the badge says
    for (const action of ["closeout", "closeout-live"]) {
      const answer = await s.post(`/api/sessions/${id}/${action}`);
      assert.equal(answer.status, 409, `${prompt}: ${action}`);
      assert.deepEqual(
        await answer.json(),
        { error: agent(agentName).closeout_note },
        `${prompt}: ${action}`,
      );
    }
  }
  // the open badge's tip is the same sentence
  assert.deepEqual(Object.fromEntries(notes), {
    codex: agent("codex").closeout_note,
    gemini: agent("gemini").closeout_note,
  });
  assert.match(agent("codex").closeout_note, /^Codex records a skill's run, so the badge says whether/);
  assert.match(agent("gemini").closeout_note, /^Gemini CLI records a skill's run, so the badge says whether/);
});
