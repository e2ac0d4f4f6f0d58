import assert from "node:assert/strict";
import { type AgentConfig, loadAgents } from "../agents/mod.ts";
import { agentArgv, ArgvError, oneShotArgv, resumeCommandLine } from "./argv.ts";

const builtin = loadAgents({ asmHome: "/nonexistent-asm-home" });

function agentWith(overrides: Partial<AgentConfig>): AgentConfig {
  return { ...builtin[0], name: "x", display: "X", trust_bypass: "--trust-hooks", ...overrides };
}

const x = agentWith({
  launch_argv: ["--own-work", "{trust_bypass}"],
  resume_argv: ["resume", "{session_id}", "{trust_bypass}"],
  model_argv: ["--model={model}"],
  prompt_argv: ["--", "{prompt}"],
});

Deno.test("a launch without a model or prompt is the bare launch argv, hook-trust bypass dropped", () => {
  assert.deepEqual(agentArgv(x, { kind: "launch", withPrompt: false }), {
    args: ["--own-work"],
    promptIndex: null,
  });
});

Deno.test("the prompt element is marked for the shim and left empty here", () => {
  const argv = agentArgv(x, { kind: "launch", withPrompt: true, model: "m1", bypassHookTrust: true });
  assert.deepEqual(argv.args, ["--own-work", "--trust-hooks", "--model=m1", "--", ""]);
  assert.equal(argv.promptIndex, 4);
});

Deno.test("no model key and an empty model both withhold the model flag", () => {
  for (const model of [undefined, null, "", "  "]) {
    const argv = agentArgv(x, { kind: "resume", sessionId: "abc", model, withPrompt: false });
    assert.deepEqual(argv.args, ["resume", "abc"], String(model));
  }
});

Deno.test("a resume names the agent's own session id", () => {
  const argv = agentArgv(x, { kind: "resume", sessionId: "0195-a", model: "m", withPrompt: true });
  assert.deepEqual(argv.args, ["resume", "0195-a", "--model=m", "--", ""]);
});

Deno.test("a prompt prefix element keeps its prefix for the shim to append to", () => {
  const g = agentWith({ prompt_argv: ["--prompt-interactive={prompt}"] });
  const argv = agentArgv(g, { kind: "launch", withPrompt: true });
  assert.equal(argv.args[argv.promptIndex!], "--prompt-interactive=");
});

