/**
 * `asm install` and `asm uninstall`, as a person reads them: the hooks of every agent found (each with its
 * canary), autostart as a systemd user unit with the agents' variables the person agreed to copy, and the
 * page's address last. Idempotent; uninstall undoes all of it and keeps the data folder unless `--purge`.
 * @module
 */
import { join } from "node:path";
import { asmHome, findOnPath, syncedRefusal } from "../config/mod.ts";
import type { InstallResult } from "../agents/protocol.ts";
import { loadAgents } from "../agents/mod.ts";
import { hookRuntime, installHooks, runCanary, uninstallHooks, wrapperPath } from "../install/mod.ts";
import { wrapperPathProblem } from "../agents/mod.ts";
import { agentEnvNames, installAutostart, type Systemctl, uninstallAutostart } from "../install/autostart.ts";
import { currentHolder } from "../server/lock.ts";
import { runningServer } from "../server/client.ts";
import { openCli } from "./open.ts";

/** Options of {@link installCli}. */
export interface InstallCliOptions {
  /** Agent names; empty means every agent whose command is on PATH. */
  agents: string[];
  /** Run the canary after installing (one small model call per agent on a real machine). */
  canary: boolean;
  /** Install the autostart unit (default true for install). */
  autostart?: boolean;
  /** Copy the agents' variables for the autostarted server: true / false, or undefined to ask at a terminal. */
  agentEnv?: boolean;
  /** uninstall: remove the data folder too. */
  purge?: boolean;
  /** The environment (default: the process's). */
  env?: Record<string, string>;
  /** The systemctl runner (tests record it). */
  systemctl?: Systemctl;
  /** How long install waits for the autostarted server before giving its address (ms). */
  openWaitMs?: number;
}

/** Asks a question at a terminal whose answer is yes unless the person says no. */
function askYes(question: string): boolean {
  const answer = prompt(`${question} [Y/n]`);
  return answer === null || !/^n(o)?$/i.test(answer.trim());
}

/** Asks a yes/no question at a terminal; false without one. */
function ask(question: string): boolean {
  if (!Deno.stdin.isTerminal()) return false;
  const answer = prompt(`${question} [y/N]`);
  return answer !== null && /^y(es)?$/i.test(answer.trim());
}

function describe(result: InstallResult): string {
  switch (result.kind) {
    case "Installed":
      // a file asm created had nothing to back up (its note says it was created)
      return `installed (${result.files.join(", ")}; a file that was there is backed up first)`;
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
  const env = options.env ?? Deno.env.toObject();
  const home = asmHome(env);
  const all = loadAgents({ asmHome: home, env });
  if (command === "uninstall") return await uninstall(options, env, home);
  const synced = syncedRefusal(home);
  if (synced !== null) {
    console.error(`asm install: ${synced}`);
    return 1;
  }
  // a data folder no hook command can name is refused before anything is written (the unit, the variables)
  const unusable = wrapperPathProblem(wrapperPath(home));
  if (unusable !== null) {
    console.error(`asm install: ${unusable}`);
    return 1;
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
  if (names.length === 0) {
    console.log(
      `no agent found on PATH (${
        all.map((a) => a.command).join(", ")
      }): install one, then run asm install again`,
    );
    return 1;
  }
  let canary = options.canary;
  if (canary) {
    const check =
      "to check each agent's hooks, install runs one small session of it in a scratch folder: one model " +
      "request per agent, on your account";
    // a person at a terminal is asked; a script (no terminal) gets what it asked for (--no-canary skips it)
    if (Deno.stdin.isTerminal()) {
      canary = askYes(`${check}. Run them?`);
      if (!canary) console.log("the checks were skipped; asm install runs them another time");
    } else console.log(`${check} (--no-canary skips it)`);
  }
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
    if (!canary) {
      result.canary = {
        kind: "skipped",
        detail: options.canary ? "you chose not to run it" : "--no-canary was given",
      };
    } else {
      const agent = all.find((a) => a.name === result.agent)!;
      console.log(`  canary: running one small ${agent.display} session in a scratch folder ...`);
      result.canary = (await runCanary({ agent, env, asmHome: home })).outcome;
      if (result.canary.kind === "failed") status = 1;
    }
    console.log(`  canary ${result.canary.kind}: ${result.canary.detail}`);
  }
  let enabled = false;
  if (options.autostart !== false) {
    const names = agentEnvNames(all, env);
    const copy = options.agentEnv ??
      (names.length > 0 &&
        ask(
          `Copy ${names.join(", ")} from this shell into ${
            join(home, "agents.env")
          } (0600) for the autostarted ` +
            "server?",
        ));
    if (options.agentEnv === undefined && names.length > 0 && !copy) {
      console.log(
        `the agents' variables (${names.join(", ")}) were not copied for the autostarted server; ` +
          "`asm install --agent-env` copies them",
      );
    }
    const report = await installAutostart({
      env,
      asmHome: home,
      agents: all,
      copyAgentEnv: copy,
      systemctl: options.systemctl,
    });
    for (const line of report.lines) console.log(line);
    if (report.attention) status = 1;
    enabled = report.enabled;
  }
  // the address last: the page with its one-time key, once a server answers (the unit just enabled starts one)
  const deadline = Date.now() + (enabled ? options.openWaitMs ?? 10_000 : 0);
  // a server is there once its lock names the port it bound (and the token it serves with is written)
  while (runningServer(home) === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
  }
  if (runningServer(home) !== null) {
    await openCli({
      env,
      print: true,
      out: (l) => console.log(`open ${l}`),
    });
  } else {console.log(
      "asm is not running yet: start it (`asm serve`, or autostart), then `asm open` shows the page",
    );}
  return status;
}

async function uninstall(
  options: InstallCliOptions,
  env: Record<string, string>,
  home: string,
): Promise<number> {
  const reports = uninstallHooks({
    env,
    asmHome: home,
    agents: options.agents.length ? options.agents : undefined,
  });
  for (const r of reports) {
    console.log(`${r.agent}: ${r.restored ? "restored from its backup" : "asm's entries removed"}`);
    for (const note of r.notes) console.log(`  ${note}`);
  }
  // only a whole uninstall undoes what is shared by every agent
  if (options.agents.length > 0) return 0;
  const autostart = await uninstallAutostart({ env, asmHome: home, systemctl: options.systemctl });
  for (const line of autostart.lines) console.log(line);
  const runtime = hookRuntime(home);
  for (const file of [wrapperPath(home), runtime.deno, runtime.hook]) {
    try {
      Deno.removeSync(file);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  console.log(`removed the hook and its runtime from ${join(home, "bin")}`);
  const holder = currentHolder(home);
  if (!options.purge) {
    console.log(`kept the data folder ${home} (the ledger, the board, the logs); --purge removes it`);
    if (holder !== null) console.log(`asm (pid ${holder.pid}) is still running; asm stop stops it`);
    return 0;
  }
  if (holder !== null) {
    console.error(
      `asm uninstall: asm (pid ${holder.pid}) still uses ${home}; run asm stop, then asm uninstall --purge again`,
    );
    return 1;
  }
  Deno.removeSync(home, { recursive: true });
  console.log(`removed the data folder ${home}`);
  // the program itself is not asm's data: the file and what its first run unpacked stay until you remove them
  if (env.ASM_FILE) {
    console.log(
      `the program stays: ${env.ASM_FILE}, and what its first run unpacked in ` +
        `${env.XDG_CACHE_HOME || join(env.HOME ?? "~", ".cache")}/asm/ (remove both to remove asm entirely)`,
    );
  }
  return 0;
}
