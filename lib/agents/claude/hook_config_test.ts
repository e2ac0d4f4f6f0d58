import assert from "node:assert/strict";
import { builtinAgent, hookOptions, tempHomes } from "../_test_utils.ts";
import { assertOnlyAdded, listNames, writeFile } from "../_test_utils.ts";
import { claudeHookConfig, claudeSettingsPath } from "./hook_config.ts";

/** A user's settings.json as Claude and editors write it: 2-space indent, final newline, a hook of their own. */
const USER_SETTINGS = `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(ls:*)"
    ]
  },
  "hooks": {
    "Stop": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/guard"
          }
        ]
      }
    ]
  }
}
`;

Deno.test("claude: install keeps an existing user hook and setting byte-for-byte", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "claude");
  const path = claudeSettingsPath(homes.env);
  writeFile(path, USER_SETTINGS);
  const result = claudeHookConfig.install(hookOptions(homes, agent));
  assert.equal(result.kind, "Installed");
  assert.deepEqual(result.kind === "Installed" && result.files, [path]);
  const after = Deno.readTextFileSync(path);
  const added = assertOnlyAdded(USER_SETTINGS, after).join("\n");
  assert.ok(!added.includes("notify-send") && !added.includes("guard"));
  const settings = JSON.parse(after);
  assert.equal(settings.model, "opus");
  assert.equal(settings.hooks.Stop.length, 2);
  assert.equal(settings.hooks.Stop[0].hooks[0].command, "notify-send done", "the user's hook stays first");
  assert.deepEqual(settings.hooks.Stop[1], {
    matcher: "*",
    hooks: [{ type: "command", command: `${homes.wrapper} claude`, timeout: 10 }],
  });
  assert.deepEqual(Object.keys(settings.hooks), [
    "Stop",
    "PreToolUse",
    "SessionStart",
    "UserPromptSubmit",
    "SessionEnd",
    "Notification",
    "PermissionRequest",
  ]);
  assert.equal(settings.hooks.PreToolUse.length, 1);
  assert.ok(claudeHookConfig.isInstalled(homes.env, agent));
  const backups = listNames(homes.backupsDir);
  assert.equal(backups.length, 2, "the copy and its record");
  assert.equal(Deno.readTextFileSync(`${homes.backupsDir}/${backups[0]}`), USER_SETTINGS);
  assert.match(backups[0], /^claude-settings\.json-\d{8}T\d{9}Z$/);
});

Deno.test("claude: a second install reports AlreadyInstalled and writes no second backup", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "claude");
  writeFile(claudeSettingsPath(homes.env), USER_SETTINGS);
  assert.equal(claudeHookConfig.install(hookOptions(homes, agent)).kind, "Installed");
  const after = Deno.readTextFileSync(claudeSettingsPath(homes.env));
  const backups = listNames(homes.backupsDir);
  assert.equal(claudeHookConfig.install(hookOptions(homes, agent)).kind, "AlreadyInstalled");
  assert.equal(Deno.readTextFileSync(claudeSettingsPath(homes.env)), after);
  assert.deepEqual(listNames(homes.backupsDir), backups);
});

Deno.test("claude: uninstall restores the file byte-for-byte", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "claude");
  const path = claudeSettingsPath(homes.env);
  writeFile(path, USER_SETTINGS);
  claudeHookConfig.install(hookOptions(homes, agent));
  const result = claudeHookConfig.uninstall(hookOptions(homes, agent));
  assert.equal(result.restored, true);
  assert.equal(Deno.readTextFileSync(path), USER_SETTINGS);
  assert.ok(!claudeHookConfig.isInstalled(homes.env, agent));
  // a second uninstall finds nothing of asm's and changes nothing
  const again = claudeHookConfig.uninstall(hookOptions(homes, agent));
  assert.equal(again.restored, false);
  assert.equal(Deno.readTextFileSync(path), USER_SETTINGS);
});

