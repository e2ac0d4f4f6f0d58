/**
 * Where Codex keeps its files. Its own module: the transcript reader (which a read worker loads alone) needs it,
 * and the hook config around it pulls in the installer's dependencies.
 * @module
 */
import { join, resolve } from "node:path";
// deep on purpose: the read workers load this file; the faces would load smol-toml and the ledger into each
import { homeDir } from "../../config/paths.ts";
import type { Env } from "../../config/mod.ts";

/** `$CODEX_HOME`, else `~/.codex`, as an absolute path (Codex keys trust records by this spelling). */
export function codexHome(env: Env): string {
  return resolve(env.CODEX_HOME || join(homeDir(env), ".codex"));
}
