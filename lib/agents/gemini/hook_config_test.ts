import assert from "node:assert/strict";
import { join } from "node:path";
import { builtinAgent, hookOptions, tempHomes } from "../_test_utils.ts";
import { assertOnlyAdded, listNames, writeFile } from "../_test_utils.ts";
import { geminiHookConfig, geminiSettingsPath } from "./hook_config.ts";

/**
 * The settings.json of the Gemini CLI research runs (fixtures/gemini/headless/settings.json, four of its eleven
 * hook events kept), byte for byte as written: 2-space indent, no final newline.
 */
const FIXTURE = `{
  "security": {
    "auth": {
      "selectedType": "gemini-api-key"
    }
  },
  "privacy": {
    "usageStatisticsEnabled": false
  },
  "telemetry": {
    "enabled": false
  },
  "general": {
    "enableAutoUpdate": false,
    "enableAutoUpdateNotification": false
  },
  "ide": {
    "enabled": false,
    "hasSeenNudge": true
  },
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "name": "dump-SessionStart",
            "command": "python3 /opt/probe/gemini-hook-dump.py SessionStart",
            "timeout": 10000
          }
        ]
      }
    ],
    "BeforeAgent": [
      {
        "hooks": [
          {
            "type": "command",
            "name": "dump-BeforeAgent",
            "command": "python3 /opt/probe/gemini-hook-dump.py BeforeAgent",
            "timeout": 10000
          }
        ]
      }
    ],
    "BeforeTool": [
      {
        "matcher": ".*",
        "hooks": [
          {
            "type": "command",
            "name": "dump-BeforeTool",
            "command": "python3 /opt/probe/gemini-hook-dump.py BeforeTool",
            "timeout": 10000
          }
        ]
      }
    ],
    "AfterAgent": [
      {
        "hooks": [
          {
            "type": "command",
            "name": "dump-AfterAgent",
            "command": "python3 /opt/probe/gemini-hook-dump.py AfterAgent",
            "timeout": 10000
          }
        ]
      }
    ]
  }
}`;

Deno.test("gemini: the settings path follows GEMINI_CLI_HOME, else HOME", () => {
  assert.equal(geminiSettingsPath({ HOME: "/h", GEMINI_CLI_HOME: "/g" }), "/g/.gemini/settings.json");
  assert.equal(geminiSettingsPath({ HOME: "/h" }), "/h/.gemini/settings.json");
});

Deno.test("gemini: install into a real settings.json appends asm's groups after the existing hooks", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "gemini");
  const path = geminiSettingsPath(homes.env);
  assert.equal(path, join(homes.geminiHome, ".gemini", "settings.json"));
  writeFile(path, FIXTURE);
  const before = JSON.parse(FIXTURE);
  const result = geminiHookConfig.install(hookOptions(homes, agent));
  assert.equal(result.kind, "Installed");
  const text = Deno.readTextFileSync(path);
  const added = assertOnlyAdded(FIXTURE, text).join("\n");
  assert.ok(!added.includes("gemini-hook-dump.py"));
  const after = JSON.parse(text);
  for (const event of Object.keys(agent.events)) {
    const existing = before.hooks[event] ?? [];
    assert.deepEqual(after.hooks[event].slice(0, -1), existing, `${event}: the existing groups stay first`);
    assert.deepEqual(after.hooks[event].at(-1), {
      hooks: [{ type: "command", name: "asm", command: `${homes.wrapper} gemini`, timeout: 10000 }],
    });
  }
  assert.deepEqual(after.hooks.BeforeTool, before.hooks.BeforeTool);
  assert.deepEqual({ ...after, hooks: null }, { ...before, hooks: null });
  assert.ok(geminiHookConfig.isInstalled(homes.env, agent));
});

Deno.test("gemini: a second install reports AlreadyInstalled and uninstall restores byte-for-byte", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "gemini");
  const path = geminiSettingsPath(homes.env);
  writeFile(path, FIXTURE);
  geminiHookConfig.install(hookOptions(homes, agent));
  const backups = listNames(homes.backupsDir);
  assert.equal(geminiHookConfig.install(hookOptions(homes, agent)).kind, "AlreadyInstalled");
  assert.deepEqual(listNames(homes.backupsDir), backups);
  assert.equal(geminiHookConfig.uninstall(hookOptions(homes, agent)).restored, true);
  assert.equal(Deno.readTextFileSync(path), FIXTURE);
});

Deno.test("gemini: uninstall after a hand edit keeps the edit and removes only asm's entries", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "gemini");
  const path = geminiSettingsPath(homes.env);
  writeFile(path, FIXTURE);
  geminiHookConfig.install(hookOptions(homes, agent));
  const edited = JSON.parse(Deno.readTextFileSync(path));
  edited.general.vimMode = true;
  Deno.writeTextFileSync(path, JSON.stringify(edited, null, 2));
  assert.equal(geminiHookConfig.uninstall(hookOptions(homes, agent)).restored, false);
  const expected = JSON.parse(FIXTURE);
  expected.general.vimMode = true;
  assert.equal(Deno.readTextFileSync(path), JSON.stringify(expected, null, 2));
});

Deno.test("gemini: a settings.json with comments is refused with the reason and nothing is written", () => {
  using homes = tempHomes();
  const path = geminiSettingsPath(homes.env);
  const text = '{\n  // my settings\n  "general": {}\n}\n';
  writeFile(path, text);
  const result = geminiHookConfig.install(hookOptions(homes, builtinAgent(homes, "gemini")));
  assert.equal(result.kind, "NotInstalled");
  const reason = result.kind === "NotInstalled" ? result.reason : "";
  assert.ok(reason.startsWith(`${path} is not valid JSON (`), reason);
  assert.match(reason, /Gemini CLI accepts comments in settings\.json/);
  assert.equal(Deno.readTextFileSync(path), text);
  assert.deepEqual(listNames(homes.backupsDir), []);
});

Deno.test("gemini: hooks switched off in hooksConfig get a note", () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "gemini");
  writeFile(geminiSettingsPath(homes.env), '{"hooksConfig": {"disabled": ["asm"]}}');
  const result = geminiHookConfig.install(hookOptions(homes, agent));
  assert.match(
    result.kind === "Installed" ? result.notes.join(" ") : "",
    /lists "asm" in hooksConfig\.disabled/,
  );
});
