/**
 * The import as the server runs it: one runner per server (its ledger), the import service (at start and every
 * 15 minutes) and the refresh service (transcripts that grew, every 10 seconds, live sessions or not).
 * @module
 */
import { resolve } from "node:path";
import { asmHome, harnessRoots } from "../config/paths.ts";
import type { ServerContext } from "../server/router.ts";
import { type ImportRunner, importRunner } from "./runner.ts";

/** The import runner of the server whose context this is. */
export function runnerFor(ctx: ServerContext): ImportRunner {
  return importRunner({
    ledger: ctx.ledger,
    asmHome: ctx.asmHome,
    env: ctx.env,
    log: ctx.log,
    harnessRoots: harnessRoots(ctx.asmHome),
  });
}

/** Every 15 minutes (and at start): the full import. */
export const IMPORT_EVERY_MS = 15 * 60_000;
/** Every 10 seconds: re-derive what grew (the refresh path). */
export const REFRESH_EVERY_MS = 10_000;

/**
 * True when the server's data folder is the one its environment names (`ASM_HOME`, else `~/.asm`): the agents'
 * homes in that environment are then the same person's. A server started on another data folder (a test's
 * scratch folder, a copy) must not go and read the transcripts of whoever happens to run it; `POST /api/import`
 * (a deliberate request) still imports.
 */
export function ownsAgentHomes(ctx: Pick<ServerContext, "asmHome" | "env">): boolean {
  try {
    return resolve(asmHome(ctx.env)) === resolve(ctx.asmHome);
  } catch {
    return false; // no HOME: no agents' homes to read
  }
}

/** The import service's run. */
export async function importService(ctx: ServerContext): Promise<void> {
  if (ownsAgentHomes(ctx)) await runnerFor(ctx).full();
}

/** The refresh service's run. */
export async function refreshService(ctx: ServerContext): Promise<void> {
  if (ownsAgentHomes(ctx)) await runnerFor(ctx).refresh();
}
