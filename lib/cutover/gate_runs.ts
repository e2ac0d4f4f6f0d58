/**
 * The record of gate runs the cutover's pre-flight reads: `./asm verify <gate>` appends one line per run to
 * `$ASM_HOME/gate-runs.jsonl` (the data folder of the shell that ran it: the testing setup), so "the last gate
 * run is green" is a fact written down when the gate ran, never remembered.
 * @module
 */
import { join } from "node:path";
import { isRecord } from "../lang/mod.ts";
import type { GateRun } from "./plan.ts";

/** `$ASM_HOME/gate-runs.jsonl`. */
export function gateRunsPath(asmHome: string): string {
  return join(asmHome, "gate-runs.jsonl");
}

/** Appends one gate run (the data folder is made if it is not there yet, private). */
export function recordGateRun(asmHome: string, run: GateRun): void {
  Deno.mkdirSync(asmHome, { recursive: true, mode: 0o700 });
  Deno.writeTextFileSync(gateRunsPath(asmHome), JSON.stringify(run) + "\n", {
    append: true,
    create: true,
    mode: 0o600,
  });
}

/** Every recorded gate run, oldest first; a line that is not a run is skipped. */
export function readGateRuns(asmHome: string): GateRun[] {
  let text: string;
  try {
    text = Deno.readTextFileSync(gateRunsPath(asmHome));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const runs: GateRun[] = [];
  for (const line of text.split("\n")) {
    try {
      const r = JSON.parse(line);
      if (
        isRecord(r) && typeof r.gate === "string" && typeof r.at === "string" && Number.isInteger(r.passed) &&
        Number.isInteger(r.failed)
      ) {
        runs.push({
          gate: r.gate,
          at: r.at,
          passed: r.passed as number,
          failed: r.failed as number,
          commit: typeof r.commit === "string" ? r.commit : null,
        });
      }
    } catch { /* a line cut short or not JSON: not a run */ }
  }
  return runs;
}
