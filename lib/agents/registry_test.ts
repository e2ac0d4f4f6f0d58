import assert from "node:assert/strict";
import { join } from "node:path";
import type { AgentConfig } from "./protocol.ts";
import {
  adapterOf,
  AgentsFileError,
  hookAdapter,
  hookAgentsJson,
  knownAdapters,
  loadAgents,
} from "./registry.ts";
import { transcriptAdapters, transcriptReader } from "./transcripts.ts";
import { tempHomes, thrown, writeFile } from "./_test_utils.ts";

Deno.test("the built-in agents.toml lists claude, codex and gemini with their events", () => {
  using homes = tempHomes();
  const agents = loadAgents({ asmHome: homes.asmHome });
  assert.deepEqual(agents.map((a) => a.name), ["claude", "codex", "gemini"]);
  const gemini = agents.find((a) => a.name === "gemini")!;
  assert.deepEqual(gemini.events.BeforeAgent, "UserPromptSubmit");
  assert.deepEqual(gemini.notify_events, {});
  assert.deepEqual(agents.find((a) => a.name === "codex")!.notify_events, { "agent-turn-complete": "Stop" });
});

Deno.test("ASM_HOME from the environment locates the override file", () => {
  using homes = tempHomes();
  writeFile(join(homes.asmHome, "agents.toml"), '[claude]\ndisplay = "From Env"\n');
  assert.deepEqual(loadAgents({ env: homes.env })[0].display, "From Env");
});

Deno.test("an override file changes a key and adds an agent", () => {
  using homes = tempHomes();
  writeFile(
    join(homes.asmHome, "agents.toml"),
    `[claude]
display = "Claude (work)"

[aider]
display = "Aider"
tag = "aider"
adapter = "claude"
tested = false
exe = ["**/aider"]
script = []
shared = false
session_env = ""
pid_env = ""
entrypoint_env = ""
inject = "none"
keep_copies = false
command = "aider"
one_shot = ["--message", "{prompt}"]

[aider.events]
SessionStart = "SessionStart"
`,
  );
  const agents = loadAgents({ asmHome: homes.asmHome });
  assert.deepEqual(agents.map((a) => a.name), ["claude", "codex", "gemini", "aider"]);
  const claude = agents[0];
  assert.deepEqual(claude.display, "Claude (work)");
  assert.deepEqual(claude.tag, "claude", "keys the override does not name keep their built-in value");
  assert.deepEqual(Object.keys(claude.events).length, 6);
  assert.deepEqual(agents[3].events, { SessionStart: "SessionStart" });
  assert.deepEqual(agents[3].notify_events, {});
});

Deno.test("an override replaces an events table whole, so it can drop an event", () => {
  using homes = tempHomes();
  writeFile(join(homes.asmHome, "agents.toml"), '[codex.events]\nStop = "Stop"\n');
  const codex = loadAgents({ asmHome: homes.asmHome }).find((a) => a.name === "codex")!;
  assert.deepEqual(codex.events, { Stop: "Stop" });
  assert.deepEqual(codex.notify_events, { "agent-turn-complete": "Stop" });
});

Deno.test("a bad key type is a sentence naming the file and the key", () => {
  using homes = tempHomes();
  const file = join(homes.asmHome, "agents.toml");
  writeFile(file, '[claude]\nexe = "claude"\n');
  const err = thrown(() => loadAgents({ asmHome: homes.asmHome }));
  assert.ok(err instanceof AgentsFileError);
  assert.deepEqual(err.message, `${file}: claude.exe must be a list of strings, not the string "claude"`);
});

