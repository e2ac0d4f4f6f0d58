import assert from "node:assert/strict";
import { join } from "node:path";
import { readProc } from "../procs/mod.ts";
import { TerminalHostError } from "./terminal_host.ts";
import { testTmux, waitFor } from "./_test_utils.ts";
import { tmuxClientEnv, tmuxConfigFromEnv, tmuxHost, tmuxLiteral } from "./tmux.ts";

Deno.test("a window opens in the asm session running the argv itself, and closes when its process exits", async () => {
  await using t = testTmux();
  assert.equal(await t.host.windowCount(), 0, "no server yet: no windows");
  const opened = await t.host.open({ name: "one", argv: ["sleep", "30"] });
  const second = await t.host.open({ name: "two", argv: ["sleep", "31"] });
  assert.equal(await t.host.windowCount(), 2);
  const panes = await t.host.panes();
  assert.deepEqual(panes.map((p) => [p.session, p.windowId, p.paneId, p.panePid]), [
    ["asm", opened.windowId, opened.paneId, opened.panePid],
    ["asm", second.windowId, second.paneId, second.panePid],
  ]);
  // no shell in between: the pane's process is the command itself
  assert.deepEqual(readProc(opened.panePid)?.argv, ["sleep", "30"]);
  Deno.kill(opened.panePid, "SIGTERM");
  await waitFor(async () => (await t.host.windowCount()) === 1, "the window of the ended process closes");
  assert.deepEqual((await t.host.panes()).map((p) => p.windowId), [second.windowId]);
});

Deno.test("a window closes on exit even when the tmux config keeps dead panes", async () => {
  await using t = testTmux();
  await t.host.open({ name: "keep", argv: ["sleep", "30"] });
  assert.equal((await t.tmux(["set-option", "-g", "remain-on-exit", "on"])).ok, true);
  const opened = await t.host.open({ name: "mine", argv: ["sleep", "30"] });
  Deno.kill(opened.panePid, "SIGTERM");
  await waitFor(async () => (await t.host.windowCount()) === 1, "asm's window closes despite remain-on-exit");
});

