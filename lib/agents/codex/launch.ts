/**
 * Launching Codex (agents/codex.md sections 2, 6 and 9): the argv is in agents.toml (`--no-daemon`, so the
 * window's own process does the work and END stops it); this holds the opener, the folder-trust dialog, and the
 * refusal to END a thread hosted by Codex's shared app-server daemon: signalling its TUI leaves the turn running,
 * and signalling the daemon would stop every other thread it carries.
 * @module
 */
import { join } from "node:path";
import { parse, TomlError } from "smol-toml";
import type { LaunchCapability } from "../protocol.ts";
import { folderAndParents } from "../folder_chain.ts";
import { matchesAny } from "../glob.ts";
import { codexConfigPath } from "./hook_config.ts";
import { parseFlocks, threadLocksDir } from "./live.ts";
import { isRecord } from "../../lang/mod.ts";

/** Where the daemon's own copy of the binary runs from. */
const DAEMON_EXE = ["**/packages/app-server-daemon/releases/*/bin/codex"];

/** The sentence END answers with for a daemon-hosted thread. */
export const CODEX_DAEMON_REFUSAL =
  "this Codex thread runs inside Codex's shared app-server daemon, which also carries its other threads; asm " +
  "will not stop the daemon, and stopping only the window would leave the turn running. Stop it in Codex " +
  "itself: run `codex agents`, select the task and press x";

function trustedProjects(path: string): Record<string, unknown> {
  try {
    const config = parse(Deno.readTextFileSync(path)) as Record<string, unknown>;
    const projects = config.projects;
    return isRecord(projects) ? projects : {};
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return {};
    // an unreadable config is Codex's to complain about; asm only cannot tell whether the folder is trusted
    if (err instanceof TomlError) return {};
    throw err;
  }
}

/** Codex's launch capability. */
export const codexLaunch: LaunchCapability = {
  opener: "Say READY and wait for my next message.",
  waitingReason(folder, env) {
    const projects = trustedProjects(codexConfigPath(env));
    const trusted = folderAndParents(folder).some((f) =>
      (projects[f] as { trust_level?: unknown } | undefined)?.trust_level === "trusted"
    );
    return trusted ? null : "Codex asks whether you trust this folder; answer in its window";
  },
  endRefusal(proc) {
    const daemon = (proc.exe !== null && matchesAny(proc.exe, DAEMON_EXE)) ||
      proc.argv.includes("app-server");
    return daemon ? CODEX_DAEMON_REFUSAL : null;
  },
  threadOf(proc, env, source) {
    // the thread whose writer lock this process holds (a --no-daemon TUI holds its own thread's lock)
    const holders = parseFlocks(source.readText("/proc/locks") ?? "");
    const dir = threadLocksDir(env);
    const held: string[] = [];
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
    for (const entry of entries) {
      const id = entry.name.match(/^([0-9a-zA-Z-]+)\.lock$/)?.[1];
      if (!id) continue;
      try {
        if (holders.get(Deno.statSync(join(dir, entry.name)).ino!) === proc.pid) held.push(id);
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
    }
    return held.length === 1 ? held[0] : null;
  },
};
