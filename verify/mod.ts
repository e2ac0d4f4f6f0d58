/**
 * The gates: `./asm verify <gate>`.
 * @module
 */
import { type Check, runChecks } from "./gate.ts";

const GATES: Record<string, () => Promise<Check[]>> = {
  "gate0": async () => (await import("./gate0.ts")).gate0Checks(),
  "gate1-hook": async () => (await import("./gate1_hook.ts")).gate1HookChecks(),
  "gate1-live": async () => (await import("./gate1_live.ts")).gate1LiveChecks(),
  "gate2": async () => (await import("./gate2.ts")).gate2Checks(),
};

/** `./asm verify <gate>`: runs the gate, prints one line per check, returns the exit code. */
export async function runGateCli(args: string[]): Promise<number> {
  const name = args[0];
  const gate = name ? GATES[name] : undefined;
  if (!gate) {
    console.error(`asm verify: name a gate: ${Object.keys(GATES).join(", ")}`);
    return 2;
  }
  return (await runChecks(name, await gate())) === 0 ? 0 : 1;
}
