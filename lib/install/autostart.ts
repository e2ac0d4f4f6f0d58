/**
 * Autostart: asm as a systemd user unit (`~/.config/systemd/user/asm.service`), started at login. The unit runs
 * the same asm the person installed from (the one downloaded file, or a checkout's `./asm`) with the PATH of the
 * installing shell, so `claude`, `codex` and `gemini` resolve for the server as they do for the person, and an
 * `EnvironmentFile` (0600, in the data folder) holding the agents' own variables the person agreed to copy. Where
 * no user manager runs, nothing is enabled and the exact command is given with the reason.
 * @module
 */
import { dirname, join } from "node:path";
import { type AgentConfig } from "../agents/mod.ts";
import { type Env, envNameMatches, homeDir, repoRoot } from "../config/mod.ts";
import { runBounded } from "../procs/mod.ts";

/** The unit's name. */
export const UNIT_NAME = "asm.service";

/** `${XDG_CONFIG_HOME:-~/.config}/systemd/user/asm.service`. */
export function unitPath(env: Env): string {
  return join(env.XDG_CONFIG_HOME || join(homeDir(env), ".config"), "systemd", "user", UNIT_NAME);
}

/** The agents' variables the autostarted server reads: `$ASM_HOME/agents.env`. */
export function agentEnvPath(asmHome: string): string {
  return join(asmHome, "agents.env");
}

/** The program asm runs as: the one downloaded file (ASM_FILE, set by its header), else the checkout's `./asm`. */
export function selfCommand(env: Env): string {
  return env.ASM_FILE || join(repoRoot(), "asm");
}

/** A value systemd cannot carry (a newline or another control character): refused with a sentence. */
export class UnitValueError extends Error {
  override name = "UnitValueError";
}

function plain(value: string, what: string): string {
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(value)) {
    throw new UnitValueError(
      `${what} holds a newline or control character, which a systemd unit cannot carry`,
    );
  }
  return value;
}

/**
 * One word of a unit line, quoted for systemd: double quotes with `\` and `"` escaped, `%` doubled (systemd's
 * specifiers), and in an ExecStart `$` doubled too (systemd expands variables there).
 */
export function systemdWord(value: string, options: { exec?: boolean; what?: string } = {}): string {
  let text = plain(value, options.what ?? "a value").replaceAll("\\", "\\\\").replaceAll('"', '\\"')
    .replaceAll("%", "%%");
  if (options.exec) text = text.replaceAll("$", "$$$$");
  return `"${text}"`;
}

/** What the unit says. */
export interface UnitFacts {
  /** The program and its arguments. */
  execStart: string[];
  /** The PATH the server runs with (the installing shell's). */
  path: string;
  /** The data folder when the installing shell named one (ASM_HOME), so the unit serves the same folder. */
  asmHome: string | null;
  environmentFile: string;
}

/** The unit file's text. Throws {@link UnitValueError} for a value a unit cannot carry. */
export function renderUnit(facts: UnitFacts): string {
  const lines = [
    "# written by `asm install` (or `asm cutover`); `asm uninstall` (or `asm rollback`) removes it",
    "[Unit]",
    "Description=asm, the AI Session Manager (http://127.0.0.1)",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${
      facts.execStart.map((w) => systemdWord(w, { exec: true, what: "the asm command" })).join(" ")
    }`,
    `Environment=${systemdWord(`PATH=${facts.path}`, { what: "PATH" })}`,
  ];
  if (facts.asmHome !== null) {
    lines.push(`Environment=${systemdWord(`ASM_HOME=${facts.asmHome}`, { what: "ASM_HOME" })}`);
  }
  lines.push(
    // "-": a missing file (the person kept their variables out) is not a failure; the rest of the line is the
    // path as it is (no quotes), with systemd's specifiers escaped
    `EnvironmentFile=-${plain(facts.environmentFile, "the data folder").replaceAll("%", "%%")}`,
    // SIGTERM ends asm cleanly (exit 0): `asm restart` and `systemctl stop` are not failures to restart from
    "Restart=on-failure",
    "RestartSec=3",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  );
  return lines.join("\n");
}

/** What a unit file says, as {@link parseUnit} reads it back. */
export interface ReadUnit {
  /** The program and its arguments; null when the file has no ExecStart. */
  execStart: string[] | null;
  /** Its `Environment=` variables. */
  environment: Record<string, string>;
  /** Its EnvironmentFile (without systemd's leading "-"); null when it names none. */
  environmentFile: string | null;
}

/** The words of one unit line: double-quoted words unescaped (`\\`, `\"`), bare words split on blanks. */
function unitWords(text: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === " " || text[i] === "\t") {
      i++;
      continue;
    }
    let word = "";
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < text.length) i++;
        word += text[i++];
      }
      i++;
    } else {
      while (i < text.length && text[i] !== " " && text[i] !== "\t") word += text[i++];
    }
    words.push(word);
  }
  return words;
}

