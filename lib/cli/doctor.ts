/**
 * `asm doctor [--json]`: the findings of this machine's asm, printed (or as JSON), exit 0 only when nothing is
 * broken. The server's health is asked of the running server itself, so the doctor and the page say the same.
 * @module
 */
import { asmHome as defaultAsmHome, type Env } from "../config/mod.ts";
import { doctorReport, doctorText, gatherFacts, type HealthSource } from "../doctor/mod.ts";
import { callServer, type HealthModel, runningServer } from "../server/mod.ts";
import { isoAt } from "../ledger/mod.ts";
import { errorText } from "../lang/mod.ts";
import { type CliOutput, consoleOutput } from "./history.ts";

/** The running server's health through its API (the lock named it alive; it must also answer). */
export function askServer(asmHome: string): HealthSource {
  return async () => {
    const server = runningServer(asmHome);
    if (server === null) {
      return { error: "it holds the lock but serves no API (not `asm serve`, or no token)" };
    }
    try {
      const res = await callServer(server, "/api/health", { signal: AbortSignal.timeout(10_000) });
      const body = await res.json() as HealthModel & { error?: string };
      return res.ok
        ? { health: body }
        : { error: `it answered ${res.status}: ${body.error ?? "no reason given"}` };
    } catch (err) {
      return { error: errorText(err) };
    }
  };
}

/** Runs the doctor; returns the exit code (0: nothing broken). */
export async function doctorCli(
  options: { json?: boolean; env?: Env; asmHome?: string; out?: CliOutput } = {},
): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  const asmHome = options.asmHome ?? defaultAsmHome(env);
  const out = options.out ?? consoleOutput();
  const facts = await gatherFacts({ env, asmHome, health: askServer(asmHome) });
  const report = doctorReport(facts, isoAt());
  out.line(options.json ? JSON.stringify(report, null, 2) : doctorText(report));
  return report.ok ? 0 : 1;
}
