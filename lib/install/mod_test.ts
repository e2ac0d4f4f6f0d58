import assert from "node:assert/strict";
import { join } from "node:path";
import { listNames, tempHomes, thrown, writeFile } from "../agents/_test_utils.ts";
// deep on purpose: the test checks the very files each agent's installer writes, which no face names
import { claudeSettingsPath } from "../agents/claude/hook_config.ts";
import { codexConfigPath, codexHooksPath } from "../agents/codex/hook_config.ts";
import { geminiSettingsPath } from "../agents/gemini/hook_config.ts";
import { hookRuntimeProblems, installHooks, uninstallHooks } from "./mod.ts";
import { HOOK_SCRIPT } from "./wrapper.ts";

Deno.test("install lays out ASM_HOME, the wrapper and hook-agents.json, then each agent's hooks", () => {
  using homes = tempHomes();
  const results = installHooks({ env: homes.env });
  assert.deepEqual(results.map((r) => [r.agent, r.kind]), [
    ["claude", "Installed"],
    ["codex", "Installed"],
    ["gemini", "Installed"],
  ]);
  for (const folder of ["inbox", "processed", "rejected", "bin", "rules", "backups"]) {
    assert.ok(Deno.statSync(join(homes.asmHome, folder)).isDirectory, folder);
  }
  const agents = JSON.parse(Deno.readTextFileSync(join(homes.asmHome, "hook-agents.json")));
  assert.deepEqual(Object.keys(agents.agents), ["claude", "codex", "gemini"]);
  assert.equal(agents.agents.codex.events["agent-turn-complete"], "Stop");
  for (
    const path of [claudeSettingsPath(homes.env), codexHooksPath(homes.env), geminiSettingsPath(homes.env)]
  ) {
    assert.ok(Deno.readTextFileSync(path).includes(homes.wrapper), path);
  }
  const codex = results[1];
  assert.deepEqual(codex.kind !== "NotInstalled" && codex.trust?.state, "needs-review");
  assert.match(codex.kind !== "NotInstalled" ? codex.trust!.advice : "", /Trust all and continue/);
  assert.equal(
    results[0].kind !== "NotInstalled" && results[0].trust,
    undefined,
    "Claude has no hook trust step",
  );
});

Deno.test("the wrapper is ASCII, executable by its owner only, and bakes in deno, the hook and ASM_HOME", () => {
  using homes = tempHomes();
  installHooks({ env: homes.env });
  const bytes = Deno.readFileSync(homes.wrapper);
  assert.ok(bytes.every((b) => b < 0x80), "pure ASCII");
  assert.equal(Deno.statSync(homes.wrapper).mode! & 0o777, 0o700);
  assert.equal(Deno.statSync(homes.asmHome).mode! & 0o777, 0o700, "the data folder is private");
  assert.equal(Deno.statSync(`${homes.asmHome}/hook-agents.json`).mode! & 0o777, 0o600);
  const text = new TextDecoder().decode(bytes);
  assert.ok(text.startsWith("#!/bin/sh\n"));
  assert.ok(text.includes(`ASM_HOME='${homes.asmHome}'; export ASM_HOME\n`));
  assert.ok(text.includes(`DENO_DIR='${homes.asmHome}/cache/deno'; export DENO_DIR\n`));
  // the copies in the data folder, not the checkout's or the cache's: the text survives an upgrade
  assert.ok(
    text.includes(
      `exec '${homes.asmHome}/bin/deno' run -A --no-config --no-lock --no-prompt '${homes.asmHome}/bin/hook.ts' "$@"\n`,
    ),
  );
  assert.equal(Deno.readTextFileSync(`${homes.asmHome}/bin/hook.ts`), Deno.readTextFileSync(HOOK_SCRIPT));
  assert.equal(Deno.statSync(`${homes.asmHome}/bin/deno`).size, Deno.statSync(Deno.execPath()).size);
});