Deno.test("what the templates cannot serve is refused with a sentence", () => {
  const cases: [AgentConfig, Parameters<typeof agentArgv>[1], RegExp][] = [
    [
      agentWith({ resume_argv: [] }),
      { kind: "resume", sessionId: "a", withPrompt: false },
      /cannot be resumed/,
    ],
    [x, { kind: "resume", sessionId: "", withPrompt: false }, /needs the agent's own session id/],
    [x, { kind: "resume", sessionId: "-rm", withPrompt: false }, /may not start with "-"/],
    [agentWith({ model_argv: [] }), { kind: "launch", model: "m", withPrompt: false }, /takes no model/],
    [x, { kind: "launch", model: "a\nb", withPrompt: false }, /one line/],
    [
      agentWith({ prompt_argv: ["{prompt}-x"] }),
      { kind: "launch", withPrompt: true },
      /at the end of one element/,
    ],
    [agentWith({ prompt_argv: [] }), { kind: "launch", withPrompt: true }, /at the end of one element/],
    [agentWith({ launch_argv: ["{cwd}"] }), { kind: "launch", withPrompt: false }, /asm does not fill/],
  ];
  for (const [agent, request, want] of cases) {
    assert.throws(
      () => agentArgv(agent, request),
      (err) => err instanceof ArgvError && want.test(err.message),
    );
  }
});

Deno.test("every built-in agent can launch, resume and take a model, with the prompt after a guard", () => {
  for (const agent of builtin) {
    const launch = agentArgv(agent, { kind: "launch", withPrompt: true, model: "m" });
    assert.ok(launch.promptIndex !== null, agent.name);
    const before = launch.args.slice(0, launch.promptIndex!);
    // the prompt can never read as a flag: it follows "--" or is the value of an "=" option
    assert.ok(before.at(-1) === "--" || launch.args[launch.promptIndex!].endsWith("="), agent.name);
    const resume = agentArgv(agent, { kind: "resume", sessionId: "s-1", withPrompt: false });
    assert.ok(resume.args.includes("s-1"), agent.name);
  }
});

Deno.test("a one-shot turn fills the prompt in, keeps it one element whatever it holds, and drops an empty bypass", () => {
  const one = agentWith({
    one_shot: ["exec", "{trust_bypass}", "{prompt}"],
    one_shot_resume: ["exec", "{trust_bypass}", "resume", "{session_id}", "-p", "{prompt}"],
  });
  const prompt = `say "hi"; $(rm -rf ~) {session_id}\nand -- more`;
  assert.deepEqual(oneShotArgv(one, { prompt }), ["exec", prompt]);
  assert.deepEqual(oneShotArgv(one, { prompt: "p", bypassHookTrust: true }), ["exec", "--trust-hooks", "p"]);
  assert.deepEqual(
    oneShotArgv(one, { prompt: "p", sessionId: "s-1" }),
    ["exec", "resume", "s-1", "-p", "p"],
  );
});

Deno.test("a one-shot the templates cannot serve is refused with a sentence", () => {
  const resumable = agentWith({ one_shot_resume: ["{session_id}", "{prompt}"] });
  const refusals: [string, () => unknown, RegExp][] = [
    [
      "no resume template",
      () => oneShotArgv(agentWith({ one_shot_resume: [] }), { prompt: "p", sessionId: "s" }),
      /no one_shot_resume/,
    ],
    ["an empty session id", () => oneShotArgv(resumable, { prompt: "p", sessionId: "" }), /session id/],
    [
      "a session id like a flag",
      () => oneShotArgv(resumable, { prompt: "p", sessionId: "-x" }),
      /start with/,
    ],
    [
      "a placeholder asm does not fill",
      () => oneShotArgv(agentWith({ one_shot: ["{model}"] }), { prompt: "p" }),
      /x\.one_shot names \{model\}/,
    ],
  ];
  for (const [why, build, want] of refusals) {
    assert.throws(build, (err) => err instanceof ArgvError && want.test(err.message), why);
  }
});

Deno.test("every built-in agent has a one-shot turn and a one-shot resume carrying the prompt as one element", () => {
  for (const agent of builtin) {
    assert.ok(oneShotArgv(agent, { prompt: "a b c" }).includes("a b c"), agent.name);
    const resumed = oneShotArgv(agent, { prompt: "a b c", sessionId: "s-1" });
    assert.ok(resumed.includes("a b c") && resumed.includes("s-1"), agent.name);
  }
});

Deno.test("the resume command a person pastes: every word as the shell reads it back, or none when it would lie", () => {
  const claude = builtin.find((a) => a.name === "claude")!;
  assert.equal(
    resumeCommandLine(claude, "9489399f-ac78", "/home/me/it's $(rm -rf ~) `x`"),
    "cd '/home/me/it'\\''s $(rm -rf ~) `x`' && claude --resume 9489399f-ac78",
  );
  assert.equal(resumeCommandLine(claude, "abc", "/plain/dir"), "cd /plain/dir && claude --resume abc");
  assert.equal(resumeCommandLine(claude, "abc", null), "claude --resume abc");
  assert.equal(resumeCommandLine(claude, "abc", "/two\nlines"), null, "a folder that is not one line");
  assert.equal(resumeCommandLine(claude, "-rf", "/d"), null, "an id that would read as a flag");
  assert.equal(resumeCommandLine(agentWith({ resume_argv: [] }), "abc", "/d"), null, "no resume_argv");
});
