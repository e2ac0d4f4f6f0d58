import assert from "node:assert/strict";
import { join } from "node:path";
import { identityOf, isSameProcess } from "../procs/mod.ts";
import { SHIM_PATH } from "./builder.ts";
import { testTmux, waitFor } from "./testing.ts";

const SHIM = [Deno.execPath(), "run", "-A", "--no-config", "--no-lock", "--no-prompt", SHIM_PATH];

async function shim(args: string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(SHIM[0], {
    args: [...SHIM.slice(1), ...args],
    stdin: "null",
    stderr: "piped",
  })
    .output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("the shim exits with its agent's exit code", async () => {
  assert.equal((await shim(["asmlt_t", "-", "-", "--", "sh", "-c", "exit 7"])).code, 7);
});

Deno.test("a prompt file the shim cannot read is a sentence, and no agent starts", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-shim-test-" });
  try {
    const marker = join(dir, "started");
    const out = await shim(["asmlt_t", join(dir, "missing.prompt"), "0", "--", "touch", marker]);
    assert.equal(out.code, 127);
    assert.match(out.stderr, /cannot read the prompt file/);
    assert.throws(() => Deno.statSync(marker), Deno.errors.NotFound);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("an agent that ignores the hang-up of its closed window is ended by the shim", async () => {
  await using t = testTmux();
  const dir = Deno.makeTempDirSync({ prefix: "asm-shim-test-" });
  let agent: ReturnType<typeof identityOf> = null;
  try {
    const pidFile = join(dir, "pid");
    const opened = await t.host.open({
      name: "stubborn",
      cwd: dir,
      argv: [
        ...SHIM,
        "asmlt_t",
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
    Deno.removeSync(dir, { recursive: true });
  }
});
