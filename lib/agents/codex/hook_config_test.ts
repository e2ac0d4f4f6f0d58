import assert from "node:assert/strict";
import { join } from "node:path";
import { hookCommand } from "../hook_file.ts";
import { builtinAgent, hookOptions, tempHomes } from "../_test_utils.ts";
import { assertOnlyAdded, listNames, writeFile } from "../_test_utils.ts";
import { codexConfigPath, codexHookConfig, codexHooksPath, codexTrustReport } from "./hook_config.ts";
import { trustCodexHooksByHand } from "./_test_utils.ts";

/**
 * A hooks.json of the Codex research runs (fixtures/codex/misc/hooks.json, three of its twelve events kept), byte
 * for byte as written: 1-space indent, no final newline.
 */
const HOOKS_FIXTURE = `{
 "hooks": {
  "SessionStart": [
   {
    "hooks": [
     {
      "type": "command",
      "command": "CODEX_DUMP_LABEL=hook-SessionStart /usr/bin/python3 /opt/probe/codex-hook-dump.py",
      "timeout": 3
     }
    ]
   }
  ],
  "Stop": [
   {
    "hooks": [
     {
      "type": "command",
      "command": "CODEX_DUMP_LABEL=hook-Stop /usr/bin/python3 /opt/probe/codex-hook-dump.py",
      "timeout": 3
     }
    ]
   }
  ],
  "PreToolUse": [
   {
    "hooks": [
     {
      "type": "command",
      "command": "CODEX_DUMP_LABEL=hook-PreToolUse /usr/bin/python3 /opt/probe/codex-hook-dump.py",
      "timeout": 3
     }
    ]
   }
  ]
 }
}`;

/** A config.toml with the user's comments and tables (as in fixtures/codex/misc/home3-config.toml.after-trust). */
const CONFIG = `# my Codex setup
model = "mock-model"
model_provider = "mock" # the fake server

# providers
[model_providers.mock]
name = "Mock OpenAI"
base_url = "http://127.0.0.1:18080/v1"

[projects."/tmp/cx-work/proj3"]
trust_level = "trusted"
`;

Deno.test("codex: the files live in CODEX_HOME, else ~/.codex", () => {
  assert.equal(codexHooksPath({ HOME: "/h", CODEX_HOME: "/c" }), "/c/hooks.json");
  assert.equal(codexConfigPath({ HOME: "/h" }), "/h/.codex/config.toml");
});

Deno.test("codex: install appends asm's groups to a real hooks.json and keeps its bytes", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "codex");
  writeFile(codexHooksPath(homes.env), HOOKS_FIXTURE);
  writeFile(codexConfigPath(homes.env), CONFIG);
  const result = codexHookConfig.install(hookOptions(homes, agent));
  assert.equal(result.kind, "Installed");
  assert.deepEqual(result.kind === "Installed" && result.files, [
    codexHooksPath(homes.env),
    codexConfigPath(homes.env),
  ]);
  const text = Deno.readTextFileSync(codexHooksPath(homes.env));
  assert.ok(!assertOnlyAdded(HOOKS_FIXTURE, text).join("\n").includes("codex-hook-dump"));
  assert.ok(!text.endsWith("\n"), "the file had no final newline and still has none");
  const hooks = JSON.parse(text).hooks;
  const before = JSON.parse(HOOKS_FIXTURE).hooks;
  const command = hookCommand(homes.wrapper, "codex");
  assert.deepEqual(hooks.Stop, [...before.Stop, { hooks: [{ type: "command", command, timeout: 10 }] }]);
  assert.deepEqual(hooks.PreToolUse, before.PreToolUse);
  assert.deepEqual(hooks.SessionEnd, [{ hooks: [{ type: "command", command, timeout: 3 }] }]);
  assert.ok(codexHookConfig.isInstalled(homes.env, agent));
});

Deno.test("codex: notify is added above the first table and every comment stays", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "codex");
  writeFile(codexConfigPath(homes.env), CONFIG);
  codexHookConfig.install(hookOptions(homes, agent));
  const line = `notify = ["${homes.wrapper}", "codex", "notify"]`;
  assert.equal(
    Deno.readTextFileSync(codexConfigPath(homes.env)),
    CONFIG.replace('model_provider = "mock" # the fake server\n', `$&${line}\n`),
  );
});

Deno.test("codex: a notify the user already set is left alone, with a note", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "codex");
  const config = 'notify = ["/usr/bin/python3", "/opt/probe/codex-hook-dump.py", "notify"]\n' + CONFIG;
  writeFile(codexConfigPath(homes.env), config);
  const result = codexHookConfig.install(hookOptions(homes, agent));
  assert.equal(result.kind, "Installed");
  assert.deepEqual(result.kind === "Installed" && result.files, [codexHooksPath(homes.env)]);
  assert.match(
    result.kind === "Installed" ? result.notes.join(" ") : "",
    /already sets notify to .*asm left it/,
  );
  assert.equal(Deno.readTextFileSync(codexConfigPath(homes.env)), config);
  const again = codexHookConfig.install(hookOptions(homes, agent));
  assert.equal(again.kind, "AlreadyInstalled");
  assert.match(again.kind === "AlreadyInstalled" ? again.notes.join(" ") : "", /already sets notify/);
});

Deno.test("codex: a second install reports AlreadyInstalled and writes no second backup", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "codex");
  writeFile(codexConfigPath(homes.env), CONFIG);
  assert.equal(codexHookConfig.install(hookOptions(homes, agent)).kind, "Installed");
  const backups = listNames(homes.backupsDir);
  assert.equal(
    backups.length,
    3,
    "hooks.json was absent (a record), config.toml was there (a copy and a record)",
  );
  assert.equal(codexHookConfig.install(hookOptions(homes, agent)).kind, "AlreadyInstalled");
  assert.deepEqual(listNames(homes.backupsDir), backups);
});

