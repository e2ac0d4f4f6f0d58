import assert from "node:assert/strict";
import { join } from "node:path";
import { installHooks } from "../install/mod.ts";
import { renderUnit } from "../install/autostart.ts";
import { currentHolder } from "../server/lock.ts";
import { isSameProcess } from "../procs/mod.ts";
// deep on purpose: the test plays the person who answers Codex's "Hooks need review" prompt
import { trustCodexHooksByHand } from "../agents/codex/_test_utils.ts";
import type { DoctorReport } from "../doctor/mod.ts";
import { ASM, servedHome, spawnServe, until } from "./_test_utils.ts";

const AGENTS_BIN = Deno.env.get("ASM_AGENTS_BIN") ??
  new URL("../../.tools/agents/node_modules/.bin", import.meta.url).pathname;

/** `asm doctor --json` under `env` alone: its exit code, its report, and the findings that are not ok. */
async function doctor(env: Record<string, string>) {
  const out = await new Deno.Command(ASM, { args: ["doctor", "--json"], env, clearEnv: true, stdin: "null" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  let report: DoctorReport;
  try {
    report = JSON.parse(text);
  } catch {
    throw new Error(
      `asm doctor printed no JSON (exit ${out.code}): ${text}${new TextDecoder().decode(out.stderr)}`,
    );
  }
  const named = (severity: string) =>
    report.findings.filter((f) => f.severity === severity).map((f) => `${f.subject}: ${f.check}`);
  return { code: out.code, report, broken: named("broken"), warnings: named("warning") };
}

Deno.test("asm doctor --json names what is broken and exits 0 only when nothing is: no agents, an untrusted Codex hook, healthy, an agent missing from the unit's PATH, a dead server's stale lock", async () => {
  const { root, home, asmHome, port, env: shell } = servedHome("asm-doctor-");
  const bare = { ...shell, PATH: "/usr/bin:/bin" };
  let server: Deno.ChildProcess | null = null;
  try {
    // 1. a fresh machine: no agent on the PATH, no server
    const empty = await doctor(bare);
    console.log(`no agents: exit ${empty.code}, broken ${JSON.stringify(empty.broken)}`);
    assert.equal(empty.code, 1);
    assert.deepEqual(empty.broken, ["asm: server", "agents: found"]);
    assert.equal(empty.report.ok, false);
    for (const name of ["claude", "codex", "gemini"]) {
      assert.deepEqual(
        empty.report.findings.filter((f) => f.subject === name).map((f) => `${f.check} ${f.severity}`),
        ["binary note"],
        `${name}: never installed, one note`,
      );
    }

    // 2. the agents on the PATH, asm's hooks installed, the server running: Codex has not trusted the hooks yet
    const env = { ...bare, PATH: `${AGENTS_BIN}:/usr/bin:/bin` };
    installHooks({ env });
    server = spawnServe(env);
    const holder = await until("the server", () => {
      const h = currentHolder(asmHome);
      return h && h.port === port ? h : null;
    });
    const untrusted = await doctor(env);
    console.log(`codex untrusted: exit ${untrusted.code}, broken ${JSON.stringify(untrusted.broken)}`);
    assert.equal(untrusted.code, 1);
    assert.deepEqual(untrusted.broken, ["codex: trust"]);
    const trust = untrusted.report.findings.find((f) => f.check === "trust")!;
    assert.match(trust.text, /^Codex's hooks are installed but not trusted yet, so it does not run them: /);

    // 3. trusted as Codex's prompt records it: nothing broken
    trustCodexHooksByHand(env);
    const healthy = await doctor(env);
    console.log(`healthy: exit ${healthy.code}, broken ${JSON.stringify(healthy.broken)}`);
    assert.equal(healthy.code, 0, JSON.stringify(healthy.report.findings, null, 1));
    assert.equal(healthy.report.ok, true);
    const server_ = healthy.report.findings.find((f) => f.subject === "asm" && f.check === "server")!;
    assert.equal(
      server_.text,
      `asm is running (pid ${holder.pid}, port ${port}, testing mode) and every layer is healthy.`,
    );
    for (const name of ["claude", "codex", "gemini"]) {
      const binary = healthy.report.findings.find((f) => f.subject === name && f.check === "binary")!;
      assert.equal(binary.severity, "ok", binary.text);
      assert.ok(binary.text.includes(join(AGENTS_BIN, name)), binary.text);
      const hooks = healthy.report.findings.find((f) => f.subject === name && f.check === "hooks")!;
      assert.equal(hooks.severity, "ok");
    }

    // 4. an autostart unit whose PATH finds Claude and Codex but not Gemini
    const unitBin = join(root, "unit-bin");
    Deno.mkdirSync(unitBin);
    for (const name of ["claude", "codex"]) Deno.symlinkSync(join(AGENTS_BIN, name), join(unitBin, name));
    const unitFile = join(home, ".config", "systemd", "user", "asm.service");
    Deno.mkdirSync(join(home, ".config", "systemd", "user"), { recursive: true });
    Deno.writeTextFileSync(
      unitFile,
      renderUnit({
        execStart: [ASM, "serve"],
        path: `${unitBin}:/usr/bin:/bin`,
        asmHome,
        environmentFile: join(asmHome, "agents.env"),
      }),
    );
    const unitless = await doctor(env);
    console.log(
      `gemini missing from the unit's PATH: exit ${unitless.code}, broken ${JSON.stringify(unitless.broken)}`,
    );
    assert.equal(unitless.code, 1);
    assert.deepEqual(unitless.broken, ["gemini: unit PATH"]);
    assert.match(
      unitless.report.findings.find((f) => f.subject === "gemini" && f.check === "unit PATH")!
        .text,
      /^Gemini CLI is on this shell's PATH \(.*\/gemini\) but not on the autostart unit's/,
    );
    Deno.removeSync(unitFile);

    // 5. the server killed: its lock stays behind
    Deno.kill(holder.pid, "SIGKILL");
    await server.status;
    server = null;
    await until(
      "the server to be gone",
      () =>
        isSameProcess({ pid: holder.pid, procStart: holder.proc_start, bootId: holder.boot_id })
          ? null
          : true,
    );
    const dead = await doctor(env);
    console.log(
      `dead server: exit ${dead.code}, broken ${JSON.stringify(dead.broken)}, warnings ${
        JSON.stringify(dead.warnings)
      }`,
    );
    assert.equal(dead.code, 1);
    assert.deepEqual(dead.broken, ["asm: server"]);
    assert.ok(dead.warnings.includes("asm: lock"));
    const lock = dead.report.findings.find((f) => f.check === "lock")!;
    assert.match(
      lock.text,
      new RegExp(`^server\\.lock names pid ${holder.pid} \\(started .*\\), a process that has ended`),
    );
  } finally {
    if (server !== null) {
      server.kill("SIGTERM");
      await server.status;
    }
    Deno.removeSync(root, { recursive: true });
  }
});
