import assert from "node:assert/strict";
import { join } from "node:path";
import { identityOf, isSameProcess } from "../procs/mod.ts";
import { SHIM_PATH } from "./builder.ts";
import { testTmux, waitFor } from "./_test_utils.ts";
import { pathExists } from "../files/mod.ts";

const SHIM = [Deno.execPath(), "run", "-A", "--no-config", "--no-lock", "--no-prompt", SHIM_PATH];

/** A scratch folder, removed at the end. */
function scratch() {
  const dir = Deno.makeTempDirSync({ prefix: "asm-shim-test-" });
  return { dir, [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }) };
}

/** An env file as the builder writes it (0600 JSON). */
function envFile(dir: string, env: Record<string, string>, sessionName: string | null = null): string {
  const path = join(dir, `asmlt_t${crypto.randomUUID().slice(0, 8)}.env`);
  Deno.writeTextFileSync(path, JSON.stringify({ env, session_name: sessionName }), { mode: 0o600 });
  return path;
}

/** Runs the shim as its own process, with `windowEnv` as the whole environment the window gave it. */
async function shim(
  args: string[],
  windowEnv: Record<string, string> = { PATH: "/usr/bin:/bin" },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(SHIM[0], {
    args: [...SHIM.slice(1), ...args],
    env: windowEnv,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

function gone(path: string): boolean {
  return !pathExists(path);
}

Deno.test("the shim exits with its agent's exit code", async () => {
  using s = scratch();
  const env = envFile(s.dir, { PATH: "/usr/bin:/bin" });
  assert.equal((await shim(["asmlt_t", env, "-", "-", "--", "sh", "-c", "exit 7"])).code, 7);
});

Deno.test("the agent's environment is exactly the env file's, the window's terminal variables and the launch's own, and the file is gone", async () => {
  using s = scratch();
  const env = envFile(
    s.dir,
    { PATH: "/usr/bin:/bin", FROM_FILE: "f ✓", TERM: "not-the-window's" },
    "Task 🎉",
  );
  const window = {
    PATH: "/usr/bin:/bin",
    TERM: "tmux-256color",
    TERM_PROGRAM: "tmux",
    COLUMNS: "99",
    TMUX_PANE: "%7",
    WINDOW_ONLY: "the window's global environment",
    ANTHROPIC_API_KEY: "in the window, not in the file",
  };
  const out = await shim(["asmlt_envtest", env, "-", "-", "--", "/usr/bin/env", "-0"], window);
  assert.equal(out.code, 0, out.stderr);
  const seen = Object.fromEntries(
    out.stdout.split("\0").filter(Boolean).map((
      l,
    ) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  assert.deepEqual(seen, {
    PATH: "/usr/bin:/bin",
    FROM_FILE: "f ✓",
    TERM: "tmux-256color",
    TERM_PROGRAM: "tmux",
    COLUMNS: "99",
    TMUX_PANE: "%7",
    ASM_LAUNCH_TOKEN: "asmlt_envtest",
    ASM_SESSION_NAME: "Task 🎉",
  });
  assert.equal(gone(env), true, "the env file was deleted as the shim started");
});

Deno.test("an env file that is missing, a link, or readable by others starts no agent, with a sentence", async () => {
  using s = scratch();
  const marker = join(s.dir, "started");
  const real = envFile(s.dir, { PATH: "/usr/bin:/bin" });
  const link = join(s.dir, "asmlt_link.env");
  Deno.symlinkSync(real, link);
  const open = envFile(s.dir, { PATH: "/usr/bin:/bin" });
  Deno.chmodSync(open, 0o644);
  const cases: [string, RegExp][] = [
    [join(s.dir, "asmlt_missing.env"), /cannot read the environment file .*a launch runs once/],
    [link, /cannot read the environment file/],
    [open, /not private to this user/],
  ];
  for (const [path, why] of cases) {
    const out = await shim(["asmlt_t", path, "-", "-", "--", "touch", marker]);
    assert.equal(out.code, 127, path);
    assert.match(out.stderr, why);
    assert.equal(gone(marker), true, `no agent started for ${path}`);
  }
  assert.equal(gone(real), false, "a link's target is not touched");
});

Deno.test("a prompt file the shim cannot read is a sentence, and no agent starts", async () => {
  using s = scratch();
  const marker = join(s.dir, "started");
  const env = envFile(s.dir, { PATH: "/usr/bin:/bin" });
  const out = await shim(["asmlt_t", env, join(s.dir, "missing.prompt"), "0", "--", "touch", marker]);
  assert.equal(out.code, 127);
  assert.match(out.stderr, /cannot read the prompt file/);
  assert.equal(gone(marker), true);
});

Deno.test("an agent that ignores the hang-up of its closed window is ended by the shim", async () => {
  await using t = testTmux();
  using s = scratch();
  let agent: ReturnType<typeof identityOf> = null;
  try {
    const pidFile = join(s.dir, "pid");
    const opened = await t.host.open({
      name: "stubborn",
      argv: [
        ...SHIM,
        "asmlt_t",
        envFile(s.dir, { PATH: "/usr/bin:/bin" }),
        "-",
        "-",
        "--",
        "sh",
        "-c",
        `trap '' HUP; echo $$ > ${pidFile}; exec sleep 60`,
      ],
    });
    const pid = await waitFor(() => {
      try {
        return Number(Deno.readTextFileSync(pidFile)) || undefined;
      } catch {
        return undefined;
      }
    }, "the stubborn agent started");
    agent = identityOf(pid)!;
    await t.tmux(["kill-window", "-t", opened.windowId]);
    await waitFor(() => !isSameProcess(agent!), "the stubborn agent ended after its window closed", {
      timeoutMs: 10_000,
    });
  } finally {
    // on failure the stubborn agent (and its shim) would outlive the test
    if (agent && isSameProcess(agent)) Deno.kill(agent.pid, "SIGKILL");
  }
});
