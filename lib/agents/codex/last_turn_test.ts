import assert from "node:assert/strict";
import { join } from "node:path";
import { repoRoot } from "../../config/mod.ts";
import { readerHarness } from "../../usage/_test_utils.ts";
import { startFake } from "../../../verify/fakes/mod.ts";
import { agentsBinDir } from "../../../verify/prerequisites.ts";
import { builtinAgent, tempHomes, writeFile } from "../_test_utils.ts";
import { offlineSetup } from "../registry.ts";
import { codexLastTurn, lastTurnInText, newestRollouts, windowsOfRateLimits } from "./last_turn.ts";
import { codexUsage } from "./usage.ts";

/** A rollout Codex 0.169.0 wrote (the shared fixtures beside the repository). */
const ROLLOUT = join(
  repoRoot(),
  "..",
  "shared",
  "fixtures",
  "codex",
  "rollouts",
  "exec-plain-chat.rollout.jsonl",
);
/** Its one token_count: 2026-11-29T22:12:08.224Z, primary 12.5 % resets 23:12:08, secondary 40 %. */
const TURN_AT = "2026-11-29T22:12:08.224Z";

Deno.test("the last token_count of a real rollout gives its windows and the turn's time", () => {
  const turn = lastTurnInText(Deno.readTextFileSync(ROLLOUT));
  assert.deepEqual(turn, {
    at: TURN_AT,
    windows: [
      { name: "5-hour", percent_used: 12.5, resets_at: "2026-11-29T23:12:08.000Z" },
      { name: "weekly", percent_used: 40, resets_at: "2026-12-02T22:12:08.000Z" },
    ],
  });
  assert.equal(lastTurnInText('{"type":"event_msg","payload":{"type":"task_complete"}}\n'), null);
});

Deno.test("rate limits become windows named by their length, a limit's name first, empty slots skipped", () => {
  const rows: { rateLimits: unknown; names: string[] }[] = [
    { rateLimits: null, names: [] },
    { rateLimits: { primary: null, secondary: null }, names: [] },
    { rateLimits: { primary: { used_percent: 1, window_minutes: 300, resets_at: 1 } }, names: ["5-hour"] },
    {
      rateLimits: {
        limit_name: "gpt-5-codex",
        secondary: { used_percent: 1, window_minutes: 10080, resets_at: 1 },
      },
      names: ["gpt-5-codex weekly"],
    },
    {
      rateLimits: { primary: { used_percent: 1, window_minutes: null, resets_at: null } },
      names: ["primary"],
    },
  ];
  for (const row of rows) {
    assert.deepEqual(windowsOfRateLimits(row.rateLimits).map((w) => w.name), row.names, JSON.stringify(row));
  }
});

Deno.test("the newest rollout with rate limits is found across day folders, newest modified first", () => {
  using homes = tempHomes();
  const sessions = join(homes.codexHome, "sessions");
  const old = join(sessions, "2026", "11", "28", "rollout-2026-11-28T10-00-00-a.jsonl");
  const fresh = join(sessions, "2026", "11", "29", "rollout-2026-11-29T22-12-08-b.jsonl");
  const empty = join(sessions, "2026", "11", "29", "rollout-2026-11-29T23-00-00-c.jsonl");
  writeFile(old, Deno.readTextFileSync(ROLLOUT).replaceAll('"used_percent":12.5', '"used_percent":99'));
  writeFile(fresh, Deno.readTextFileSync(ROLLOUT));
  writeFile(empty, '{"timestamp":"2026-11-29T23:00:00.000Z","type":"session_meta","payload":{}}\n');
  const at = (path: string, ms: number) => Deno.utimeSync(path, new Date(ms), new Date(ms));
  at(old, Date.now() - 86_400_000);
  at(fresh, Date.now() - 60_000);
  at(empty, Date.now());
  assert.deepEqual(newestRollouts(homes.env), [empty, fresh, old]);
  assert.equal(
    codexLastTurn(homes.env)?.windows[0].percent_used,
    12.5,
    "a rollout with no token_count is passed over",
  );
  assert.equal(codexLastTurn({ ...homes.env, CODEX_HOME: join(homes.root, "none") }), null);
});

Deno.test("without a ChatGPT sign-in Codex's reading is the last turn's, labelled, and a passed reset reads 0", async () => {
  using homes = tempHomes();
  writeFile(
    join(homes.codexHome, "sessions", "2026", "11", "29", "rollout-x.jsonl"),
    Deno.readTextFileSync(ROLLOUT),
  );
  const reader = readerHarness(codexUsage, {
    env: homes.env,
    baseUrl: "http://127.0.0.1:1",
    startMs: Date.parse("2026-11-29T22:42:08.224Z"),
  });
  const before = await reader.read();
  assert.equal(before.state, "unavailable");
  assert.equal(before.label, `from the last turn at ${TURN_AT}`);
  assert.match(before.message, /no ChatGPT sign-in for Codex .*; showing the last turn's figures$/);
  assert.equal(before.age, 1800);
  assert.deepEqual(before.windows.map((w) => [w.name, w.percent_used, w.resets_in_seconds, w.source]), [
    ["5-hour", 12.5, 1800, "last-turn"],
    ["weekly", 40, 3 * 86_400 - 1800, "last-turn"],
  ]);
  reader.advance(8 * 3_600_000); // idle overnight: the 5-hour window has long reset
  const after = await reader.read();
  assert.deepEqual(after.windows.map((w) => [w.name, w.percent_used, w.resets_at]), [
    ["5-hour", 0, null],
    ["weekly", 40, "2026-12-02T22:12:08.000Z"],
  ]);
  assert.equal(after.label, `from the last turn at ${TURN_AT}`);
});

Deno.test("a real Codex turn against the fake leaves rate limits that read as the last turn's figures", async () => {
  using homes = tempHomes();
  const agent = builtinAgent(homes, "codex");
  const fake = await startFake("openai");
  try {
    const extra = offlineSetup(agent).prepare({ home: homes.home, fakeUrl: fake.url });
    const env: Record<string, string> = {
      PATH: `${agentsBinDir()}:/usr/bin:/bin`,
      HOME: homes.home,
      TMPDIR: homes.root,
      LANG: "C.UTF-8",
      ...extra,
    };
    const started = Date.now();
    const out = await new Deno.Command("codex", {
      args: ["exec", "--skip-git-repo-check", "hello from the usage test"],
      cwd: homes.root,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr).slice(-2000));
    const turn = codexLastTurn(env);
    assert.ok(turn !== null, "the rollout has a token_count with rate limits");
    // the fake's x-codex-* headers: primary 12.5 % of 300 min resetting in an hour, secondary 40 % of a week
    assert.deepEqual(turn.windows.map((w) => [w.name, w.percent_used]), [["5-hour", 12.5], ["weekly", 40]]);
    const at = Date.parse(turn.at);
    assert.ok(at >= started - 1_000 && at <= Date.now(), `the turn's time ${turn.at} is this run's`);
    const reset = Date.parse(turn.windows[0].resets_at!);
    assert.ok(
      Math.abs(reset - (at + 3_600_000)) < 60_000,
      "resets_at is the absolute instant the header said",
    );
  } finally {
    await fake.close();
  }
});
