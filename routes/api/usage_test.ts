import assert from "node:assert/strict";
import { join } from "node:path";
import { startServer } from "../../lib/server/mod.ts";
import type { UsageReading } from "../../lib/usage/mod.ts";
import { startUsageFake } from "../../verify/fakes/usage.ts";
import { agentsBinDir, PINNED_AGENTS } from "../../verify/prerequisites.ts";
import { ROUTES } from "../mod.ts";

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...filesUnder(path));
    else if (entry.isFile) out.push(path);
  }
  return out;
}

/** The files (bytes read as Latin-1, so a binary database is searched too) that contain any of `needles`. */
function filesHolding(files: string[], needles: string[]): string[] {
  return files.filter((file) => {
    const text = new TextDecoder("latin1").decode(Deno.readFileSync(file));
    return needles.some((n) => text.includes(n));
  });
}

Deno.test("GET /api/usage serves every agent's reading through the real server, and no fake token reaches a log, the database or ASM_HOME", async () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-usage-e2e-" });
  try {
    await throughTheServer(root);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

/** Fake credentials in temp homes, the real server, the fake endpoints; then a search of ASM_HOME for the tokens. */
async function throughTheServer(root: string): Promise<void> {
  const home = join(root, "home");
  const codexHome = join(root, "codex");
  const asmHome = join(root, "asm");
  const secret = (what: string) => `asm-fake-${what}-${crypto.randomUUID()}`;
  const claudeToken = secret("claude-access");
  const codexToken = secret("codex-access");
  const geminiToken = secret("gemini-access");
  const secrets = [
    claudeToken,
    codexToken,
    geminiToken,
    secret("claude-refresh"),
    secret("codex-refresh"),
    secret("codex-id"),
    secret("codex-account"),
    secret("gemini-refresh"),
  ];
  const write = (path: string, body: unknown) => {
    Deno.mkdirSync(join(path, ".."), { recursive: true });
    Deno.writeTextFileSync(path, JSON.stringify(body));
  };
  write(join(home, ".claude", ".credentials.json"), {
    claudeAiOauth: {
      accessToken: claudeToken,
      refreshToken: secrets[3],
      expiresAt: Date.now() + 3_600_000,
      scopes: ["user:inference", "user:profile"],
    },
  });
  write(join(codexHome, "auth.json"), {
    auth_mode: "chatgpt",
    OPENAI_API_KEY: null,
    tokens: {
      id_token: secrets[5],
      access_token: codexToken,
      refresh_token: secrets[4],
      account_id: secrets[6],
    },
  });
  write(join(home, ".gemini", "oauth_creds.json"), {
    access_token: geminiToken,
    refresh_token: secrets[7],
    expiry_date: Date.now() + 3_600_000,
  });

  const fake = startUsageFake({
    tokens: { anthropic: claudeToken, chatgpt: codexToken, "code-assist": geminiToken },
  });
  fake.setMode("chatgpt", "500"); // one agent fails, so the failure path writes its log line too
  Deno.mkdirSync(asmHome, { recursive: true });
  Deno.writeTextFileSync(
    join(asmHome, "agents.toml"),
    [
      `[claude]\nusage_base_url = "${fake.baseUrl("anthropic")}"`,
      `[codex]\nusage_base_url = "${fake.baseUrl("chatgpt")}"`,
      `[gemini]\nusage_base_url = "${fake.baseUrl("code-assist")}"`,
    ].join("\n") + "\n",
  );
  const env = {
    HOME: home,
    CODEX_HOME: codexHome,
    GEMINI_CLI_HOME: home,
    ASM_HOME: asmHome,
    PATH: `${agentsBinDir()}:/usr/bin:/bin`,
  };
  const server = startServer({ asmHome, port: 0, env, routes: ROUTES });
  let bodies = "";
  try {
    const res = await server.api(`/api/usage`);
    assert.equal(res.status, 200);
    const text = await res.text();
    bodies += text;
    const { at, readings } = JSON.parse(text) as { at: string; readings: UsageReading[] };
    assert.match(at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const by = Object.fromEntries(readings.map((r) => [r.agent, r]));
    assert.equal(by.claude.state, "ok", by.claude.message);
    assert.deepEqual(by.claude.windows.map((w) => w.name), [
      "5-hour",
      "weekly",
      "weekly (Sonnet)",
      "extra usage (monthly)",
    ]);
    assert.equal(by.gemini.state, "ok", by.gemini.message);
    assert.deepEqual(by.gemini.windows.map((w) => [w.name, w.percent_used]), [
      ["gemini-2.5-pro", 25],
      ["gemini-2.5-flash", 10],
    ]);
    assert.equal(by.codex.state, "error");
    assert.equal(by.codex.message, "Codex's usage endpoint answered HTTP 500");
    const claudeCall = fake.requests().find((r) => r.endpoint === "anthropic");
    assert.equal(claudeCall?.headers["user-agent"], `claude-code/${PINNED_AGENTS.claude.version}`);
    assert.ok(fake.requests().every((r) => r.authorized), "every call carried the token read off disk");

    // a second look within the minute is served from the cache, the failed one from its backoff
    const calls = fake.requests().length;
    bodies += await (await server.api(`/api/usage`)).text();
    assert.equal(fake.requests().length, calls);
  } finally {
    await server.close();
    await fake.close();
  }
  const files = filesUnder(asmHome);
  assert.ok(files.some((f) => f.endsWith("server.log")), "the server wrote its log");
  assert.ok(files.some((f) => f.endsWith("ledger.sqlite")), "the server wrote its database");
  assert.match(Deno.readTextFileSync(join(asmHome, "server.log")), /"what":"usage","agent":"codex"/);
  assert.deepEqual(filesHolding(files, secrets), [], "no file under ASM_HOME holds a fake token");
  assert.ok(!secrets.some((s) => bodies.includes(s)), "no API answer holds a fake token");
  const recorded = JSON.stringify(fake.requests());
  assert.ok(recorded.includes(secrets[6]), "the fake kept the ChatGPT-Account-Id header it was sent");
  assert.ok(
    ![...secrets.slice(0, 6), secrets[7]].some((s) => recorded.includes(s)),
    "the fake kept no token",
  );
}
