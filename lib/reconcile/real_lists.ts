/**
 * The real-list guard: in testing mode asm refuses to start when its configured board is one of the person's real
 * lists. The real lists are read from `$ASM_HOME/real-lists.json`, a file of their own that config.toml cannot
 * override (the cutover to live mode writes it), keyed on the backend and the location:
 *
 * ```json
 * {"v": 1, "lists": [{"backend": "markdown", "location": "/home/me/vault/board.md"}]}
 * ```
 *
 * A Markdown board's location is its file's real path (lib/board `boardLocation`: links resolved, so a link to
 * the real board, a linked folder or `..` all name the real board); a remote's is the id the backend names
 * (Workflowy: a list's node id, one entry per list). A guard file asm cannot read is itself a refusal in testing mode: a guard that
 * silently guards nothing is the failure it exists to prevent.
 *
 * A testing setup usually has a data folder of its own (`ASM_HOME=/tmp/try asm serve --testing`), whose guard
 * file is empty; the person's real lists are written in their own data folder's. So the guard is read from both:
 * the data folder asm runs on and the person's own, `$HOME/.asm` (read only, never written). And each of those
 * folders' live default board (`board.md`) is a real list without being written down: testing mode never opens
 * the file live mode would use.
 * @module
 */
import { join } from "node:path";
import { boardLocation } from "../board/mod.ts";
import { boardPath, type BoardSettings, type Mode } from "../config/mod.ts";
import { errorText, isRecord } from "../lang/mod.ts";

/** The backends whose lists live in someone else's service (a backend asm does not have writes nothing). */
const REMOTE_BACKENDS: readonly string[] = ["workflowy"];

/** The guard file's name in the data folder. */
export const REAL_LISTS_FILE = "real-lists.json";

/** The most a guard file may hold (it lists a few locations). */
const MAX_GUARD_BYTES = 64 * 1024;

/** One real list: a backend and where it is. */
export interface RealList {
  backend: string;
  location: string;
}

/** The guard file's real lists, or why it cannot be used (a sentence). Pure. */
export function parseRealLists(text: string): RealList[] | { problem: string } {
  const shape = 'it must be {"v": 1, "lists": [{"backend": "markdown", "location": "/path/board.md"}]}';
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { problem: `it is not JSON (${errorText(err)}); ${shape}` };
  }
  if (!isRecord(doc) || doc.v !== 1 || !Array.isArray(doc.lists)) return { problem: shape };
  const lists: RealList[] = [];
  for (const entry of doc.lists) {
    if (
      !isRecord(entry) || typeof entry.backend !== "string" || entry.backend === "" ||
      typeof entry.location !== "string" || entry.location === ""
    ) {
      return { problem: `every entry needs a backend and a location; ${shape}` };
    }
    lists.push({ backend: entry.backend, location: entry.location });
  }
  return lists;
}

/** The board a data folder is configured with, as the guard compares it. */
export interface ConfiguredBoard extends RealList {
  /** What a guard entry of the same backend must not equal: a Markdown board's real path; a remote's list ids. */
  keys: string[];
}

/** The board a data folder is configured with in `mode`, as the guard keys it (backend and location). */
export function configuredBoard(asmHome: string, mode: Mode, board: BoardSettings): ConfiguredBoard {
  if (board.backend === "markdown") {
    const location = boardLocation(boardPath(asmHome, mode, board));
    return { backend: board.backend, location, keys: [location] };
  }
  // a remote board is its three lists: any one of them real is the real board
  const keys = [board.lists.plan, board.lists.process, board.lists.complete];
  return { backend: board.backend, location: keys.join(", "), keys };
}

/** The same location as the guard compares it (a Markdown path resolved; a remote's id without case). */
function comparable(list: RealList): string {
  return list.backend === "markdown" ? boardLocation(list.location) : list.location.toLowerCase();
}

/**
 * The real lists a server on `asmHome` must not touch in testing mode: the guard files of that data folder and of
 * the person's own (`<home>/.asm`, when it is another folder), and each folder's live default board. A guard
 * file asm cannot use is a problem (the first one found).
 */
export function readRealLists(
  asmHome: string,
  options: { home?: string } = {},
): RealList[] | { problem: string } {
  const folders = [asmHome];
  if (options.home) {
    const own = join(options.home, ".asm");
    if (boardLocation(own) !== boardLocation(asmHome)) folders.push(own);
  }
  const lists: RealList[] = [];
  for (const folder of folders) {
    const written = readGuardFile(folder);
    if (!Array.isArray(written)) return written;
    lists.push(...written, { backend: "markdown", location: join(folder, "board.md") });
  }
  return lists;
}

