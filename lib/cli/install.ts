/**
 * `./asm install` and `./asm uninstall`: the hook installer with its canary, as a person reads it.
 * @module
 */
import { asmHome, findOnPath } from "../config/mod.ts";
import type { InstallResult } from "../agents/protocol.ts";
import { loadAgents } from "../agents/mod.ts";
import { installHooks, runCanary, uninstallHooks } from "../install/mod.ts";

/** Options of {@link installCli}. */
export interface InstallCliOptions {
  /** Agent names; empty means every agent whose command is on PATH. */
  agents: string[];
  /** Run the canary after installing (one small model call per agent on a real machine). */
  canary: boolean;
}

function describe(result: InstallResult): string {
  switch (result.kind) {
    case "Installed":
      return `installed (${result.files.join(", ")}; each backed up first)`;
    case "AlreadyInstalled":
      return "already installed; nothing written";
    case "NotInstalled":
      return `not installed: ${result.reason}`;
  }
}

/** Runs the command, prints one block per agent, returns the exit code (1 when anything needs attention). */
export async function installCli(
  command: "install" | "uninstall",
  options: InstallCliOptions,
): Promise<number> {
  const env = Deno.env.toObject();
  const home = asmHome(env);
  const all = loadAgents({ asmHome: home, env });
  if (command === "uninstall") {
    const reports = uninstallHooks({
      env,
      asmHome: home,
      agents: options.agents.length ? options.agents : undefined,
    });
    for (const r of reports) {
      console.log(`${r.agent}: ${r.restored ? "restored from its backup" : "asm's entries removed"}`);
      for (const note of r.notes) console.log(`  ${note}`);
    }
    return 0;
  }
  let names = options.agents;
  const absent: string[] = [];
  if (names.length === 0) {
    names = all.filter((a) => findOnPath(a.command, env) !== null).map((a) => a.name);
    for (const a of all) if (!names.includes(a.name)) absent.push(a.name);
  }
  let status = 0;
  for (const name of absent) {
    const agent = all.find((a) => a.name === name)!;
    console.log(
      `${name}: not installed: no "${agent.command}" on PATH (use --agent ${name} to install it anyway)`,
    );
  }
  if (names.length === 0) return 1;
  const results = installHooks({ env, asmHome: home, agents: names });
  for (const result of results) {
    console.log(`${result.agent}: ${describe(result)}`);
    if (result.kind === "NotInstalled") {
      status = 1;
      continue;
    }
    for (const note of result.notes) console.log(`  note: ${note}`);
    if (result.trust?.state === "needs-review") {
      status = 1;
      console.log(`  hooks need your approval: ${result.trust.advice}`);
    }
    if (!options.canary) {
      result.canary = { kind: "skipped", detail: "canary skipped (--no-canary)" };
    } else {
      const agent = all.find((a) => a.name === result.agent)!;
      console.log(`  canary: running one small ${agent.display} session in a scratch folder ...`);
      result.canary = (await runCanary({ agent, env, asmHome: home })).outcome;
      if (result.canary.kind === "failed") status = 1;
    }
    console.log(`  canary ${result.canary.kind}: ${result.canary.detail}`);
  }
  return status;
}
