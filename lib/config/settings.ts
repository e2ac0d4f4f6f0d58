/**
 * The person's server settings, from the top of `$ASM_HOME/config.toml` (the `[projects]` table is read by
 * `lib/history/config.ts`):
 *
 * ```toml
 * # other local users whose connections the server lets in (besides its own uid)
 * allowed_uids = [1001]
 * # days a drained hook event is kept in processed/ before it is pruned
 * processed_days = 30
 *
 * [launch]
 * # environment variables a launched agent gets on top of the built-in allow-list and its agent's own names
 * # (a trailing "*" matches a prefix)
 * env = ["HTTPS_PROXY", "AWS_*"]
 * ```
 *
 * A file that cannot be used is never fatal: the defaults apply and `problem` says why, in a sentence.
 * @module
 */
import { join } from "node:path";
import { parse } from "smol-toml";
import { errorText, isRecord } from "../lang/mod.ts";

/** What the settings are. */
export interface Settings {
  /** Local uids let in besides the server's own. */
  allowedUids: number[];
  /** Days `processed/` keeps a drained event. */
  processedDays: number;
  /** Extra environment variable names (or `PREFIX*` patterns) a launched agent gets. */
  launchEnv: string[];
}

/** The defaults: nobody else, 30 days, no extra variables. */
export const DEFAULT_SETTINGS: Settings = { allowedUids: [], processedDays: 30, launchEnv: [] };

/** A name or a `PREFIX*` pattern of environment variables. */
const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** Reads the settings out of config.toml's text. Pure. Each key that is wrong keeps its default. */
export function parseSettings(text: string): { settings: Settings; problems: string[] } {
  const settings: Settings = { ...DEFAULT_SETTINGS, allowedUids: [], launchEnv: [] };
  const problems: string[] = [];
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    return {
      settings,
      problems: [`it is not valid TOML (${errorText(err).split("\n")[0]})`],
    };
  }
  const uids = doc.allowed_uids;
  if (uids !== undefined) {
    if (Array.isArray(uids) && uids.every((u) => Number.isInteger(u) && (u as number) >= 0)) {
      settings.allowedUids = uids as number[];
    } else problems.push("allowed_uids must be a list of user ids (whole numbers)");
  }
  const days = doc.processed_days;
  if (days !== undefined) {
    if (Number.isInteger(days) && (days as number) >= 1) settings.processedDays = days as number;
    else problems.push("processed_days must be a whole number of days, at least 1");
  }
  const launch = doc.launch;
  if (launch !== undefined) {
    const env = isRecord(launch) ? launch.env : null;
    if (env === undefined) { /* a [launch] table without env */ }
    else if (Array.isArray(env) && env.every((n) => typeof n === "string" && ENV_PATTERN.test(n))) {
      settings.launchEnv = env as string[];
    } else {
      problems.push(
        'launch.env must be a list of environment variable names (a trailing "*" matches a prefix)',
      );
    }
  }
  return { settings, problems };
}

/** The settings of a data folder, and a sentence when config.toml could not be used as written. */
export function loadSettings(asmHome: string): { settings: Settings; problem: string | null } {
  const path = join(asmHome, "config.toml");
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { settings: { ...DEFAULT_SETTINGS }, problem: null };
    return {
      settings: { ...DEFAULT_SETTINGS },
      problem: `${path} could not be read: ${errorText(err)}`,
    };
  }
  const { settings, problems } = parseSettings(text);
  return { settings, problem: problems.length ? `${path}: ${problems.join("; ")}` : null };
}

/** True when `name` is one of `patterns` (an exact name, or `PREFIX*`). */
export function envNameMatches(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p);
}
