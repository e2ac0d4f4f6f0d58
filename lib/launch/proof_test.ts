import assert from "node:assert/strict";
import { loadAgents } from "../agents/mod.ts";
import type { ProcInfo } from "../procs/mod.ts";
import { paneCarrying, proveRun } from "./proof.ts";

const agent = loadAgents({ asmHome: "/nonexistent-asm-home" })[0];
const isAgent = (_a: unknown, exe: string | null) => exe === "/opt/agent";

function table(...procs: [pid: number, ppid: number, ticks: number, exe: string][]): Map<number, ProcInfo> {
  return new Map(
    procs.map(([pid, ppid, startTicks, exe]) => [pid, { pid, ppid, startTicks, exe, argv: [exe] }]),
  );
}

Deno.test("a run is proven only by its pid, its start ticks, its boot and the agent's program, together", () => {
  const procs = table([10, 1, 500, "/opt/agent"], [11, 1, 600, "/usr/bin/vim"]);
  const rows: [Parameters<typeof proveRun>[0], string | null][] = [
    [{ pid: 10, proc_start: 500, boot_id: "b1" }, null],
    [{ pid: 10, proc_start: 500, boot_id: null }, null],
    [{ pid: 12, proc_start: 500, boot_id: "b1" }, "is gone"],
    [{ pid: 10, proc_start: 499, boot_id: "b1" }, "now belongs to another process"],
    [{ pid: 10, proc_start: 500, boot_id: "b0" }, "before the machine last started"],
    [{ pid: 11, proc_start: 600, boot_id: "b1" }, "is not Claude Code"],
  ];
  for (const [run, why] of rows) {
    const proof = proveRun(run, agent, procs, "b1", isAgent);
    if (why === null) assert.equal(proof.ok, true, JSON.stringify(run));
    else {assert.equal(
        !proof.ok && proof.why.includes(why),
        true,
        `${JSON.stringify(run)}: ${JSON.stringify(proof)}`,
      );}
  }
});

Deno.test("the pane carrying a process is the nearest pane process among its ancestors", () => {
  // tmux server 5 -> pane shim 20 -> agent 30 -> tool 40; another pane 21 elsewhere
  const procs = table([5, 1, 1, "/usr/bin/tmux"], [20, 5, 2, "/deno"], [30, 20, 3, "/opt/agent"], [
    40,
    30,
    4,
    "/bin/sh",
  ], [
    21,
    5,
    5,
    "/deno",
  ]);
  const panes = [
    { session: "asm", windowId: "@1", paneId: "%1", panePid: 21 },
    { session: "asm", windowId: "@2", paneId: "%2", panePid: 20 },
  ];
  assert.equal(paneCarrying(panes, procs, 30)?.paneId, "%2");
  assert.equal(paneCarrying(panes, procs, 40)?.paneId, "%2");
  assert.equal(paneCarrying(panes, procs, 20)?.paneId, "%2", "a pane's own process is in its pane");
  assert.equal(paneCarrying(panes, procs, 5), null, "the server is in no pane");
  assert.equal(paneCarrying(panes, procs, 999), null, "an unknown pid is in no pane");
});

Deno.test("a parent loop in a broken table ends the walk instead of spinning", () => {
  const procs = table([7, 8, 1, "/a"], [8, 7, 1, "/b"]);
  assert.equal(paneCarrying([], procs, 7), null);
});
