import assert from "node:assert/strict";
import type { RunRow } from "../ledger/mod.ts";
import { goneRuns } from "./gone.ts";

function run(asm_id: string, pid: number, proc_start: number): RunRow {
  return {
    run_id: pid,
    asm_id,
    pid,
    proc_start,
    boot_id: "b",
    launch_token: null,
    started_at: "2026-11-29T22:00:00.000Z",
    ended_at: null,
    start_source: null,
    end_reason: null,
  };
}

Deno.test("only runs whose process is not the recorded one are gone, grouped by session", () => {
  const open = [run("a", 1, 10), run("a", 2, 20), run("b", 3, 30)];
  const gone = goneRuns(open, (r) => r.pid === 2);
  assert.deepEqual([...gone.entries()], [
    ["a", [{ pid: 1, proc_start: 10 }]],
    ["b", [{ pid: 3, proc_start: 30 }]],
  ]);
});
