/**
 * `asm install` then `asm uninstall` on a scratch HOME with the real agents on PATH: hooks for every agent found,
 * the systemd user unit (through a recording `systemctl` that plays a user manager and starts the unit's server),
 * the agents' variables copied with consent, the address last; then everything undone, every agent config
 * byte-identical. And a data folder in a synced folder, refused by install and by serve.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { agentsBinDir } from "../../verify/prerequisites.ts";
import { currentHolder } from "../server/lock.ts";
import { ASM, asm, freePort } from "./_test_utils.ts";

function hashOf(path: string): string {
  return createHash("sha256").update(Deno.readFileSync(path)).digest("hex");
}

/** The agents' own configs, as a person had them before asm. */
function agentConfigs(home: string): Record<string, string> {
  const files: Record<string, string> = {
    [join(home, ".claude", "settings.json")]: '{\n  "theme": "dark",\n  "hooks": {}\n}\n',
    [join(home, ".codex", "config.toml")]: 'model = "gpt-5"\n\n[tui]\nnotifications = true\n',
    [join(home, ".gemini", "settings.json")]: '{ "ui": { "theme": "GitHub" } }\n',
  };
  for (const [path, text] of Object.entries(files)) {
    Deno.mkdirSync(join(path, ".."), { recursive: true });
    Deno.writeTextFileSync(path, text);
  }
  return Object.fromEntries(Object.keys(files).map((p) => [p, hashOf(p)]));
}

/**
 * A `systemctl` that records its arguments and plays a running user manager: `enable --now` starts the unit's
 * server (a testing one, on the test's port) and `disable --now` stops it.
 */
function fakeSystemctl(root: string, port: number, manager: boolean): { bin: string; calls: () => string[] } {
  const bin = join(root, "fake-bin");
  Deno.mkdirSync(bin);
  const log = join(root, "systemctl.calls");
  const pidFile = join(root, "unit.pid");
  Deno.writeTextFileSync(
    join(bin, "systemctl"),
    [
      "#!/bin/sh",
      `printf '%s\\n' "$*" >> '${log}'`,
      manager ? "" : '[ "$2" = show-environment ] && { echo "Failed to connect to bus"; exit 1; }',
      'case "$2 $3" in',
      // like systemd: a unit already active is left running
      `  "enable --now") [ -f '${pidFile}' ] && kill -0 "$(cat '${pidFile}')" 2>/dev/null && exit 0`,
      `    '${ASM}' serve --port ${port} --testing >/dev/null 2>&1 </dev/null & echo $! > '${pidFile}' ;;`,
      `  "disable --now") [ -f '${pidFile}' ] && kill "$(cat '${pidFile}')" ;;`,
      "esac",
      "exit 0",
      "",
    ].join("\n"),
  );
  Deno.chmodSync(join(bin, "systemctl"), 0o755);
  return {
    bin,
    calls: () => {
      try {
        return Deno.readTextFileSync(log).trim().split("\n");
      } catch {
        return [];
      }
    },
  };
}

function worldEnv(root: string, home: string, bin: string, asmHome: string): Record<string, string> {
  return {
    HOME: home,
    ASM_HOME: asmHome,
    CODEX_HOME: join(home, ".codex"),
    PATH: `${bin}:${Deno.env.get("ASM_AGENTS_BIN") || agentsBinDir()}:/usr/local/bin:/usr/bin:/bin`,
    TMPDIR: join(root, "tmp"),
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME")!, ".cache", "deno"),
    ANTHROPIC_API_KEY: 'sk-test "quoted" \\ value',
    GEMINI_API_KEY: "g-test",
    CLAUDE_CODE_SESSION_ID: "never-copied",
  };
}

