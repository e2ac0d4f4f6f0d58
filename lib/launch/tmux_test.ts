import assert from "node:assert/strict";
import { join } from "node:path";
import { readProc } from "../procs/mod.ts";
import { testTmux, waitFor } from "./testing.ts";
import { tmuxConfigFromEnv } from "./tmux.ts";

Deno.test("a window opens in the asm session running the argv itself, and closes when its process exits", async () => {
  await using t = testTmux();
  assert.equal(await t.host.windowCount(), 0, "no server yet: no windows");
  const opened = await t.host.open({ name: "one", cwd: "/", argv: ["sleep", "30"] });
  const second = await t.host.open({ name: "two", cwd: "/", argv: ["sleep", "31"] });
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
  await t.host.open({ name: "keep", cwd: "/", argv: ["sleep", "30"] });
  assert.equal((await t.tmux(["set-option", "-g", "remain-on-exit", "on"])).ok, true);
  const opened = await t.host.open({ name: "mine", cwd: "/", argv: ["sleep", "30"] });
  Deno.kill(opened.panePid, "SIGTERM");
  await waitFor(async () => (await t.host.windowCount()) === 1, "asm's window closes despite remain-on-exit");
});

Deno.test("typed text arrives in the pane literally, followed by Enter", async () => {
  await using t = testTmux();
  const dir = Deno.makeTempDirSync({ prefix: "asm-tmux-test-" });
  try {
    const file = join(dir, "typed.txt");
    const opened = await t.host.open({ name: "cat", cwd: dir, argv: ["sh", "-c", `head -n 1 > ${file}`] });
    const text = "/compact keep $(this) `and` ; that";
    await t.host.type(opened.paneId, text);
    await waitFor(() => (Deno.statSync(file).size > 0 ? true : undefined), "the line was written");
    assert.equal(Deno.readTextFileSync(file), text + "\n");
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