/**
 * Reads a unit file back (what `asm doctor` checks: the program it runs, the PATH it gives the server, its
 * EnvironmentFile). The inverse of {@link renderUnit} for what that writes; `%%` and an ExecStart's `$$` undone.
 */
export function parseUnit(text: string): ReadUnit {
  const unit: ReadUnit = { execStart: null, environment: {}, environmentFile: null };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const eq = line.indexOf("=");
    if (line.startsWith("#") || line.startsWith(";") || eq < 0) continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (key === "ExecStart") {
      unit.execStart = unitWords(value).map((w) => w.replaceAll("$$", "$").replaceAll("%%", "%"));
    } else if (key === "Environment") {
      for (const word of unitWords(value)) {
        const at = word.indexOf("=");
        if (at > 0) unit.environment[word.slice(0, at)] = word.slice(at + 1).replaceAll("%%", "%");
      }
    } else if (key === "EnvironmentFile") {
      unit.environmentFile = value.replace(/^-/, "").replaceAll("%%", "%");
    }
  }
  return unit;
}

/**
 * The agents' own variables present in `env`: the names each agent's `launch_env` allows (its home, auth and
 * endpoint variables), never its session, pid or entrypoint variables. Sorted, de-duplicated.
 */
export function agentEnvNames(agents: readonly AgentConfig[], env: Env): string[] {
  const names = new Set<string>();
  for (const agent of agents) {
    const own = new Set([agent.session_env, agent.pid_env, agent.entrypoint_env].filter((n) => n !== ""));
    for (const [name, value] of Object.entries(env)) {
      if (value !== undefined && !own.has(name) && envNameMatches(name, agent.launch_env)) names.add(name);
    }
  }
  return [...names].sort();
}

/** The EnvironmentFile's text: `NAME="value"` lines; values with a newline are left out (and named). */
export function renderEnvFile(values: Record<string, string>): { text: string; skipped: string[] } {
  const lines = [
    "# the agents' variables for the autostarted asm, copied by `asm install` with consent (0600)",
  ];
  const skipped: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (/[\n\r\0]/.test(value)) {
      skipped.push(name);
      continue;
    }
    lines.push(`${name}="${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`);
  }
  return { text: lines.join("\n") + "\n", skipped };
}

/** Runs `systemctl --user ...`; the seam a test replaces with a recorder. */
export interface Systemctl {
  run(args: string[]): Promise<{ ok: boolean; text: string }>;
}

/**
 * `systemctl` from the environment's PATH, or a runner that says it is missing; each call bounded by
 * `timeoutMs` (a manager that does not answer is said, not waited on).
 */
export function systemctlOf(env: Env, options: { timeoutMs?: number } = {}): Systemctl {
  const timeoutMs = options.timeoutMs ?? 60_000;
  return {
    async run(args) {
      try {
        const out = await runBounded("systemctl", {
          args: ["--user", ...args],
          env: Object.fromEntries(
            Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
          ),
          timeoutMs,
        });
        if (out.timedOut) {
          return {
            ok: false,
            text: `systemctl --user ${args.join(" ")} did not answer within ${timeoutMs / 1000} s`,
          };
        }
        return { ok: out.code === 0, text: (out.stdout + out.stderr).trim() };
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return { ok: false, text: "systemctl is not on PATH" };
        throw err;
      }
    },
  };
}

/** Why no user manager can take the unit, or null when one runs. */
export async function userManagerProblem(systemctl: Systemctl): Promise<string | null> {
  const probe = await systemctl.run(["show-environment"]);
  return probe.ok ? null : `no systemd user manager answers (${probe.text || "systemctl --user failed"})`;
}

/** What installing or removing autostart did, as lines for a person. */
export interface AutostartReport {
  lines: string[];
  /** True when something needs the person (no user manager, a value a unit cannot carry, systemctl failed). */
  attention: boolean;
  /** The unit is enabled and started. */
  enabled: boolean;
}

