import assert from "node:assert/strict";
import { type AgentConfig, loadAgents } from "../agents/mod.ts";
import { agentArgv, ArgvError } from "./argv.ts";

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
