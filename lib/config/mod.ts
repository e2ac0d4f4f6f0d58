/**
 * asm's configuration: where things are (`ASM_HOME`, `HOME`, the repository, the harness roots, a command on
 * `PATH`), the server's
 * settings from `config.toml`, and asm's version.
 * @module
 */
export { asmHome, type Env, findOnPath, harnessRoots, homeDir, relativeTo, repoRoot } from "./paths.ts";
export {
  boardKeyFile,
  type BoardListIds,
  boardPath,
  type BoardSettings,
  DEFAULT_LIST_IDS,
  DEFAULT_SETTINGS,
  envNameMatches,
  type LoadedSettings,
  loadSettings,
  type Mode,
  type Settings,
} from "./settings.ts";
export { ASM_VERSION } from "./version.ts";
export { syncedFolderOf, syncedRefusal } from "./synced.ts";
