/// <reference lib="dom" />
/**
 * `./asm serve` on a machine whose agent folders the real agents filled: temporary homes where Claude Code, Codex
 * and Gemini CLI each ran one session against their fakes (no asm hook installed, so only the import can find
 * them); the server, started as a subprocess exactly as a person starts it, shows every one of them.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { loadAgents, offlineSetup } from "../../lib/agents/mod.ts";
import { findOnPath } from "../../lib/config/mod.ts";
import { oneShotArgv } from "../../lib/launch/mod.ts";
import { startFake } from "../../verify/fakes/mod.ts";
import { agentsBinDir } from "../../verify/prerequisites.ts";
import { callServer, runningServer } from "../../lib/server/mod.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

Deno.test({
  name: "./asm serve on homes the real agents filled shows each agent's session, with no hook installed",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-serve-homes-" }));
    const home = join(root, "home");
    const work = join(root, "work");
    for (const d of [home, work, join(root, "tmp")]) Deno.mkdirSync(d, { recursive: true });
    const agents = loadAgents().filter((a) => a.tested);
    const fakes = [];
    const env: Record<string, string> = {
      PATH: `${Deno.env.get("ASM_AGENTS_BIN") || agentsBinDir()}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      TMPDIR: join(root, "tmp"),
      LANG: "C.UTF-8",
      ASM_HOME: join(root, "asm"),
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
    };
    let server: Deno.ChildProcess | null = null;
    try {
      for (const agent of agents) {
        const fake = await startFake(offlineSetup(agent).fakeKind);
        fakes.push(fake);
        Object.assign(env, offlineSetup(agent).prepare({ home, fakeUrl: fake.url, trustFolders: [work] }));
      }
      for (const agent of agents) {
        const command = findOnPath(agent.command, env)!;
        const args = oneShotArgv(agent, { prompt: `a ${agent.name} session for serve` });
        const out = await new Deno.Command(command, { args, cwd: work, env, clearEnv: true, stdin: "null" })
          .output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      }
      server = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--node-modules-dir=manual", MAIN, "serve", "--port", "0"],
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      let port = 0;
      let rows: { agent: string }[] = [];
      for (let i = 0; i < 300 && rows.length < agents.length; i++) {
        await new Promise((r) => setTimeout(r, 100));
        try {
          const running = runningServer(env.ASM_HOME);
          if (running === null) continue;
          port = running.port;
          rows = (await (await callServer(running, "/api/sessions?all=1")).json()).sessions;
        } catch { /* not up yet */ }
      }
      assert.deepEqual(rows.map((r) => r.agent).sort(), agents.map((a) => a.name).sort());
      const { document } = parseHTML(await (await fetch(`http://127.0.0.1:${port}/?all=1`)).text());
      const chips = [...document.querySelectorAll("tbody tr .chip")].map((c) => c.textContent).sort();
      assert.deepEqual(chips, agents.map((a) => a.name).sort());
    } finally {
      if (server) {
        server.kill("SIGTERM");
        await server.status;
      }
      for (const fake of fakes) await fake.close();
      Deno.removeSync(root, { recursive: true });
    }
  },
});
