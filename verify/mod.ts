/**
 * The gates: `./asm verify <gate>`.
 * @module
 */
import { asmHome } from "../lib/config/mod.ts";
import { recordGateRun } from "../lib/cutover/gate_runs.ts";
import { commitOf } from "../lib/ship/build.ts";
import { type Check, runChecks } from "./gate.ts";

const GATES: Record<string, () => Promise<Check[]>> = {
  "gate0": async () => (await import("./gate0.ts")).gate0Checks(),
  "gate1-hook": async () => (await import("./gate1_hook.ts")).gate1HookChecks(),
  "gate1-live": async () => (await import("./gate1_live.ts")).gate1LiveChecks(),
  "gate2": async () => (await import("./gate2.ts")).gate2Checks(),
  "gate3": async () => (await import("./gate3.ts")).gate3Checks(),
  "gate3-workflowy": async () => (await import("./gate3_workflowy.ts")).gate3WorkflowyChecks(),
};

/** The gates' names, in the order they were built (the command table offers exactly these). */
export const GATE_NAMES: readonly string[] = Object.keys(GATES);

/**
 * `./asm verify <gate>`: runs the gate, prints one line per check, records the run in the data folder's
 * `gate-runs.jsonl` (the cutover's pre-flight reads it), returns the exit code.
 */
export async function runGateCli(
  name: string,
  env: Record<string, string> = Deno.env.toObject(),
): Promise<number> {
  const gate = GATES[name];
  if (!gate) {
    console.error(`asm verify: there is no gate "${name}"; the gates are ${GATE_NAMES.join(", ")}`);
    return 2;
  }
  const checks = await gate();
  const at = new Date().toISOString();
  const failed = await runChecks(name, checks);
  const home = asmHome(env);
  const commit = await commitOf(new URL("..", import.meta.url).pathname);
  recordGateRun(home, { gate: name, at, passed: checks.length - failed, failed, commit });
  console.log(`recorded in ${home}/gate-runs.jsonl`);
  return failed === 0 ? 0 : 1;
}