Deno.test("codex: uninstall restores both files byte-for-byte (and deletes the hooks.json asm created)", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "codex");
  writeFile(codexConfigPath(homes.env), CONFIG);
  codexHookConfig.install(hookOptions(homes, agent));
  const result = codexHookConfig.uninstall(hookOptions(homes, agent));
  assert.equal(result.restored, true);
  assert.equal(Deno.readTextFileSync(codexConfigPath(homes.env)), CONFIG);
  assert.throws(() => Deno.statSync(codexHooksPath(homes.env)), Deno.errors.NotFound);
});

Deno.test("codex: uninstall after hand edits keeps them and removes only asm's hooks and notify line", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "codex");
  writeFile(codexHooksPath(homes.env), HOOKS_FIXTURE);
  writeFile(codexConfigPath(homes.env), CONFIG);
  codexHookConfig.install(hookOptions(homes, agent));
  // Codex's TUI writes its own tables into config.toml; the user adds a hook
  const configPath = codexConfigPath(homes.env);
  Deno.writeTextFileSync(
    configPath,
    Deno.readTextFileSync(configPath) + "\n[tui]\nscreen_reader_detection_done = true\n",
  );
  const hooks = JSON.parse(Deno.readTextFileSync(codexHooksPath(homes.env)));
  hooks.hooks.Interrupt = [{ hooks: [{ type: "command", command: "mine" }] }];
  Deno.writeTextFileSync(codexHooksPath(homes.env), JSON.stringify(hooks, null, 1));
  const result = codexHookConfig.uninstall(hookOptions(homes, agent));
  assert.equal(result.restored, false);
  assert.equal(Deno.readTextFileSync(configPath), CONFIG + "\n[tui]\nscreen_reader_detection_done = true\n");
  const expected = JSON.parse(HOOKS_FIXTURE);
  expected.hooks.Interrupt = [{ hooks: [{ type: "command", command: "mine" }] }];
  assert.equal(Deno.readTextFileSync(codexHooksPath(homes.env)), JSON.stringify(expected, null, 1));
});

Deno.test("codex: a config.toml that is not valid TOML is refused and nothing is written", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "codex");
  writeFile(codexConfigPath(homes.env), "model = \n");
  const result = codexHookConfig.install(hookOptions(homes, agent));
  assert.equal(result.kind, "NotInstalled");
  assert.match(result.kind === "NotInstalled" ? result.reason : "", /config\.toml is not valid TOML \(/);
  assert.throws(() => Deno.statSync(codexHooksPath(homes.env)), Deno.errors.NotFound);
  assert.deepEqual(listNames(homes.backupsDir), []);
});

Deno.test("codex: a hooks.json that is not valid JSON is refused and nothing is written", () => {
  using homes = tempHomes();
  writeFile(codexHooksPath(homes.env), "{hooks:");
  writeFile(codexConfigPath(homes.env), CONFIG);
  const result = codexHookConfig.install(hookOptions(homes, builtinAgent(homes, "codex")));
  assert.equal(result.kind, "NotInstalled");
  assert.ok(
    (result.kind === "NotInstalled" ? result.reason : "").startsWith(
      `${codexHooksPath(homes.env)} is not valid JSON (`,
    ),
  );
  assert.equal(Deno.readTextFileSync(codexConfigPath(homes.env)), CONFIG);
  assert.deepEqual(listNames(homes.backupsDir), []);
});

Deno.test("codex: trust is needs-review until the trust records exist, and again after a hook changes", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "codex");
  assert.equal(
    codexHookConfig.trustState!(homes.env, agent),
    "not-applicable",
    "nothing installed, nothing to trust",
  );
  writeFile(codexConfigPath(homes.env), CONFIG);
  codexHookConfig.install(hookOptions(homes, agent));
  assert.equal(codexHookConfig.trustState!(homes.env, agent), "needs-review");
  assert.match(codexHookConfig.trustAdvice!, /"Hooks need review" prompt choose "Trust all and continue"/);
  trustCodexHooksByHand(homes.env);
  assert.equal(codexHookConfig.trustState!(homes.env, agent), "trusted");
  assert.ok(codexTrustReport(homes.env, agent).every((hook) => hook.status === "trusted"));
  // the user changes asm's Stop hook: Codex will not run it until it is reviewed again
  const hooksPath = codexHooksPath(homes.env);
  const hooks = JSON.parse(Deno.readTextFileSync(hooksPath));
  hooks.hooks.Stop[0].hooks[0].timeout = 20;
  Deno.writeTextFileSync(hooksPath, JSON.stringify(hooks, null, 2));
  assert.equal(codexHookConfig.trustState!(homes.env, agent), "needs-review");
  const stop = codexTrustReport(homes.env, agent).find((hook) => hook.event === "Stop");
  assert.equal(stop?.status, "modified");
});

Deno.test("codex: asm writes no trust records of its own", () => {
  using homes = tempHomes();
  writeFile(codexConfigPath(homes.env), CONFIG);
  codexHookConfig.install(hookOptions(homes, builtinAgent(homes, "codex")));
  assert.ok(!Deno.readTextFileSync(codexConfigPath(homes.env)).includes("hooks.state"));
  assert.equal(codexHooksPath(homes.env), join(homes.codexHome, "hooks.json"));
});
