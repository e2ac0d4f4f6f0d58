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
 * # the port the server listens on 127.0.0.1 (default 7777); `asm serve --port N` overrides it
 * port = 7777
 *
 * # "live" (the default: the real board) or "testing" (a throwaway board; every test and CI run); the
 * # `./asm serve --testing` flag overrides it
 * mode = "live"
 *
 * [launch]
 * # environment variables a launched agent gets on top of the built-in allow-list and its agent's own names
 * # (a trailing "*" matches a prefix)
 * env = ["HTTPS_PROXY", "AWS_*"]
 *
 * [board]
 * backend = "markdown"                 # the default
 * path = "/home/me/vault/board.md"     # default: $ASM_HOME/board.md, in testing mode $ASM_HOME/board.testing.md
 * lists = { plan = "asm-plan", process = "asm-process", complete = "asm-complete" }   # the defaults
 * folders = { webapp = "/home/me/webapp" }   # where START opens a card of #webapp (default: the project's folder)
 *
 * # or the board in Workflowy: the lists are node ids, the API key is in a private file (chmod 600)
 * # backend = "workflowy"
 * # lists = { plan = "6ed4b9ca-...", process = "...", complete = "..." }
 * # key_file = "workflowy.key"        # absolute, or relative to $ASM_HOME
 * # url = "https://workflowy.com/api/v1"   # the default; https, or http only to this machine
 * ```
 *
 * A file that cannot be used is never fatal for its other keys: the defaults apply and `problem` says why, in a
 * sentence. One key is different: a `mode` asm cannot read is a `refusal` (the server does not start), because
 * guessing it would guess which board gets written.
 * @module
 */
import { isAbsolute, join } from "node:path";
import { parse } from "smol-toml";
import { errorText, isRecord } from "../lang/mod.ts";

/** `live` writes the person's real board; `testing` writes nothing shared (its own throwaway board). */
export type Mode = "live" | "testing";

/** The board's three list ids (the outliner's own ids: a Markdown heading's `^id`). */
export interface BoardListIds {
  plan: string;
  process: string;
  complete: string;
}

/** The `[board]` table. */
export interface BoardSettings {
  /** The outliner backend (`markdown`, the default; a name asm has no backend for turns the board off). */
  backend: string;
  /** The board file as config.toml names it (absolute, or relative to `$ASM_HOME`); null: the mode's default. */
  path: string | null;
  lists: BoardListIds;
  /** A card's project tag -> the folder START opens it in, before the project's own folder from the ledger. */
  folders: Record<string, string>;
  /** A remote backend's key file as config.toml names it (absolute, or relative to `$ASM_HOME`); null: none. */
  keyFile: string | null;
  /** A remote backend's API address; null: the backend's own; "": one config.toml gives that asm cannot use. */
  url: string | null;
}

/** What the settings are. */
export interface Settings {
  /** Local uids let in besides the server's own. */
  allowedUids: number[];
  /** Days `processed/` keeps a drained event. */
  processedDays: number;
  /** Extra environment variable names (or `PREFIX*` patterns) a launched agent gets. */
  launchEnv: string[];
  /** `live` unless config.toml says `testing` (the serve command's `--testing` overrides it). */
  mode: Mode;
  /** The port `asm serve` listens on unless `--port` says another. */
  port: number;
  board: BoardSettings;
}

/** The port asm listens on when neither config.toml nor `--port` says. */
export const DEFAULT_PORT = 7777;

/** The default list ids (the headings of the default board file end in them). */
export const DEFAULT_LIST_IDS: BoardListIds = {
  plan: "asm-plan",
  process: "asm-process",
  complete: "asm-complete",
};

/** The defaults: nobody else, 30 days, no extra variables, live, the Markdown board at its default path. */
export const DEFAULT_SETTINGS: Settings = {
  allowedUids: [],
  processedDays: 30,
  launchEnv: [],
  mode: "live",
  port: DEFAULT_PORT,
  board: {
    backend: "markdown",
    path: null,
    lists: { ...DEFAULT_LIST_IDS },
    folders: {},
    keyFile: null,
    url: null,
  },
};

/** A copy of the defaults (nothing shared with {@link DEFAULT_SETTINGS}). */
function defaults(): Settings {
  return {
    ...DEFAULT_SETTINGS,
    allowedUids: [],
    launchEnv: [],
    board: { ...DEFAULT_SETTINGS.board, lists: { ...DEFAULT_LIST_IDS }, folders: {} },
  };
}

/** A list id as an outliner spells it: letters, digits and dashes (an Obsidian block id). */
const LIST_ID = /^[A-Za-z0-9][A-Za-z0-9-]*$/;

/** A name or a `PREFIX*` pattern of environment variables. */
const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/**
 * Reads the settings out of config.toml's text. Pure. Each key that is wrong keeps its default and adds a
 * problem; a `mode` that is neither "live" nor "testing" is a `refusal` instead (the server will not guess).
 */
export function parseSettings(
  text: string,
): { settings: Settings; problems: string[]; refusal: string | null } {
  const settings = defaults();
  const problems: string[] = [];
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    const problem = `it is not valid TOML (${errorText(err).split("\n")[0]})`;
    // the file may say mode = "testing" in the part that did not parse: asm cannot know which board it means
    const refusal = /^\s*mode\s*=/m.test(text)
      ? `it says which mode to run in, but ${problem}, so asm cannot read it; fix the file`
      : null;
    return { settings, problems: [problem], refusal };
  }
  let refusal: string | null = null;
  const mode = doc.mode;
  if (mode !== undefined) {
    if (mode === "live" || mode === "testing") settings.mode = mode;
    else {
      refusal = `mode must be "live" or "testing" (it is ${
        JSON.stringify(mode)
      }); asm will not guess which board to write`;
    }
  }
  const port = doc.port;
  if (port !== undefined) {
    if (Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535) {
      settings.port = port as number;
    } else {problems.push(
        `port must be a whole number from 1 to 65535 (it is ${
          JSON.stringify(port)
        }); ${DEFAULT_PORT} is used`,
      );}
  }
  const board = doc.board;
  if (board !== undefined) {
    if (isRecord(board)) problems.push(...parseBoard(board, settings.board));
    else problems.push("[board] must be a table");
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
  return { settings, problems, refusal };
}

/** The `[board]` table's keys into `into`; each wrong one keeps its default and says why. */
function parseBoard(table: Record<string, unknown>, into: BoardSettings): string[] {
  const problems: string[] = [];
  const { backend, path, lists, folders, key_file: keyFile, url } = table;
  if (backend !== undefined) {
    if (typeof backend === "string" && backend !== "") into.backend = backend;
    else problems.push('board.backend must name a backend ("markdown" or "workflowy")');
  }
  if (keyFile !== undefined) {
    if (typeof keyFile === "string" && keyFile.trim() !== "" && !keyFile.includes("\0")) {
      into.keyFile = keyFile;
    } else problems.push("board.key_file must be the path of the file holding the API key");
  }
  if (url !== undefined) {
    const checked = apiUrl(url);
    if (checked === null) {
      problems.push(
        "board.url must be an https address (http only to 127.0.0.1, ::1 or localhost): the key travels with it",
      );
      // given but unusable: the board stays off rather than send the key to the default address instead
      into.url = "";
    } else into.url = checked;
  }
  if (path !== undefined) {
    if (typeof path === "string" && path.trim() !== "" && !path.includes("\0")) into.path = path;
    else problems.push("board.path must be the board file's path (absolute, or relative to the data folder)");
  }
  if (lists !== undefined) {
    const next = listIds(lists, into.lists);
    if (typeof next === "string") problems.push(next);
    else into.lists = next;
  }
  if (folders !== undefined) {
    if (isRecord(folders)) {
      for (const [tag, folder] of Object.entries(folders)) {
        if (typeof folder === "string" && folder.startsWith("/")) into.folders[tag.toLowerCase()] = folder;
        else problems.push(`board.folders.${tag} must be an absolute folder path`);
      }
    } else problems.push("board.folders must be a table of project tag = folder");
  }
  return problems;
}

/** An API address the key may be sent to: https, or http to this machine only; null when it is neither. */
function apiUrl(value: unknown): string | null {
  if (typeof value !== "string") return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const local = ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url.username || url.password || url.search || url.hash) return null;
  return url.protocol === "https:" || (url.protocol === "http:" && local)
    ? url.href.replace(/\/+$/, "")
    : null;
}

/** The key file a data folder's board reads: config's `key_file`, relative to `$ASM_HOME`; null when unset. */
export function boardKeyFile(asmHome: string, board: BoardSettings): string | null {
  if (board.keyFile === null) return null;
  return isAbsolute(board.keyFile) ? board.keyFile : join(asmHome, board.keyFile);
}

/** `board.lists` over the defaults, or why it cannot be used. */
function listIds(lists: unknown, base: BoardListIds): BoardListIds | string {
  const shape =
    "board.lists must be { plan = ..., process = ..., complete = ... }, each an id of letters, digits and dashes";
  if (!isRecord(lists)) return shape;
  const next = { ...base };
  for (const [role, id] of Object.entries(lists)) {
    if (!(role === "plan" || role === "process" || role === "complete")) return shape;
    if (typeof id !== "string" || !LIST_ID.test(id)) return shape;
    next[role] = id;
  }
  if (new Set([next.plan, next.process, next.complete]).size < 3) {
    return "board.lists must name three different list ids";
  }
  return next;
}

/** The board file a data folder uses in a mode: config's `path` (relative to `$ASM_HOME`), else the default. */
export function boardPath(asmHome: string, mode: Mode, board: BoardSettings): string {
  if (board.path !== null) return isAbsolute(board.path) ? board.path : join(asmHome, board.path);
  // testing writes nothing shared: never the live board's file, even by default
  return join(asmHome, mode === "testing" ? "board.testing.md" : "board.md");
}

/** What {@link loadSettings} found. */
export interface LoadedSettings {
  settings: Settings;
  /** A sentence when config.toml could not be used as written (the defaults then apply to those keys). */
  problem: string | null;
  /** A sentence when the server must not start on this file (its `mode` cannot be read). */
  refusal: string | null;
}

/** The settings of a data folder, a sentence when config.toml could not be used as written, and a refusal. */
export function loadSettings(asmHome: string): LoadedSettings {
  const path = join(asmHome, "config.toml");
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { settings: defaults(), problem: null, refusal: null };
    return {
      settings: defaults(),
      problem: `${path} could not be read: ${errorText(err)}`,
      // a file that may name the mode but cannot be read: asm will not guess the board either
      refusal: `${path} could not be read (${errorText(err)}); asm will not guess which mode to run in`,
    };
  }
  const { settings, problems, refusal } = parseSettings(text);
  return {
    settings,
    problem: problems.length ? `${path}: ${problems.join("; ")}` : null,
    refusal: refusal === null ? null : `${path}: ${refusal}`,
  };
}

/** True when `name` is one of `patterns` (an exact name, or `PREFIX*`). */
export function envNameMatches(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p);
}