Deno.test("typed text arrives in the pane literally, followed by Enter", async () => {
  await using t = testTmux();
  const dir = Deno.makeTempDirSync({ prefix: "asm-tmux-test-" });
  try {
    const file = join(dir, "typed.txt");
    const opened = await t.host.open({ name: "cat", argv: ["sh", "-c", `cd ${dir} && head -n 1 > ${file}`] });
    const text = "/compact keep $(this) `and` ; that #(touch typed-marker) #{pane_id} ##";
    await t.host.type(opened.paneId, text);
    await waitFor(() => (Deno.statSync(file).size > 0 ? true : undefined), "the line was written");
    assert.equal(Deno.readTextFileSync(file), text + "\n");
    assert.equal([...Deno.readDirSync(dir)].some((e) => e.name === "typed-marker"), false);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a host whose server is not running has no panes and no windows", async () => {
  await using t = testTmux();
  assert.deepEqual(await t.host.panes(), []);
  assert.equal(await t.host.windowCount(), 0);
});

Deno.test("ASM_TMUX_SOCKET names the tmux server or its socket, and its absence means the default one", () => {
  assert.deepEqual(tmuxConfigFromEnv({ ASM_TMUX_SOCKET: "x1" }), { socketName: "x1" });
  assert.deepEqual(tmuxConfigFromEnv({ ASM_TMUX_SOCKET: "/run/x/tmux.sock" }), {
    socketPath: "/run/x/tmux.sock",
  });
  assert.deepEqual(tmuxConfigFromEnv({}), {});
});

/** A tmux that records every argv it is given (NUL-separated, one line per call), then runs the real one. */
function recordingTmux(dir: string, before = ""): { path: string; calls(): string[][] } {
  const real = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  assert.ok(real, "tmux is installed");
  const log = join(dir, "calls");
  const path = join(dir, "tmux");
  Deno.writeTextFileSync(
    path,
    `#!/bin/sh\nprintf '%s\\0' "$@" >> '${log}'\necho >> '${log}'\n${before}\nexec ${real} "$@"\n`,
  );
  Deno.chmodSync(path, 0o700);
  return {
    path,
    calls: () => Deno.readTextFileSync(log).split("\0\n").filter(Boolean).map((line) => line.split("\0")),
  };
}

Deno.test("a server that goes down between has-session and new-window gets a fresh session, and the window opens", async () => {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-tmux-test-" }));
  await using t = testTmux();
  // the first new-window finds the server gone: the last window closed a moment before, as a person's X does
  const recorder = recordingTmux(
    dir,
    `case " $* " in *" new-window "*) [ -e '${dir}/torn' ] || { touch '${dir}/torn'; tmux -S '${t.socketPath}' kill-server; } ;; esac`,
  );
  try {
    const host = tmuxHost({ tmux: recorder.path, socketPath: t.socketPath });
    await host.open({ name: "first", argv: ["sleep", "30"] });
    const opened = await host.open({ name: "second", argv: ["sleep", "30"] });
    const panes = await host.panes();
    assert.deepEqual(
      panes.map((p) => p.windowId),
      [opened.windowId],
      "the new window, alive, in a fresh server",
    );
    const verbs = recorder.calls().map((c) => c.find((a) => /^(has-session|new-session|new-window)$/.test(a)))
      .filter(Boolean);
    assert.deepEqual(verbs, [
      "has-session",
      "new-session",
      "has-session",
      "new-window",
      "has-session",
      "new-session",
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the host never gives tmux a working folder, and doubles every # in the names it gives", async () => {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-tmux-test-" }));
  const recorder = recordingTmux(dir);
  // the session name and the window name both reach tmux arguments that tmux expands formats in
  await using t = testTmux({ tmux: recorder.path, session: "asm#{session_id}" });
  try {
    const name = `n#(touch ${dir}/name-marker)#{pane_id}`;
    const opened = await t.host.open({ name, argv: ["sleep", "30"] });
    await t.host.open({ name: "second", argv: ["sleep", "30"] });
    const listed = await t.tmux([
      "list-windows",
      "-a",
      "-F",
      "#{session_name}\t#{window_id}\t#{window_name}",
    ]);
    assert.equal(listed.out.includes(`asm#{session_id}\t${opened.windowId}\t${name}\n`), true, listed.out);
    assert.equal(
      await t.host.windowCount(),
      2,
      "the second window opened in the same, literally named session",
    );
    const calls = recorder.calls();
    assert.ok(calls.some((c) => c.includes("new-session")) && calls.some((c) => c.includes("new-window")));
    assert.deepEqual(calls.filter((c) => c.includes("-c")), [], "no -c");
    assert.equal(calls.some((c) => c.includes(tmuxLiteral(name))), true);
    assert.deepEqual([...Deno.readDirSync(dir)].filter((e) => e.name === "name-marker"), [], "nothing ran");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a command in a folder named with # and $ runs from exactly that path: tmux expands no argument of it", async () => {
  await using t = testTmux();
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-tmux-test-" }));
  try {
    // $ASM_HOME (where the launcher scripts are) may itself hold any of these
    const folder = join(root, "home #(touch path-marker) #{pane_id} $(touch path-marker)");
    Deno.mkdirSync(folder);
    const script = join(folder, "launcher.sh");
    const out = join(root, "out");
    Deno.writeTextFileSync(script, `printf '%s\\0' "$0" "$1" > '${out}'\n`);
    await t.host.open({ name: "path", argv: ["/bin/sh", script, "tok#{pane_id}"] });
    const fields = await waitFor(() => {
      try {
        return Deno.readTextFileSync(out).split("\0").slice(0, 2);
      } catch {
        return undefined;
      }
    }, "the script ran");
    assert.deepEqual(fields, [script, "tok#{pane_id}"]);
    assert.deepEqual(
      [...Deno.readDirSync(root), ...Deno.readDirSync(Deno.cwd())].filter((e) => e.name === "path-marker"),
      [],
    );
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a one-string command, which tmux would hand to a shell, is refused and opens nothing", async () => {
  await using t = testTmux();
  await assert.rejects(
    t.host.open({ name: "sh", argv: ["sleep 30; touch shell-marker"] }),
    (err) => err instanceof TerminalHostError && /at least one argument/.test(err.message),
  );
  assert.equal(await t.host.windowCount(), 0);
});

Deno.test("a tmux server the host starts holds none of asm's environment beyond the login basics", async () => {
  const planted = `ASM_TMUX_TEST_PLANTED_${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
  const picked = tmuxClientEnv({
    HOME: "/h",
    PATH: "/bin",
    LANG: "C.UTF-8",
    TMUX_TMPDIR: "/run/t",
    TMUX: "/tmp/tmux-1/default,1,0",
    OPENAI_API_KEY: "sk",
    [planted]: "x",
  });
  assert.deepEqual(picked, { HOME: "/h", PATH: "/bin", LANG: "C.UTF-8", TMUX_TMPDIR: "/run/t" });
  // the default: the host reads this process's environment when it is made
  Deno.env.set(planted, "secret");
  try {
    await using t = testTmux();
    const host = tmuxHost({ socketPath: t.socketPath });
    Deno.env.delete(planted);
    await host.open({ name: "env", argv: ["sleep", "30"] });
    const global = await t.tmux(["show-environment", "-g"]);
    assert.equal(global.ok, true);
    assert.equal(global.out.includes(planted), false, global.out);
    assert.match(global.out, /^PATH=/m);
  } finally {
    Deno.env.delete(planted);
  }
});

Deno.test("a tmux client without a locale still says which window it opened, and session names keep their spaces", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "asm-tmux-locale-" });
  const socketPath = `${dir}/tmux.sock`;
  // no LANG, LC_ALL or LC_CTYPE: tmux then prints a tab in a format as "_"
  const env = { PATH: "/usr/bin:/bin", HOME: dir, TMUX_TMPDIR: dir };
  const host = tmuxHost({ socketPath, session: "asm with spaces", env });
  try {
    const opened = await host.open({ name: "plain", argv: ["/bin/sleep", "30"] });
    assert.match(opened.windowId, /^@\d+$/);
    assert.match(opened.paneId, /^%\d+$/);
    const panes = await host.panes();
    assert.deepEqual(
      panes.map((p) => [p.session, p.windowId, p.paneId]),
      [["asm with spaces", opened.windowId, opened.paneId]],
    );
  } finally {
    await new Deno.Command("tmux", { args: ["-S", socketPath, "kill-server"], env, clearEnv: true }).output();
    Deno.removeSync(dir, { recursive: true });
  }
});
