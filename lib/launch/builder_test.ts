import assert from "node:assert/strict";
import { join } from "node:path";
import { type AgentConfig, loadAgents } from "../agents/mod.ts";
import { type BuildInput, buildLaunch, LaunchInputError, windowName, writeLaunchFiles } from "./builder.ts";
import { isPureAscii } from "./script.ts";

/** Every character class the spec names: quotes, newlines, backticks, emoji, $(...), ;, &&, |, *, \ and a leading -. */
export const NASTY_PROMPT =
  `-leading dash "double" 'single' \`backticks\` $(echo subshell) $HOME ; && | * \\ back\\slash
second line 🎉 émoji\ttab
`;

const agent: AgentConfig = {
  ...loadAgents({ asmHome: "/nonexistent-asm-home" })[0],
  name: "dump",
  display: "Dump",
  launch_argv: ["--first"],
  resume_argv: ["--resume", "{session_id}"],
  model_argv: ["--model={model}"],
  prompt_argv: ["--", "{prompt}"],
};

/** A temp folder with an "agent" that writes its argv (NUL-separated), its cwd and two variables to out.bin. */
function world() {
  const root = Deno.makeTempDirSync({ prefix: "asm-builder-test-" });
  const folder = join(root, "proj ü");
  Deno.mkdirSync(folder);
  const command = join(root, "dump-agent");
  Deno.writeTextFileSync(
    command,
    `#!/bin/sh\nprintf '%s\\0' "$@" "CWD=$(pwd)" "TOKEN=$ASM_LAUNCH_TOKEN" "NAME=$ASM_SESSION_NAME" "X=$X_VAR" > '${root}/out.bin'\n`,
  );
  Deno.chmodSync(command, 0o755);
  const input = (over: Partial<BuildInput>): BuildInput => ({
    token: "asmlt_test1",
    agent,
    kind: "launch",
    folder,
    command,
    prompt: NASTY_PROMPT,
    env: { X_VAR: "x value ✓", PATH: "/usr/bin:/bin" },
    launchesDir: join(root, "launches"),
    denoPath: Deno.execPath(),
    ...over,
  });
  const run = async (scriptPath: string): Promise<string[]> => {
    const out = await new Deno.Command("/bin/sh", {
      args: [scriptPath, "asmlt_test1"],
      env: { PATH: "/usr/bin:/bin", HOME: root },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const fields = new TextDecoder().decode(Deno.readFileSync(join(root, "out.bin"))).split("\0");
    fields.pop();
    return fields;
  };
  return {
    root,
    folder,
    command,
    input,
    run,
    [Symbol.dispose]: () => Deno.removeSync(root, { recursive: true }),
  };
}

Deno.test("a prompt with every shell metacharacter reaches the agent as one byte-identical argument", async () => {
  using w = world();
  const plan = buildLaunch(w.input({ model: "m-1", name: "My 🎉 task" }));
  writeLaunchFiles(plan);
  assert.equal(isPureAscii(Deno.readTextFileSync(plan.scriptPath)), true, "the launcher is pure ASCII");
  assert.equal(Deno.readTextFileSync(plan.promptPath!), NASTY_PROMPT, "the prompt file is the prompt, UTF-8");
  assert.deepEqual(await w.run(plan.scriptPath), [
    "--first",
    "--model=m-1",
    "--",
    NASTY_PROMPT,
    `CWD=${w.folder}`,
    "TOKEN=asmlt_test1",
    "NAME=My 🎉 task",
    "X=x value ✓",
  ]);
});

Deno.test("a resume without a prompt passes no prompt argument and withholds an empty model", async () => {
  using w = world();
  const plan = buildLaunch(w.input({ kind: "resume", sessionId: "s-9", prompt: null, model: "" }));
  writeLaunchFiles(plan);
  assert.equal(plan.promptPath, null);
  assert.equal(plan.model, null);
  assert.deepEqual((await w.run(plan.scriptPath)).slice(0, 3), ["--resume", "s-9", `CWD=${w.folder}`]);
});

Deno.test("the window's command line carries the token, and the files are the user's alone", () => {
  using w = world();
  const plan = buildLaunch(w.input({}));
  writeLaunchFiles(plan);
  assert.deepEqual(plan.windowArgv, ["/bin/sh", plan.scriptPath, "asmlt_test1"]);
  assert.equal(plan.scriptPath.endsWith("/asmlt_test1.sh"), true);
  assert.equal(plan.envPath.endsWith("/asmlt_test1.env"), true);
  for (const path of [plan.scriptPath, plan.promptPath!, plan.envPath]) {
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600, path);
  }
  assert.throws(
    () => writeLaunchFiles(plan),
    Deno.errors.AlreadyExists,
    "a token's files are never overwritten",
  );
});

Deno.test("prompts and names no program can receive are refused with a sentence", () => {
  using w = world();
  const cases: [Partial<BuildInput>, RegExp][] = [
    [{ prompt: "a\0b" }, /NUL/],
    [{ prompt: "x".repeat(100_001) }, /longer than 100000 bytes/],
    [{ name: "two\nlines" }, /one line/],
    [{ folder: "relative/path" }, /absolute path/],
  ];
  for (const [over, want] of cases) {
    assert.throws(
      () => buildLaunch(w.input(over)),
      (e) => e instanceof LaunchInputError && want.test(e.message),
    );
  }
});

Deno.test("the launch environment is in the env file only, never in the launcher or an argument, and the shim deletes it", async () => {
  using w = world();
  const secret = `secret-${crypto.randomUUID()}`;
  const plan = buildLaunch(w.input({ env: { PATH: "/usr/bin:/bin", X_VAR: secret }, name: "named" }));
  writeLaunchFiles(plan);
  assert.equal(plan.script.includes(secret), false, "the launcher holds no environment value");
  assert.equal(plan.windowArgv.some((a) => a.includes(secret)), false);
  assert.equal(plan.agentArgs.some((a) => a.includes(secret)), false);
  assert.deepEqual(JSON.parse(Deno.readTextFileSync(plan.envPath)), {
    env: { PATH: "/usr/bin:/bin", X_VAR: secret },
    session_name: "named",
  });
  const fields = await w.run(plan.scriptPath);
  assert.equal(fields.at(-1), `X=${secret}`, "the agent got it");
  assert.throws(() => Deno.statSync(plan.envPath), Deno.errors.NotFound, "the env file is gone");
  assert.equal(Deno.readTextFileSync(plan.scriptPath), plan.script, "the launcher stays until correlation");
});

Deno.test("a variable name no process can carry is refused", () => {
  using w = world();
  assert.throws(
    () => buildLaunch(w.input({ env: { "A B": "x" } })),
    (e) => e instanceof LaunchInputError && /cannot be an environment variable name/.test(e.message),
  );
});

Deno.test("a window name is ASCII and says which agent and which session", () => {
  assert.equal(windowName("claude", "Fix the 🎉 login bug!", "asmlt_abcdefghij"), "claude-Fix-the-login-bug");
  assert.equal(windowName("codex", null, "asmlt_abcdefghij"), "codex-abcdefgh");
});
