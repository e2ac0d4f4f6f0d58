import assert from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_SETTINGS, envNameMatches, loadSettings, parseSettings } from "./settings.ts";

Deno.test("settings read from config.toml's top keys and its [launch] table", () => {
  const { settings, problems } = parseSettings(
    `allowed_uids = [1001, 65534]\nprocessed_days = 7\n[launch]\nenv = ["HTTPS_PROXY", "AWS_*"]\n` +
      `[projects]\nexcluded_skills = ["x"]\n`,
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    allowedUids: [1001, 65534],
    processedDays: 7,
    launchEnv: ["HTTPS_PROXY", "AWS_*"],
  });
});

Deno.test("a wrong key keeps its default and says why; the others still apply", () => {
  const { settings, problems } = parseSettings(
    `allowed_uids = ["root"]\nprocessed_days = 0\n[launch]\nenv = ["BAD NAME"]\n`,
  );
  assert.deepEqual(settings, DEFAULT_SETTINGS);
  assert.equal(problems.length, 3);
  assert.match(problems[0], /allowed_uids must be a list of user ids/);
  assert.match(problems[1], /processed_days/);
  assert.match(problems[2], /launch\.env/);
});

Deno.test("invalid TOML keeps every default and names the parse error", () => {
  const { settings, problems } = parseSettings("allowed_uids = [");
  assert.deepEqual(settings, DEFAULT_SETTINGS);
  assert.match(problems[0], /not valid TOML/);
});

Deno.test("a missing config.toml is the defaults with no problem; a bad one names the file", () => {
  const home = Deno.makeTempDirSync();
  try {
    assert.deepEqual(loadSettings(home), { settings: DEFAULT_SETTINGS, problem: null });
    Deno.writeTextFileSync(join(home, "config.toml"), "processed_days = -1\n");
    const { settings, problem } = loadSettings(home);
    assert.equal(settings.processedDays, 30);
    assert.match(problem ?? "", /config\.toml: processed_days/);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("env name patterns: exact names, and a trailing * as a prefix", () => {
  assert.equal(envNameMatches("AWS_REGION", ["AWS_*"]), true);
  assert.equal(envNameMatches("AWS", ["AWS_*"]), false);
  assert.equal(envNameMatches("HTTPS_PROXY", ["HTTPS_PROXY"]), true);
  assert.equal(envNameMatches("HTTPS_PROXY_X", ["HTTPS_PROXY"]), false);
});
