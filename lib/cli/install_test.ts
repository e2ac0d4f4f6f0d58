import assert from "node:assert/strict";
import { join } from "node:path";
import { loadAgents, offlineSetup } from "../agents/mod.ts";
import { startFake } from "../../verify/fakes/mod.ts";
import { agentsBinDir } from "../../verify/prerequisites.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function asm(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--node-modules-dir=manual", MAIN, ...args],
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  return { code: r.code, out: new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr) };
}

Deno.test("./asm install on untrusted Codex hooks says exactly what to do, and its canary sees notify only", async () => {
  const agent = loadAgents().find((a) => a.name === "codex")!;
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-install-cli-" }));
  const home = join(root, "home");
  Deno.mkdirSync(join(root, "tmp"), { recursive: true });
  const fake = await startFake(offlineSetup(agent).fakeKind);
  try {
    const env: Record<string, string> = {
      PATH: `${Deno.env.get("ASM_AGENTS_BIN") || agentsBinDir()}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      TMPDIR: join(root, "tmp"),
      ASM_HOME: join(root, "asm"),
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME")!, ".cache", "deno"),
      ...offlineSetup(agent).prepare({ home, fakeUrl: fake.url }),
    };
    const first = await asm(["install", "--agent", "codex"], env);
    assert.equal(first.code, 1, first.out);
    assert.match(first.out, /codex: installed/);
    assert.match(first.out, /hooks need your approval: .*Trust all and continue/s);
    assert.match(
      first.out,
      /canary failed: Codex ran, but only its notify program reported \(Stop \(notify\)\)/,
    );
    // notify needs no trust: the turn end reached the inbox through it
    const config = Deno.readTextFileSync(join(env.CODEX_HOME, "config.toml"));
    assert.match(config, /^notify = \[".*\/bin\/asm-hook", "codex", "notify"\]$/m);
    const again = await asm(["install", "--agent", "codex", "--no-canary"], env);
    assert.match(again.out, /codex: already installed; nothing written/);
    const removed = await asm(["uninstall", "--agent", "codex"], env);
    assert.equal(removed.code, 0, removed.out);
    assert.equal(Deno.readTextFileSync(join(env.CODEX_HOME, "config.toml")).includes("asm-hook"), false);
  } finally {
    await fake.close();
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("./asm install with no agent on PATH installs nothing and names what is missing", async () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-install-cli-" });
  try {
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: root,
      ASM_HOME: join(root, "asm"),
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME")!, ".cache", "deno"),
    };
    const r = await asm(["install"], env);
    assert.equal(r.code, 1);
    assert.match(r.out, /claude: not installed: no "claude" on PATH/);
    assert.throws(() => Deno.statSync(join(root, ".claude", "settings.json")), Deno.errors.NotFound);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