/** Reads the guard file of one data folder: no file is no real lists; a file asm cannot use is a problem. */
function readGuardFile(asmHome: string): RealList[] | { problem: string } {
  const path = join(asmHome, REAL_LISTS_FILE);
  let bytes: Uint8Array;
  try {
    const info = Deno.lstatSync(path);
    if (!info.isFile) return { problem: `${path} is not a regular file` };
    if (info.size > MAX_GUARD_BYTES) return { problem: `${path} is larger than ${MAX_GUARD_BYTES} bytes` };
    bytes = Deno.readFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    return { problem: `${path} could not be read: ${errorText(err)}` };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { problem: `${path} is not UTF-8 text` };
  }
  const parsed = parseRealLists(text);
  return Array.isArray(parsed) ? parsed : { problem: `${path}: ${parsed.problem}` };
}

/**
 * Why a server in `mode` must not start on this board, or null. Only testing mode is guarded (live mode is
 * meant to write the real board). The sentence names the location.
 */
export function realListRefusal(
  mode: Mode,
  board: ConfiguredBoard,
  guard: RealList[] | { problem: string },
): string | null {
  if (mode !== "testing") return null;
  if (!Array.isArray(guard)) {
    return `asm will not start in testing mode: the real-list guard cannot be read (${guard.problem}), so it ` +
      `cannot tell whether the board ${board.location} is a real one; fix the guard file`;
  }
  // a remote board has no default file that could be the real one: its guard must name the real lists itself,
  // or testing mode cannot tell a throwaway list from the person's
  if (REMOTE_BACKENDS.includes(board.backend) && !guard.some((list) => list.backend === board.backend)) {
    return `asm will not start in testing mode on a ${board.backend} board while ${REAL_LISTS_FILE} names none ` +
      `of your real ${board.backend} lists: add each real list's node id there first ({"backend": ` +
      `"${board.backend}", "location": "<node id>"}), so a testing run can never write to them`;
  }
  const keys = board.keys.map((k) => board.backend === "markdown" ? k : k.toLowerCase());
  const real = guard.find((list) => list.backend === board.backend && keys.includes(comparable(list)));
  if (!real) return null;
  const fix = board.backend === "markdown"
    ? "point [board] path in config.toml at a throwaway copy"
    : "point [board] lists in config.toml at throwaway lists";
  return `asm will not start in testing mode: the configured board ${
    board.backend === "markdown" ? board.location : `list ${comparable(real)}`
  } is one of the real lists (${REAL_LISTS_FILE}); ${fix}, or run in live mode`;
}

/**
 * Adds real lists to a data folder's own guard file (written whole, 0600, by rename): the cutover's step 4.
 * Returns the entries it added (an entry already there is not added twice). Throws with a sentence when the file
 * there cannot be used (the guard is never silently replaced).
 */
export function addRealLists(asmHome: string, lists: readonly RealList[]): RealList[] {
  const written = readGuardFile(asmHome);
  if (!Array.isArray(written)) throw new Error(written.problem);
  const added = lists.filter((l) =>
    !written.some((w) => w.backend === l.backend && comparable(w) === comparable(l))
  );
  if (added.length > 0) writeGuardFile(asmHome, [...written, ...added]);
  return added;
}

/** Takes entries out of a data folder's own guard file (the rollback's undo of {@link addRealLists}). */
export function removeRealLists(asmHome: string, lists: readonly RealList[]): void {
  const written = readGuardFile(asmHome);
  if (!Array.isArray(written)) throw new Error(written.problem);
  writeGuardFile(
    asmHome,
    written.filter((w) => !lists.some((l) => l.backend === w.backend && l.location === w.location)),
  );
}

function writeGuardFile(asmHome: string, lists: RealList[]): void {
  const path = join(asmHome, REAL_LISTS_FILE);
  const partial = `${path}.partial-${Deno.pid}`;
  Deno.writeTextFileSync(partial, JSON.stringify({ v: 1, lists }, null, 2) + "\n", { mode: 0o600 });
  Deno.chmodSync(partial, 0o600);
  Deno.renameSync(partial, path);
}
