/**
 * The import as the server runs it: how often (the full import at start and every 15 minutes, the refresh of
 * transcripts that grew every 10 seconds, live sessions or not), and on which data folder at all. The server
 * owns the one runner (lib/server/state.ts).
 * @module
 */
import { resolve } from "node:path";
import { adapterOf, loadAgents } from "../agents/mod.ts";
import { asmHome, type Env } from "../config/mod.ts";

/** Every 15 minutes (and at start): the full import. */
export const IMPORT_EVERY_MS = 15 * 60_000;
/** Every 10 seconds: re-derive what grew (the refresh path, the watch's safety net between walks). */
export const REFRESH_EVERY_MS = 10_000;
/** Every minute: the transcript folders that exist are watched (one an agent made since is added). */
export const WATCH_ARM_EVERY_MS = 60_000;

/** Every agent's transcript folders (the watch's roots), from agents.toml of the data folder. */
export function transcriptRoots(ctx: { asmHome: string; env: Env }): string[] {
  return loadAgents({ asmHome: ctx.asmHome, env: ctx.env }).flatMap((agent) =>
    adapterOf(agent).transcripts?.stores(ctx.env) ?? []
  );
}

/**
 * True when the server's data folder is the one its environment names (`ASM_HOME`, else `~/.asm`): the agents'
 * homes in that environment are then the same person's. A server started on another data folder (a test's
 * scratch folder, a copy) must not go and read the transcripts of whoever happens to run it; `POST /api/import`
 * (a deliberate request) still imports.
 */
export function ownsAgentHomes(ctx: { asmHome: string; env: Env }): boolean {
  try {
    return resolve(asmHome(ctx.env)) === resolve(ctx.asmHome);
  } catch {
    return false; // no HOME: no agents' homes to read
  }
}