Deno.test("after an upgrade (the deno and hook it was installed from are gone), the hook still writes events", async () => {
  using homes = tempHomes();
  const old = Deno.makeTempDirSync({ prefix: "asm-old-cache-" });
  try {
    // the install as the one file's cache would do it: a deno and a hook.ts in a folder that an upgrade deletes
    Deno.copyFileSync(Deno.execPath(), `${old}/deno`);
    Deno.chmodSync(`${old}/deno`, 0o755);
    Deno.copyFileSync(HOOK_SCRIPT, `${old}/hook.ts`);
    installHooks({ env: homes.env, agents: ["claude"], denoPath: `${old}/deno` });
    const before = Deno.readTextFileSync(homes.wrapper);
    Deno.removeSync(old, { recursive: true });
    Deno.mkdirSync(old); // for the finally below
    assert.deepEqual(hookRuntimeProblems(homes.asmHome), []);
    const out = await new Deno.Command(homes.wrapper, {
      args: [
        "claude",
        "Stop",
        JSON.stringify({ session_id: "upgrade-1", hook_event_name: "Stop", cwd: homes.home }),
      ],
      env: { ...homes.env, DENO_NO_UPDATE_CHECK: "1" },
      clearEnv: true,
      cwd: homes.home,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const events = [...Deno.readDirSync(`${homes.asmHome}/inbox`)].filter((e) => e.name.endsWith(".json"));
    assert.equal(events.length, 1, "the event reached the inbox");
    // a second install from another deno (the next upgrade) keeps the wrapper's text, which Codex trusts by hash
    installHooks({ env: homes.env, agents: ["claude"] });
    assert.equal(Deno.readTextFileSync(homes.wrapper), before);
    Deno.removeSync(`${homes.asmHome}/bin/hook.ts`);
    assert.deepEqual(hookRuntimeProblems(homes.asmHome), [
      `the hook script the hook runs is missing (${homes.asmHome}/bin/hook.ts); run \`asm install\` again to put it back`,
    ]);
  } finally {
    Deno.removeSync(old, { recursive: true });
  }
});

Deno.test("the installed wrapper runs the real hook: an event file appears in the inbox", async () => {
  using homes = tempHomes();
  installHooks({ env: homes.env, agents: ["claude"] });
  const child = new Deno.Command(homes.wrapper, {
    args: ["claude"],
    env: { ...homes.env, DENO_NO_UPDATE_CHECK: "1" },
    clearEnv: true,
    cwd: homes.home,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify({
    session_id: "11111111-2222-4333-8444-555555555555",
    hook_event_name: "Stop",
    cwd: homes.home,
  })));
  await writer.close();
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const events = listNames(join(homes.asmHome, "inbox")).filter((name) => name.endsWith(".json"));
  assert.equal(events.length, 1, `inbox: ${events}; hook.log: ${readOr(join(homes.asmHome, "hook.log"))}`);
  const event = JSON.parse(Deno.readTextFileSync(join(homes.asmHome, "inbox", events[0])));
  assert.equal(event.agent, "claude");
  assert.equal(event.agent_session_id, "11111111-2222-4333-8444-555555555555");
});

function readOr(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "(none)";
  }
}

Deno.test("a second install writes nothing: same wrapper, same backups, every agent AlreadyInstalled", () => {
  using homes = tempHomes();
  installHooks({ env: homes.env });
  const wrapperStat = Deno.statSync(homes.wrapper);
  const backups = listNames(homes.backupsDir);
  const again = installHooks({ env: homes.env });
  assert.deepEqual(again.map((r) => r.kind), ["AlreadyInstalled", "AlreadyInstalled", "AlreadyInstalled"]);
  assert.deepEqual(listNames(homes.backupsDir), backups);
  assert.equal(Deno.statSync(homes.wrapper).mtime?.getTime(), wrapperStat.mtime?.getTime());
});

Deno.test("install for one agent touches only that agent's files", () => {
  using homes = tempHomes();
  const results = installHooks({ env: homes.env, agents: ["gemini"] });
  assert.deepEqual(results.map((r) => r.agent), ["gemini"]);
  assert.throws(() => Deno.statSync(claudeSettingsPath(homes.env)), Deno.errors.NotFound);
  assert.throws(() => Deno.statSync(codexConfigPath(homes.env)), Deno.errors.NotFound);
  const agents = JSON.parse(Deno.readTextFileSync(join(homes.asmHome, "hook-agents.json")));
  assert.deepEqual(
    Object.keys(agents.agents),
    ["claude", "codex", "gemini"],
    "the hook still knows every agent",
  );
});

Deno.test("an unknown agent name is an error listing the known ones", () => {
  using homes = tempHomes();
  const err = thrown(() => installHooks({ env: homes.env, agents: ["claude", "cursor"] }));
  assert.equal(err.message, 'unknown agent "cursor"; asm knows claude, codex, gemini');
  assert.throws(() => Deno.statSync(homes.asmHome), Deno.errors.NotFound, "nothing was created");
  assert.equal(thrown(() => uninstallHooks({ env: homes.env, agents: ["cursor"] })).message, err.message);
});

Deno.test("an ASM_HOME whose path has a space installs nothing and says why", () => {
  using homes = tempHomes();
  const asmHome = join(homes.root, "my asm");
  const results = installHooks({ env: homes.env, asmHome });
  assert.equal(results.length, 3);
  for (const result of results) {
    assert.equal(result.kind, "NotInstalled");
    assert.match(result.kind === "NotInstalled" ? result.reason : "", /contains whitespace/);
  }
  assert.throws(() => Deno.statSync(asmHome), Deno.errors.NotFound);
  assert.throws(() => Deno.statSync(claudeSettingsPath(homes.env)), Deno.errors.NotFound);
});

Deno.test("one agent's broken config does not stop the others", () => {
  using homes = tempHomes();
  writeFile(claudeSettingsPath(homes.env), "{not json");
  const results = installHooks({ env: homes.env });
  assert.deepEqual(results.map((r) => r.kind), ["NotInstalled", "Installed", "Installed"]);
  assert.equal(Deno.readTextFileSync(claudeSettingsPath(homes.env)), "{not json");
});

Deno.test("uninstall puts every agent's files back byte-for-byte", () => {
  using homes = tempHomes();
  const settings = '{\n  "model": "opus"\n}\n';
  const config = '# mine\nmodel = "m"\n\n[tui]\nx = 1\n';
  writeFile(claudeSettingsPath(homes.env), settings);
  writeFile(codexConfigPath(homes.env), config);
  installHooks({ env: homes.env });
  const reports = uninstallHooks({ env: homes.env });
  assert.deepEqual(reports.map((r) => [r.agent, r.restored]), [["claude", true], ["codex", true], [
    "gemini",
    true,
  ]]);
  assert.equal(Deno.readTextFileSync(claudeSettingsPath(homes.env)), settings);
  assert.equal(Deno.readTextFileSync(codexConfigPath(homes.env)), config);
  assert.throws(() => Deno.statSync(codexHooksPath(homes.env)), Deno.errors.NotFound);
  assert.throws(() => Deno.statSync(geminiSettingsPath(homes.env)), Deno.errors.NotFound);
  assert.ok(Deno.statSync(homes.wrapper).isFile, "ASM_HOME itself stays");
});
