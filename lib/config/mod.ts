/**
 * asm's configuration: where things are (`ASM_HOME`, `HOME`, the repository, the harness roots, a command on
 * `PATH`), the server's
 * settings from `config.toml`, and asm's version.
 * @module
 */
export { asmHome, type Env, findOnPath, harnessRoots, homeDir, relativeTo, repoRoot } from "./paths.ts";
export { envNameMatches, loadSettings, type Settings } from "./settings.ts";
export { ASM_VERSION } from "./version.ts";