Deno.test("asm install then uninstall: hooks, the unit, the agents' variables, the address; then all undone, configs byte-identical", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-autostart-" }));
  const home = join(root, "home");
  const asmHome = join(root, "data");
  Deno.mkdirSync(join(root, "tmp"));
  const before = agentConfigs(home);
  const port = freePort();
  const systemctl = fakeSystemctl(root, port, true);
  const env = worldEnv(root, home, systemctl.bin, asmHome);
  try {
    const installed = await asm(["install", "--no-canary", "--agent-env"], env);
    const lines = installed.text.trim().split("\n");
    for (const agent of ["claude", "codex", "gemini"]) {
      assert.ok(
        lines.some((l) => l.startsWith(`${agent}: installed`)),
        `${agent} installed:\n${installed.text}`,
      );
    }
    assert.equal(installed.code, 1, "Codex's hooks wait for the person's review");
    assert.ok(!installed.text.includes("sk-test"), "a value is never printed");

    const unitFile = join(home, ".config", "systemd", "user", "asm.service");
    const unit = Deno.readTextFileSync(unitFile);
    assert.match(unit, new RegExp(`^ExecStart="${ASM.replaceAll("/", "\\/")}" "serve"$`, "m"));
    assert.ok(unit.includes(`\nEnvironment="PATH=${env.PATH}"\n`), unit);
    assert.ok(unit.includes(`\nEnvironment="ASM_HOME=${asmHome}"\n`), unit);
    assert.ok(unit.includes(`\nEnvironmentFile=-${asmHome}/agents.env\n`), unit);
    assert.ok(unit.includes("\nWantedBy=default.target\n"));

    const agentsEnv = join(asmHome, "agents.env");
    assert.equal(Deno.statSync(agentsEnv).mode! & 0o777, 0o600);
    assert.deepEqual(Deno.readTextFileSync(agentsEnv).split("\n").filter((l) => !l.startsWith("#")), [
      'ANTHROPIC_API_KEY="sk-test \\"quoted\\" \\\\ value"',
      `CODEX_HOME="${home}/.codex"`, // Codex's home is its own variable: the server must read the same one
      'GEMINI_API_KEY="g-test"',
      "",
    ]);
    assert.deepEqual(systemctl.calls(), [
      "--user show-environment",
      "--user daemon-reload",
      "--user enable --now asm.service",
      "--user try-restart asm.service",
    ]);
    assert.match(lines.at(-1)!, new RegExp(`^open http://127\\.0\\.0\\.1:${port}/#code=[A-Za-z0-9_-]+$`));
    const server = currentHolder(asmHome);
    assert.equal(server?.port, port, "the enabled unit's server runs");

    // a second install writes nothing new
    const again = await asm(["install", "--no-canary", "--agent-env"], env);
    assert.match(again.text, /autostart: .*asm\.service already up to date/);

    const removed = await asm(["uninstall"], env);
    assert.equal(removed.code, 0, removed.text);
    for (const [path, hash] of Object.entries(before)) assert.equal(hashOf(path), hash, `${path} as it was`);
    for (
      const gone of [unitFile, agentsEnv, join(asmHome, "bin", "asm-hook"), join(asmHome, "bin", "deno")]
    ) {
      assert.throws(() => Deno.statSync(gone), Deno.errors.NotFound, gone);
    }
    assert.ok(systemctl.calls().includes("--user disable --now asm.service"));
    assert.match(removed.text, /kept the data folder .* --purge removes it/);
    for (let i = 0; i < 100 && currentHolder(asmHome) !== null; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(currentHolder(asmHome), null, "the unit's server was stopped with it");
    const purged = await asm(["uninstall", "--purge"], env);
    assert.equal(purged.code, 0, purged.text);
    assert.throws(() => Deno.statSync(asmHome), Deno.errors.NotFound);
  } finally {
    const left = currentHolder(asmHome);
    if (left) {
      Deno.kill(left.pid, "SIGTERM");
      for (let i = 0; i < 100 && currentHolder(asmHome) !== null; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("without a user manager the unit is written, not enabled, and the exact command is given", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-autostart-" }));
  const home = join(root, "home");
  Deno.mkdirSync(join(root, "tmp"));
  const systemctl = fakeSystemctl(root, freePort(), false);
  const env = worldEnv(root, home, systemctl.bin, join(root, "data"));
  try {
    const out = await asm(["install", "--no-canary", "--no-agent-env", "--agent", "claude"], env);
    assert.equal(out.code, 1);
    assert.ok(
      out.text.includes(
        "  not enabled: no systemd user manager answers (Failed to connect to bus). Once you have one (a login " +
          "session with systemd), run: systemctl --user daemon-reload && systemctl --user enable --now asm.service",
      ),
      out.text,
    );
    assert.throws(
      () => Deno.statSync(join(root, "data", "agents.env")),
      Deno.errors.NotFound,
      "no consent, no file",
    );
    assert.deepEqual(systemctl.calls(), ["--user show-environment"]);
    assert.match(out.text, /asm is not running yet: start it/);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a data folder inside a synced folder is refused by install (nothing written) and by serve", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-autostart-" }));
  const home = join(root, "home");
  Deno.mkdirSync(join(root, "tmp"));
  const before = agentConfigs(home);
  const asmHome = join(root, "Dropbox", ".asm");
  const systemctl = fakeSystemctl(root, freePort(), true);
  const env = worldEnv(root, home, systemctl.bin, asmHome);
  const sentence =
    `asm's data folder ${asmHome} is inside Dropbox (${root}/Dropbox); a syncing service copies ` +
    "its database and lock mid-write and breaks them. Set ASM_HOME to a folder outside it (the default is ~/.asm)";
  try {
    const install = await asm(["install", "--no-canary"], env);
    assert.equal(install.code, 1);
    assert.equal(install.text, `asm install: ${sentence}\n`);
    for (const [path, hash] of Object.entries(before)) assert.equal(hashOf(path), hash);
    assert.throws(() => Deno.statSync(asmHome), Deno.errors.NotFound);
    const serve = await asm(["serve", "--port", "0", "--testing"], env);
    assert.equal(serve.code, 1);
    assert.equal(serve.text, `asm serve: ${sentence}\n`);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a data folder no hook command can name is refused before anything is written; a relative one is the caller's", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-autostart-" }));
  const home = join(root, "home");
  Deno.mkdirSync(join(root, "tmp"));
  const before = agentConfigs(home);
  const systemctl = fakeSystemctl(root, freePort(), false);
  try {
    const spaced = join(root, "my data");
    const env = { ...worldEnv(root, home, systemctl.bin, spaced), ANTHROPIC_API_KEY: "sk-never-written" };
    const refused = await asm(["install", "--no-canary", "--agent-env"], env);
    assert.equal(refused.code, 1);
    assert.match(
      refused.text,
      /^asm install: the hook wrapper path ".*\/my data\/bin\/asm-hook" contains whitespace/,
    );
    for (const [path, hash] of Object.entries(before)) assert.equal(hashOf(path), hash);
    assert.throws(() => Deno.statSync(spaced), Deno.errors.NotFound, "no data folder, no agents.env");
    assert.throws(
      () => Deno.statSync(join(home, ".config", "systemd", "user", "asm.service")),
      Deno.errors.NotFound,
      "no unit",
    );

    // ASM_HOME=data from the folder the person is in: that folder's data/, written absolute into the unit
    const relative = { ...worldEnv(root, home, systemctl.bin, "data") };
    const caller = join(root, "work");
    Deno.mkdirSync(caller);
    const out = await new Deno.Command(ASM, {
      args: ["install", "--no-canary", "--no-agent-env", "--agent", "claude"],
      env: relative,
      clearEnv: true,
      cwd: caller,
      stdin: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.ok(Deno.statSync(join(caller, "data", "bin", "asm-hook")).isFile, text);
    const unit = Deno.readTextFileSync(join(home, ".config", "systemd", "user", "asm.service"));
    assert.ok(unit.includes(`\nEnvironment="ASM_HOME=${join(caller, "data")}"\n`), unit);
    assert.ok(unit.includes(`\nEnvironmentFile=-${join(caller, "data")}/agents.env\n`), unit);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
