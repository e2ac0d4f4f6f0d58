/**
 * A gate is a list of named checks that are RUN, not reasoned about. Each check throws when its consequence
 * does not hold. `./asm verify <gate>` prints one line per check; `*_test.ts` files register each check as a
 * Deno test so `./asm test` runs every gate.
 * @module
 */
import { errorText } from "../lib/lang/mod.ts";

/** One check of a gate. */
export interface Check {
  name: string;
  run(): Promise<void> | void;
}

/** Registers every check of a gate as a Deno test named "<gate>: <check>". */
export function registerGate(
  gate: string,
  checks: () => Check[],
  options: { sanitizeOps?: boolean } = {},
): void {
  for (const check of checks()) {
    Deno.test({
      name: `${gate}: ${check.name}`,
      sanitizeOps: options.sanitizeOps ?? true,
      sanitizeResources: options.sanitizeOps ?? true,
      fn: () => check.run(),
    });
  }
}

/** Runs the checks one by one, printing PASS / FAIL lines; returns the number that failed. */
export async function runChecks(gate: string, checks: Check[]): Promise<number> {
  let failed = 0;
  for (const check of checks) {
    const started = performance.now();
    try {
      await check.run();
      console.log(`PASS ${gate}: ${check.name} (${Math.round(performance.now() - started)} ms)`);
    } catch (err) {
      failed++;
      console.log(`FAIL ${gate}: ${check.name}\n     ${errorText(err)}`);
    }
  }
  console.log(`${checks.length - failed} passed, ${failed} failed`);
  return failed;
}
