/**
 * End to end, on the three real agents against their fakes, in temporary homes: each agent makes two one-shot
 * sessions and resumes the first, with asm's hook installed so the agents themselves say which sessions exist
 * (an account independent of the transcript readers). The hook events are drained into rows; then `./asm import`
 * runs as a subprocess: the rows per agent equal the sessions on disk, the hook row and the imported row of a
 * session are one row, the resumed session is one session with both turns, and a second import writes nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type AgentConfig, loadAgents, offlineSetup, orphanEventReason } from "../agents/mod.ts";
import { drainOnce } from "../inbox/mod.ts";
import { findOnPath } from "../config/mod.ts";
import { eventsFrom, installHooks } from "../install/mod.ts";
import { oneShotArgv } from "../launch/mod.ts";
import { Ledger } from "../ledger/mod.ts";
import { startFake } from "../../verify/fakes/mod.ts";
import { agentsBinDir } from "../../verify/prerequisites.ts";
import { ledgerDigest } from "./_test_utils.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

async function run(cmd: string, args: string[], cwd: string, env: Record<string, string>) {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  return { code: out.code, text: decoder.decode(out.stdout) + decoder.decode(out.stderr) };
}

/** Two one-shot sessions and a one-shot resume of the first; returns the first session's id. */
async function sessionsOf(
  agent: AgentConfig,
  work: string,
  env: Record<string, string>,
  asmHome: string,
): Promise<string> {
  const command = findOnPath(agent.command, env);
  assert.ok(command, `${agent.command} is on PATH`);
  const bypassHookTrust = true;
  const first = await run(
    command,
    oneShotArgv(agent, { prompt: `first ${agent.name} session`, bypassHookTrust }),
    work,
    env,
  );
  assert.equal(first.code, 0, first.text);
  const ids = () =>
    new Set(
      eventsFrom(asmHome, agent.name, work).filter((e) => e.source !== "notify").map((e) =>
        e.agent_session_id
      ),
    );
  const [id] = [...ids()];
  assert.ok(id, `${agent.display} reported its session through the hook`);
  const second = await run(
    command,
    oneShotArgv(agent, { prompt: `second ${agent.name} session`, bypassHookTrust }),
    work,
    env,
  );
  assert.equal(second.code, 0, second.text);
  assert.ok(agent.one_shot_resume.length > 0, `${agent.name} has a one-shot resume`);
  const resumed = await run(
    command,
    oneShotArgv(agent, { prompt: `resumed ${agent.name} session`, sessionId: id, bypassHookTrust }),
    work,
    env,
  );
  assert.equal(resumed.code, 0, resumed.text);
  return id;
}

Deno.test("./asm import on real agents' sessions: one row per session on disk per agent, and a second import writes nothing", async () => {
  const agents = loadAgents().filter((a) => a.tested);
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-import-e2e-" }));
  const home = join(root, "home");
  const asmHome = join(root, "asm");
  const tmp = join(root, "tmp");
  const work = join(root, "work");
  for (const d of [home, asmHome, tmp, work]) Deno.mkdirSync(d, { recursive: true });
  const fakes = await Promise.all(agents.map((a) => startFake(offlineSetup(a).fakeKind)));
  try {
    let env: Record<string, string> = {
      PATH: `${Deno.env.get("ASM_AGENTS_BIN") || agentsBinDir()}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      TMPDIR: tmp,
      LANG: "C.UTF-8",
      TERM: "xterm-256color",
      ASM_HOME: asmHome,
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME")!, ".cache", "deno"),
      NO_COLOR: "1",
    };
    agents.forEach((a, i) => {
      env = { ...env, ...offlineSetup(a).prepare({ home, fakeUrl: fakes[i].url, trustFolders: [work] }) };
    });
    const installed = installHooks({ env, asmHome, agents: agents.map((a) => a.name) });
    assert.ok(installed.every((r) => r.kind === "Installed"), JSON.stringify(installed));

    // the agents run side by side; each one's sessions follow one another (the resume needs the first)
    const resumedIds = await Promise.all(agents.map((a) => sessionsOf(a, work, env, asmHome)));

    // what the agents themselves said exists: the distinct session ids of their hook events
    const expected = new Map(agents.map((a) => [
      a.name,
      new Set(
        eventsFrom(asmHome, a.name, work).filter((e) => e.source !== "notify").map((e) => e.agent_session_id),
      ),
    ]));
    for (const a of agents) assert.equal(expected.get(a.name)!.size, 2, `${a.display}: two sessions`);

    // the hook rows first, as a running server would have drained them
    const ledger = Ledger.open(join(asmHome, "ledger.sqlite"));
    drainOnce({
      asmHome,
      ledger,
      log: () => {},
      failures: new Map(),
      orphanReason: orphanEventReason(agents, env),
    });
    ledger.close();

    const imported = await run(
      Deno.execPath(),
      ["run", "-A", "--node-modules-dir=manual", MAIN, "import"],
      work,
      env,
    );
    assert.equal(imported.code, 0, imported.text);
    assert.match(imported.text, /import: \d+\/\d+ files, [\d.]+\/[\d.]+ MB, [\d.-]+ MB\/s, done in/);
    assert.match(imported.text, /imported \d+ file\(s\)/);

    const listed = await run(
      Deno.execPath(),
      ["run", "-A", "--node-modules-dir=manual", MAIN, "sessions", "--json", "--all"],
      work,
      env,
    );
    const rows = JSON.parse(listed.text) as {
      agent: string;
      agent_session_id: string;
      turns: number;
      status: string;
    }[];
    agents.forEach((a, i) => {
      const mine = rows.filter((r) => r.agent === a.name);
      assert.deepEqual(
        new Set(mine.map((r) => r.agent_session_id)),
        expected.get(a.name),
        `${a.display}: rows = sessions`,
      );
      const resumed = mine.find((r) => r.agent_session_id === resumedIds[i])!;
      assert.equal(resumed.turns, 2, `${a.display}: the resumed session is one session with both turns`);
      assert.ok(mine.every((r) => r.status === "ended"), `${a.display}: the hooks' status stands`);
    });

    const before = Ledger.open(join(asmHome, "ledger.sqlite"));
    const digest = ledgerDigest(before);
    before.close();
    const again = await run(
      Deno.execPath(),
      ["run", "-A", "--node-modules-dir=manual", MAIN, "import"],
      work,
      env,
    );
    assert.equal(again.code, 0, again.text);
    assert.match(again.text, /imported 0 file\(s\)/);
    const after = Ledger.open(join(asmHome, "ledger.sqlite"));
    assert.equal(ledgerDigest(after), digest, "the second import changed nothing");
    after.close();
  } finally {
    await Promise.all(fakes.map((f) => f.close()));
    Deno.removeSync(root, { recursive: true });
  }
});
