import assert from "node:assert/strict";
import {
  ancestry,
  bootId,
  identityOf,
  isSameProcess,
  parseStat,
  type ProcSource,
  readProc,
  snapshot,
} from "./proc_table.ts";

Deno.test("stat parsing survives a command name with spaces and parentheses", () => {
  const text = "4242 (my (odd) name) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 51082 1000 10 0";
  assert.deepEqual(parseStat(text), { ppid: 17, startTicks: 51082 });
});

Deno.test("this test process is found with its parent and a stable identity", () => {
  const me = readProc(Deno.pid)!;
  assert.equal(me.ppid > 0, true);
  assert.equal(me.exe, Deno.execPath());
  const id = identityOf(Deno.pid)!;
  assert.equal(isSameProcess(id), true);
  assert.equal(ancestry(Deno.pid)[0].pid, me.ppid);
  assert.equal(snapshot().has(Deno.pid), true);
  assert.match(bootId() ?? "", /^[0-9a-f-]{36}$/);
});

Deno.test("a recycled pid (same pid, other start ticks) is not the recorded process", () => {
  const id = identityOf(Deno.pid)!;
  assert.equal(isSameProcess({ ...id, procStart: id.procStart + 1 }), false);
  assert.equal(isSameProcess({ ...id, bootId: "another-boot" }), false);
});

Deno.test("a process that exited is not alive, whatever was recorded", async () => {
  const child = new Deno.Command("sleep", { args: ["30"] }).spawn();
  const id = identityOf(child.pid)!;
  assert.equal(isSameProcess(id), true);
  child.kill("SIGKILL");
  await child.status;
  assert.equal(isSameProcess(id), false);
});

Deno.test("a fake /proc is read through the same interface", () => {
  const files: Record<string, string> = {
    "/proc/10/stat": "10 (agent) S 1 10 10 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 555 0 0",
    "/proc/10/cmdline": "node\0/x/gemini.js\0",
    "/proc/sys/kernel/random/boot_id": "b\n",
  };
  const fake: ProcSource = {
    readText: (p) => files[p] ?? null,
    readLink: (p) => (p === "/proc/10/exe" ? "/usr/bin/node" : null),
    listPids: () => [10, 11],
  };
  assert.deepEqual(readProc(10, fake), {
    pid: 10,
    ppid: 1,
    startTicks: 555,
    exe: "/usr/bin/node",
    argv: ["node", "/x/gemini.js"],
  });
  assert.equal(snapshot(fake).size, 1);
  assert.equal(isSameProcess({ pid: 10, procStart: 555, bootId: "b" }, fake), true);
});
