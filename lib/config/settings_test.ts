import assert from "node:assert/strict";
import { join } from "node:path";
import {
  boardKeyFile,
  boardPath,
  DEFAULT_SETTINGS,
  envNameMatches,
  loadSettings,
  parseSettings,
} from "./settings.ts";

Deno.test("settings read from config.toml's top keys and its [launch] table", () => {
  const { settings, problems } = parseSettings(
    `allowed_uids = [1001, 65534]\nprocessed_days = 7\n[launch]\nenv = ["HTTPS_PROXY", "AWS_*"]\n` +
      `[projects]\nexcluded_skills = ["x"]\n`,
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    ...DEFAULT_SETTINGS,
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
    assert.deepEqual(loadSettings(home), { settings: DEFAULT_SETTINGS, problem: null, refusal: null });
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

Deno.test("mode and the [board] table: testing, a vault path, other list ids, a project's folder", () => {
  const { settings, problems, refusal } = parseSettings(
    `mode = "testing"\n[board]\nbackend = "markdown"\npath = "/vault/board.md"\n` +
      `lists = { plan = "p-1", complete = "done" }\nfolders = { WebApp = "/src/webapp" }\n`,
  );
  assert.deepEqual([problems, refusal], [[], null]);
  assert.equal(settings.mode, "testing");
  assert.deepEqual(settings.board, {
    backend: "markdown",
    path: "/vault/board.md",
    lists: { plan: "p-1", process: "asm-process", complete: "done" },
    folders: { webapp: "/src/webapp" },
    keyFile: null,
    url: null,
  });
});

Deno.test("a Workflowy board: node ids, a key file, and an API address the key may travel to", () => {
  const { settings, problems } = parseSettings(
    `[board]\nbackend = "workflowy"\nkey_file = "workflowy.key"\nurl = "http://127.0.0.1:4321/api/v1/"\n` +
      `lists = { plan = "6ed4b9ca-256c-bf2e-bd70-d8754237b505", process = "p2", complete = "c3" }\n`,
  );
  assert.deepEqual(problems, []);
  assert.equal(settings.board.backend, "workflowy");
  assert.equal(settings.board.url, "http://127.0.0.1:4321/api/v1");
  assert.equal(boardKeyFile("/h/.asm", settings.board), "/h/.asm/workflowy.key");
  assert.equal(boardKeyFile("/h/.asm", { ...settings.board, keyFile: "/keys/wf" }), "/keys/wf");
  assert.equal(boardKeyFile("/h/.asm", DEFAULT_SETTINGS.board), null);
  for (
    const url of ["http://workflowy.example/api/v1", "ftp://127.0.0.1/", "https://u:p@e.x/", "not a url", 7]
  ) {
    const wrong = parseSettings(`[board]\nurl = ${JSON.stringify(url)}\n`);
    assert.equal(wrong.settings.board.url, "", `${url}: given but unusable, never the default address`);
    assert.match(wrong.problems[0], /board\.url must be an https address/, String(url));
  }
  assert.equal(
    parseSettings(`[board]\nurl = "https://workflowy.com/api/v1"\n`).settings.board.url,
    "https://workflowy.com/api/v1",
  );
  assert.match(parseSettings(`[board]\nkey_file = ""\n`).problems[0], /board\.key_file must be/);
});

Deno.test("a wrong [board] key keeps its default and says why", () => {
  const { settings, problems, refusal } = parseSettings(
    `[board]\npath = ""\nlists = { plan = "a b" }\nfolders = { x = "rel" }\n`,
  );
  assert.equal(refusal, null);
  assert.deepEqual(settings.board, DEFAULT_SETTINGS.board);
  assert.equal(problems.length, 3);
  assert.match(problems[0], /board\.path/);
  assert.match(problems[1], /board\.lists must be/);
  assert.match(problems[2], /board\.folders\.x must be an absolute folder path/);
  const same = parseSettings(`[board]\nlists = { plan = "x", process = "x" }\n`);
  assert.match(same.problems[0], /three different list ids/);
});

Deno.test("a mode asm cannot read refuses the start instead of guessing which board to write", () => {
  assert.match(
    parseSettings(`mode = "tseting"\n`).refusal ?? "",
    /mode must be "live" or "testing" \(it is "tseting"\)/,
  );
  assert.match(parseSettings(`mode = "testing"\nallowed_uids = [`).refusal ?? "", /cannot read it/);
  assert.equal(
    parseSettings(`allowed_uids = [`).refusal,
    null,
    "a broken file that names no mode is only a problem",
  );
  assert.equal(parseSettings("").settings.mode, "live", "the default is live");
});

Deno.test("the board's file: config's path (relative to the data folder), else one per mode, never shared", () => {
  const board = DEFAULT_SETTINGS.board;
  assert.equal(boardPath("/h/.asm", "live", board), "/h/.asm/board.md");
  assert.equal(boardPath("/h/.asm", "testing", board), "/h/.asm/board.testing.md");
  assert.equal(boardPath("/h/.asm", "testing", { ...board, path: "boards/b.md" }), "/h/.asm/boards/b.md");
  assert.equal(boardPath("/h/.asm", "live", { ...board, path: "/vault/b.md" }), "/vault/b.md");
});

Deno.test("the port: config.toml's, a wrong one keeps 7777 and says why", () => {
  assert.equal(parseSettings("").settings.port, 7777);
  assert.equal(parseSettings("port = 8123").settings.port, 8123);
  for (const bad of ['"8123"', "0", "70000", "80.5"]) {
    const { settings, problems } = parseSettings(`port = ${bad}`);
    assert.equal(settings.port, 7777, bad);
    assert.equal(problems.length, 1, bad);
    assert.match(problems[0], /^port must be a whole number from 1 to 65535 \(it is .+\); 7777 is used$/);
  }
});