Deno.test("claude: uninstall after a hand edit keeps the edit and removes only asm's entries", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "claude");
  const path = claudeSettingsPath(homes.env);
  writeFile(path, USER_SETTINGS);
  claudeHookConfig.install(hookOptions(homes, agent));
  const edited = JSON.parse(Deno.readTextFileSync(path));
  edited.theme = "dark";
  edited.hooks.Stop[1].hooks.push({ type: "command", command: "say stopped" });
  Deno.writeTextFileSync(path, JSON.stringify(edited, null, 2) + "\n");
  const result = claudeHookConfig.uninstall(hookOptions(homes, agent));
  assert.equal(result.restored, false);
  assert.match(result.notes.join(" "), /removed only asm's entries/);
  const settings = JSON.parse(Deno.readTextFileSync(path));
  assert.equal(settings.theme, "dark");
  assert.deepEqual(settings.hooks.Stop, [
    { matcher: "*", hooks: [{ type: "command", command: "notify-send done" }] },
    { matcher: "*", hooks: [{ type: "command", command: "say stopped" }] },
  ]);
  assert.deepEqual(Object.keys(settings.hooks), ["Stop", "PreToolUse"]);
  assert.ok(!Deno.readTextFileSync(path).includes("asm-hook"));
});

Deno.test("claude: a settings.json that is not valid JSON is refused and nothing is written", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "claude");
  const path = claudeSettingsPath(homes.env);
  writeFile(path, '{"model": "opus",}\n');
  const result = claudeHookConfig.install(hookOptions(homes, agent));
  assert.equal(result.kind, "NotInstalled");
  assert.match(
    result.kind === "NotInstalled" ? result.reason : "",
    new RegExp(`^${path} is not valid JSON \\(`),
  );
  assert.equal(Deno.readTextFileSync(path), '{"model": "opus",}\n');
  assert.deepEqual(listNames(homes.backupsDir), []);
});

Deno.test("claude: hooks that are not a list are refused with the key named", () => {
  using homes = tempHomes();
  const path = claudeSettingsPath(homes.env);
  writeFile(path, '{"hooks": {"Stop": {"command": "x"}}}');
  const result = claudeHookConfig.install(hookOptions(homes, builtinAgent(homes, "claude")));
  assert.equal(
    result.kind === "NotInstalled" && result.reason,
    `${path}: hooks.Stop is not a list; asm left the file untouched`,
  );
});

Deno.test("claude: a missing settings.json is created, recorded as absent, and deleted by uninstall", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "claude");
  const path = claudeSettingsPath(homes.env);
  assert.equal(claudeHookConfig.install(hookOptions(homes, agent)).kind, "Installed");
  const settings = JSON.parse(Deno.readTextFileSync(path));
  assert.deepEqual(Object.keys(settings.hooks), Object.keys(agent.events));
  const records = listNames(homes.backupsDir);
  assert.equal(records.length, 1, "a record and no copy");
  assert.equal(JSON.parse(Deno.readTextFileSync(`${homes.backupsDir}/${records[0]}`)).absent, true);
  assert.equal(claudeHookConfig.uninstall(hookOptions(homes, agent)).restored, true);
  assert.throws(() => Deno.statSync(path), Deno.errors.NotFound);
});

Deno.test("claude: an entry from an older wrapper path is pointed at the current one", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "claude");
  const path = claudeSettingsPath(homes.env);
  const old = {
    hooks: {
      Stop: [{ matcher: "*", hooks: [{ type: "command", command: "/old/.asm/bin/asm-hook claude" }] }],
    },
  };
  writeFile(path, JSON.stringify(old, null, 2));
  const result = claudeHookConfig.install(hookOptions(homes, agent));
  assert.match(result.kind === "Installed" ? result.notes.join(" ") : "", /pointed the asm hooks for Stop/);
  const settings = JSON.parse(Deno.readTextFileSync(path));
  assert.equal(settings.hooks.Stop.length, 1);
  assert.equal(settings.hooks.Stop[0].hooks[0].command, `${homes.wrapper} claude`);
});

Deno.test("claude: a wrapper path with a space or a quote is refused with a sentence", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "claude");
  for (const wrapper of ["/tmp/my asm/bin/asm-hook", "/tmp/it's/bin/asm-hook"]) {
    const result = claudeHookConfig.install({ ...hookOptions(homes, agent), wrapper });
    assert.equal(result.kind, "NotInstalled");
    assert.match(result.kind === "NotInstalled" ? result.reason : "", /agents run hook commands unquoted/);
  }
  assert.throws(() => Deno.statSync(claudeSettingsPath(homes.env)), Deno.errors.NotFound);
});

Deno.test("claude: disableAllHooks gets a note saying asm's hooks will not run", () => {
  using homes = tempHomes();
  writeFile(claudeSettingsPath(homes.env), '{\n  "disableAllHooks": true\n}\n');
  const result = claudeHookConfig.install(hookOptions(homes, builtinAgent(homes, "claude")));
  assert.match(result.kind === "Installed" ? result.notes.join(" ") : "", /"disableAllHooks": true/);
});