Deno.test("other bad values name the file and the key", () => {
  using homes = tempHomes();
  const file = join(homes.asmHome, "agents.toml");
  const cases: [string, RegExp][] = [
    ["[claude]\nshared = 1\n", /claude\.shared must be true or false, not the number 1$/],
    ['[claude]\ninject = "stdout"\n', /claude\.inject must be "hook-specific-output" or "none"/],
    [
      '[claude]\nadapter = "vim"\n',
      /claude\.adapter is "vim", which is not an adapter asm has \(claude, codex, gemini\)/,
    ],
    ["[claude.events]\nStop = 3\n", /claude\.events must be a table of event names to strings/],
    ['[claude]\nexes = ["x"]\n', /claude\.exes is not a key asm knows/],
    ['["my agent"]\ndisplay = "x"\n', /the agent name "my agent" must be lowercase letters/],
    ['[newbie]\ndisplay = "New"\n', /agent "newbie" has no tag/],
    ['[claude\ndisplay = "x"\n', /is not valid TOML/],
    [
      '[claude]\nlaunch_env = ["OK_*", "A B"]\n',
      /claude\.launch_env must be a list of environment variable names \(a trailing "\*" matches a prefix\)/,
    ],
    ['[claude]\nlaunch_env = ["*"]\n', /claude\.launch_env must be a list of environment variable names/],
  ];
  for (const [text, pattern] of cases) {
    writeFile(file, text);
    const err = thrown(() => loadAgents({ asmHome: homes.asmHome }));
    assert.ok(err instanceof AgentsFileError);
    assert.match(err.message, new RegExp(`^${file.replaceAll(".", "\\.")}`));
    assert.match(err.message, pattern);
  }
});

Deno.test("each built-in agent names its own launch environment, and an added agent without one gets none", () => {
  using homes = tempHomes();
  writeFile(join(homes.asmHome, "agents.toml"), '[codex]\nlaunch_env = ["CODEX_HOME", "MY_PROXY_*"]\n');
  const agents = loadAgents({ asmHome: homes.asmHome });
  const own = Object.fromEntries(agents.map((a) => [a.name, a.launch_env]));
  assert.deepEqual(own.claude, ["CLAUDE_*", "ANTHROPIC_*", "DISABLE_*"]);
  assert.deepEqual(own.codex, ["CODEX_HOME", "MY_PROXY_*"], "an override replaces the list whole");
  assert.deepEqual(own.gemini, ["GEMINI_*", "GOOGLE_*"]);
  writeFile(
    join(homes.asmHome, "agents.toml"),
    `[aider]
display = "Aider"
tag = "aider"
adapter = "claude"
tested = false
exe = ["**/aider"]
script = []
shared = false
session_env = ""
pid_env = ""
entrypoint_env = ""
inject = "none"
keep_copies = false
command = "aider"
one_shot = ["--message", "{prompt}"]
[aider.events]
SessionStart = "SessionStart"
`,
  );
  assert.deepEqual(loadAgents({ asmHome: homes.asmHome }).find((a) => a.name === "aider")!.launch_env, []);
});

Deno.test("hook-agents.json carries what the hook needs, with notify events merged into events", () => {
  using homes = tempHomes();
  const json = hookAgentsJson(loadAgents({ asmHome: homes.asmHome }));
  assert.deepEqual(json.v, 1);
  assert.deepEqual(Object.keys(json.agents), ["claude", "codex", "gemini"]);
  assert.deepEqual(json.agents.codex.events["agent-turn-complete"], "Stop");
  assert.deepEqual(json.agents.codex.events.SessionStart, "SessionStart");
  assert.deepEqual(Object.keys(json.agents.gemini).sort(), [
    "entrypoint_env",
    "events",
    "exe",
    "inject",
    "pid_env",
    "script",
    "session_env",
    "shared",
  ]);
  assert.deepEqual(json.agents.gemini.script, ["**/@google/gemini-cli/bundle/gemini.js"]);
});

Deno.test("an unknown adapter name is an error listing the adapters asm has", () => {
  assert.deepEqual(knownAdapters(), ["claude", "codex", "gemini"]);
  const err = thrown(() => hookAdapter("vim"));
  assert.deepEqual(err.message, 'asm has no hook adapter named "vim"; it has claude, codex, gemini');
});

Deno.test("the transcript readers a read worker loads are the registry adapters' own", () => {
  const withTranscripts = knownAdapters().filter((name) =>
    adapterOf({ adapter: name } as AgentConfig).transcripts !== undefined
  );
  assert.deepEqual(transcriptAdapters().sort(), withTranscripts.sort());
  for (const name of withTranscripts) {
    assert.equal(transcriptReader(name), adapterOf({ adapter: name } as AgentConfig).transcripts);
  }
});
