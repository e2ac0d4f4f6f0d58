import assert from "node:assert/strict";
import { join } from "node:path";
import { CODEX_DAEMON_REFUSAL, codexLaunch } from "./launch.ts";
import { codexOffline } from "./offline.ts";

Deno.test("Codex waits on the user in a folder it does not trust, and not in a trusted one", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-codex-launch-" });
  try {
    const env = { HOME: home, CODEX_HOME: join(home, ".codex") };
    assert.match(codexLaunch.waitingReason!("/work/p", env)!, /trust this folder/, "no config at all");
    codexOffline.prepare({ home, fakeUrl: "http://127.0.0.1:9", trustFolders: ["/work"] });
    assert.equal(codexLaunch.waitingReason!("/work/p", env), null);
    assert.match(codexLaunch.waitingReason!("/elsewhere", env)!, /trust this folder/);
    Deno.writeTextFileSync(join(home, ".codex", "config.toml"), "projects = [");
    assert.match(
      codexLaunch.waitingReason!("/work/p", env)!,
      /trust this folder/,
      "an unreadable config proves nothing",
    );
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("END refuses a Codex thread hosted by the shared daemon, and allows a --no-daemon TUI", () => {
  const daemon = {
    pid: 1,
    exe: "/h/.codex/packages/app-server-daemon/releases/0.169.0-x86_64-unknown-linux-musl/bin/codex",
    argv: ["codex", "app-server", "--listen", "unix://", "--managed-daemon"],
  };
  assert.equal(codexLaunch.endRefusal!(daemon), CODEX_DAEMON_REFUSAL);
  const tui = {
    pid: 2,
    exe: "/a/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    argv: ["codex", "--no-daemon", "--", "hello"],
  };
  assert.equal(codexLaunch.endRefusal!(tui), null);
});