function writeIfChanged(path: string, text: string, mode: number): boolean {
  let current: string | null = null;
  try {
    current = Deno.readTextFileSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (current === text) {
    Deno.chmodSync(path, mode);
    return false;
  }
  Deno.mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial-${Deno.pid}`;
  Deno.writeTextFileSync(partial, text, { mode });
  Deno.chmodSync(partial, mode);
  Deno.renameSync(partial, path);
  return true;
}

/** Options of {@link installAutostart}. */
export interface AutostartOptions {
  env: Env;
  asmHome: string;
  agents: readonly AgentConfig[];
  /** Copy the agents' variables into the EnvironmentFile (the person said yes). */
  copyAgentEnv: boolean;
  systemctl?: Systemctl;
  /** Start the unit now as well as at login (default true; the cutover starts it itself, after the mode). */
  startNow?: boolean;
}

/** Writes the EnvironmentFile (with consent) and the unit, and enables it where a user manager runs. */
export async function installAutostart(options: AutostartOptions): Promise<AutostartReport> {
  const { env, asmHome } = options;
  const systemctl = options.systemctl ?? systemctlOf(env);
  const lines: string[] = [];
  const attention = false;
  const envFile = agentEnvPath(asmHome);
  if (options.copyAgentEnv) {
    const names = agentEnvNames(options.agents, env);
    const { text, skipped } = renderEnvFile(Object.fromEntries(names.map((n) => [n, env[n]!])));
    const kept = names.filter((n) => !skipped.includes(n));
    writeIfChanged(envFile, text, 0o600);
    lines.push(
      kept.length
        ? `the agents' variables for the server: ${kept.join(", ")} (values in ${envFile}, 0600)`
        : `none of the agents' variables are set in this shell; ${envFile} lists none`,
    );
    if (skipped.length) lines.push(`  left out (a newline in the value): ${skipped.join(", ")}`);
  }
  let unit: string;
  try {
    unit = renderUnit({
      execStart: [selfCommand(env), "serve"],
      path: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      asmHome: env.ASM_HOME ? asmHome : null,
      environmentFile: envFile,
    });
  } catch (err) {
    if (!(err instanceof UnitValueError)) throw err;
    return { lines: [...lines, `autostart not installed: ${err.message}`], attention: true, enabled: false };
  }
  const path = unitPath(env);
  const changed = writeIfChanged(path, unit, 0o644);
  lines.push(`autostart: ${path} ${changed ? "written" : "already up to date"}`);
  const problem = await userManagerProblem(systemctl);
  if (problem !== null) {
    lines.push(
      `  not enabled: ${problem}. Once you have one (a login session with systemd), run: ` +
        `systemctl --user daemon-reload && systemctl --user enable --now ${UNIT_NAME}`,
    );
    return { lines, attention: true, enabled: false };
  }
  const startNow = options.startNow ?? true;
  const enable = startNow ? ["enable", "--now", UNIT_NAME] : ["enable", UNIT_NAME];
  for (const args of [["daemon-reload"], enable]) {
    const r = await systemctl.run(args);
    if (!r.ok) {
      lines.push(`  systemctl --user ${args.join(" ")} failed: ${r.text}`);
      return { lines, attention: true, enabled: false };
    }
  }
  // a unit already running an older asm takes the new one only when restarted
  if (changed && startNow) await systemctl.run(["try-restart", UNIT_NAME]);
  lines.push(
    `  enabled: asm starts at login${startNow ? " and now" : ""} (systemctl --user status ${UNIT_NAME})`,
  );
  return { lines, attention, enabled: true };
}

/** Disables and removes the unit and the EnvironmentFile `installAutostart` wrote. */
export async function uninstallAutostart(
  options: { env: Env; asmHome: string; systemctl?: Systemctl },
): Promise<AutostartReport> {
  const systemctl = options.systemctl ?? systemctlOf(options.env);
  const lines: string[] = [];
  const path = unitPath(options.env);
  let had = true;
  try {
    Deno.statSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    had = false;
  }
  if (had && (await userManagerProblem(systemctl)) === null) {
    const r = await systemctl.run(["disable", "--now", UNIT_NAME]);
    lines.push(
      r.ok ? `autostart: disabled and stopped ${UNIT_NAME}` : `autostart: disable failed: ${r.text}`,
    );
  }
  for (const file of [path, agentEnvPath(options.asmHome)]) {
    try {
      Deno.removeSync(file);
      lines.push(`removed ${file}`);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  if (had && (await userManagerProblem(systemctl)) === null) await systemctl.run(["daemon-reload"]);
  return { lines, attention: false, enabled: false };
}
