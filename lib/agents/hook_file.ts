/**
 * Careful editing of an agent's own config file: read it, back it up before the first byte changes, write it
 * atomically, and on uninstall put it back byte-for-byte when nobody touched it since. Agent-neutral: the
 * adapters under `lib/agents/<adapter>/` decide what goes into the file.
 * @module
 */
import { createHash } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { pathExists, readRegularSync, readRegularTextSync } from "../files/mod.ts";
import { type Clock, errorText, isRecord } from "../lang/mod.ts";

/** `<wrapper> <agent>` commands must survive an unquoted `/bin/sh -c`: no whitespace, quotes or shell syntax. */
const UNSAFE_IN_COMMAND = /[\s'"`$\\;&|<>(){}*?[\]!#~]/;
/** asm's entries are recognised by their command: `<any absolute path>/bin/asm-hook <agent>`. */
const ASM_COMMAND = /^(\/\S*\/bin\/asm-hook) ([a-z][a-z0-9_-]*)$/;
/** Decodes like `Deno.readTextFileSync`, which keeps a byte order mark. */
const KEEP_BOM = new TextDecoder("utf-8", { ignoreBOM: true });

/** A plain sentence when the wrapper path cannot be written into an agent's config unquoted, else null. */
export function wrapperPathProblem(wrapper: string): string | null {
  if (!wrapper.startsWith("/")) return `the hook wrapper path "${wrapper}" is not absolute`;
  const bad = wrapper.match(UNSAFE_IN_COMMAND);
  if (!bad) return null;
  const what = /\s/.test(bad[0]) ? "whitespace" : `the character ${JSON.stringify(bad[0])}`;
  return `the hook wrapper path "${wrapper}" contains ${what}, and the agents run hook commands unquoted ` +
    `through a shell; set ASM_HOME to a folder whose path has no whitespace, quotes or shell characters`;
}

/** The command an agent runs for asm: `<wrapper> <agent name>`. */
export function hookCommand(wrapper: string, agentName: string): string {
  return `${wrapper} ${agentName}`;
}

/** The agent name of an asm hook command (`/x/.asm/bin/asm-hook claude` -> `claude`), else null. */
export function asmCommandAgent(command: unknown): string | null {
  if (typeof command !== "string") return null;
  return command.match(ASM_COMMAND)?.[2] ?? null;
}

/** Lowercase hex sha256 of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The file's text, or null when it does not exist. */
export function readTextOrNull(path: string): string | null {
  try {
    return readRegularTextSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/**
 * Writes through a temporary file and a rename, so an agent starting at that moment reads the old file or the
 * new one, never half of one. A symlinked config (dotfile managers) is written at its target, and the file keeps
 * its mode.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  let target = path;
  let mode: number | null = null;
  try {
    target = Deno.realPathSync(path);
    mode = Deno.statSync(target).mode;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    Deno.mkdirSync(dirname(path), { recursive: true });
  }
  const tmp = `${target}.asm-tmp-${Deno.pid}`;
  if (typeof data === "string") Deno.writeTextFileSync(tmp, data);
  else Deno.writeFileSync(tmp, data);
  try {
    if (mode !== null) Deno.chmodSync(tmp, mode & 0o7777);
    Deno.renameSync(tmp, target);
  } catch (err) {
    try {
      Deno.removeSync(tmp);
    } catch { /* the rename's error is the one worth reporting */ }
    throw err;
  }
}

// ---- JSON layout ---------------------------------------------------------------------------------------------

/** How a JSON file is laid out, so a rewrite of a file already laid out this way changes only what was added. */
export interface JsonLayout {
  /** The indent of one level ("" = one line). */
  indent: string;
  finalNewline: boolean;
  crlf: boolean;
}

/** The layout used for a file asm creates. */
export const DEFAULT_JSON_LAYOUT: JsonLayout = { indent: "  ", finalNewline: true, crlf: false };

/** Reads the layout from a file's text: the first indented line gives one level of indent. */
export function detectJsonLayout(text: string): JsonLayout {
  if (text.trim() === "") return DEFAULT_JSON_LAYOUT;
  const indented = text.match(/\n([ \t]+)\S/);
  return {
    indent: indented ? indented[1] : (text.trim().includes("\n") ? DEFAULT_JSON_LAYOUT.indent : ""),
    finalNewline: /\n$/.test(text),
    crlf: text.includes("\r\n"),
  };
}

/** Serialises a value with a file's layout (`JSON.stringify` spacing: `"key": value`). */
export function formatJson(value: unknown, layout: JsonLayout): string {
  let text = layout.indent === "" ? JSON.stringify(value) : JSON.stringify(value, null, layout.indent);
  if (layout.finalNewline) text += "\n";
  return layout.crlf ? text.replaceAll("\n", "\r\n") : text;
}

/** A JSON object file as read: absent, unreadable as a JSON object (with the sentence), or its value. */
export type JsonFileRead =
  | { kind: "absent" }
  | { kind: "invalid"; reason: string }
  | { kind: "ok"; text: string; root: Record<string, unknown>; layout: JsonLayout };

/** Reads a JSON object file; an empty file counts as `{}` (and is restored as empty on uninstall). */
export function readJsonObjectFile(path: string): JsonFileRead {
  const text = readTextOrNull(path);
  return text === null ? { kind: "absent" } : parseJsonObject(path, text);
}

/** Parses a JSON object file's text; the reason names the file and the parse error. */
export function parseJsonObject(path: string, text: string): Exclude<JsonFileRead, { kind: "absent" }> {
  if (text.trim() === "") return { kind: "ok", text, root: {}, layout: DEFAULT_JSON_LAYOUT };
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    const message = errorText(err);
    return { kind: "invalid", reason: `${path} is not valid JSON (${message}); asm left it untouched` };
  }
  if (!isRecord(root)) {
    return {
      kind: "invalid",
      reason: `${path} does not hold a JSON object at the top; asm left it untouched`,
    };
  }
  return { kind: "ok", text, root, layout: detectJsonLayout(text) };
}

// ---- backups -------------------------------------------------------------------------------------------------

/**
 * The record written beside every backup (`<backup name>.meta.json`). `installed_sha256` is the file as asm left
 * it: uninstall restores the backup only while the file still has exactly those bytes.
 */
export interface BackupRecord {
  v: 1;
  /** `<agent>-<basename>-<UTC stamp>`: the backup's file name, and `<id>.meta.json` is this record. */
  id: string;
  agent: string;
  /** The config file that was backed up. */
  path: string;
  /** The file did not exist before asm created it: uninstall deletes it. */
  absent: boolean;
  /** The copy of the file as it was (null when absent). */
  backup: string | null;
  installed_sha256: string;
  created_at: string;
  uninstalled_at: string | null;
}

/** One planned change to one file: its text before (null = absent) and after. */
export interface FileEdit {
  agent: string;
  path: string;
  before: string | null;
  after: string;
}

/** `20261129T221307621Z`: sorts as text, no characters any file system dislikes. */
export function utcStamp(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, "");
}

/**
 * Carries out planned edits: every backup first (so a failure half-way leaves each changed file with its copy),
 * then the writes, then the records that let uninstall restore byte-for-byte.
 */
export function commitEdits(edits: FileEdit[], backupsDir: string, now: Clock = Date.now): void {
  // the copy is the file's bytes (a byte order mark or odd bytes survive a round trip), taken only when they
  // still decode to the text the plan was made from
  const originals = edits.map((edit) => {
    if (edit.before === null) {
      if (readTextOrNull(edit.path) !== null) throw changedMeanwhile(edit.path);
      return null;
    }
    const bytes = readBytesOrNull(edit.path);
    if (bytes === null || KEEP_BOM.decode(bytes) !== edit.before) throw changedMeanwhile(edit.path);
    return bytes;
  });
  Deno.mkdirSync(backupsDir, { recursive: true, mode: 0o700 });
  const date = new Date(now());
  const records: BackupRecord[] = [];
  for (const [i, edit] of edits.entries()) {
    let name = `${edit.agent}-${basename(edit.path)}-${utcStamp(date)}`;
    for (
      let n = 1;
      pathExists(join(backupsDir, name)) || pathExists(join(backupsDir, `${name}.meta.json`));
      n++
    ) {
      name = `${edit.agent}-${basename(edit.path)}-${utcStamp(date)}-${n}`;
    }
    const backup = edit.before === null ? null : join(backupsDir, name);
    // config files can hold secrets (API keys in env blocks): the copies are for the user's eyes only
    if (backup !== null) Deno.writeFileSync(backup, originals[i]!, { createNew: true, mode: 0o600 });
    records.push({
      v: 1,
      id: name,
      agent: edit.agent,
      path: edit.path,
      absent: edit.before === null,
      backup,
      installed_sha256: sha256Hex(edit.after),
      created_at: date.toISOString(),
      uninstalled_at: null,
    });
    // a placeholder keeps the name taken until the record is complete
    Deno.writeTextFileSync(join(backupsDir, `${name}.meta.json`), "{}\n", { createNew: true, mode: 0o600 });
  }
  edits.forEach((edit) => writeFileAtomic(edit.path, edit.after));
  records.forEach((record) => writeRecord(backupsDir, record));
}

function changedMeanwhile(path: string): Error {
  return new Error(`${path} changed while asm was installing; nothing was written, run the install again`);
}

function readBytesOrNull(path: string): Uint8Array | null {
  try {
    return readRegularSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

function writeRecord(backupsDir: string, record: BackupRecord): void {
  writeFileAtomic(join(backupsDir, `${record.id}.meta.json`), formatJson(record, DEFAULT_JSON_LAYOUT));
}

function listMeta(backupsDir: string): { name: string }[] {
  try {
    return [...Deno.readDirSync(backupsDir)]
      .filter((e) => e.isFile && e.name.endsWith(".meta.json"))
      .map((e) => ({ name: e.name.slice(0, -".meta.json".length) }));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

function readRecord(path: string): BackupRecord | null {
  try {
    const value = JSON.parse(Deno.readTextFileSync(path));
    return isRecord(value) && value.v === 1 ? value as unknown as BackupRecord : null;
  } catch {
    return null;
  }
}

/** The newest backup record of this agent's file that has not been undone yet, or null. */
export function latestBackup(backupsDir: string, agent: string, path: string): BackupRecord | null {
  let best: BackupRecord | null = null;
  for (const { name } of listMeta(backupsDir)) {
    const record = readRecord(join(backupsDir, `${name}.meta.json`));
    if (
      record === null || record.id !== name || record.agent !== agent || record.path !== path ||
      record.uninstalled_at !== null
    ) continue;
    if (best === null || newer(record, best)) best = record;
  }
  return best;
}

/** Records made in the same millisecond are told apart by the counter suffix of their id (`-1`, `-2`, ...). */
function newer(a: BackupRecord, b: BackupRecord): boolean {
  if (a.created_at !== b.created_at) return a.created_at > b.created_at;
  const counter = (r: BackupRecord) => Number(r.id.match(/Z-(\d+)$/)?.[1] ?? 0);
  return counter(a) > counter(b);
}

// ---- uninstall -----------------------------------------------------------------------------------------------

/** What removing asm's entries from a file's text found. */
export type StripResult =
  | { kind: "stripped"; text: string; notes?: string[] }
  | { kind: "nothing" }
  | { kind: "refused"; reason: string };

/** The outcome for one file. */
export interface FileUninstall {
  /** Put back byte-for-byte from the backup (or deleted, when asm had created it). */
  restored: boolean;
  /** asm's entries were taken out of a file that changed since the install. */
  stripped: boolean;
  notes: string[];
}

/**
 * Undoes asm's change to one file: when the file still has exactly the bytes asm wrote, the backup goes back
 * byte-for-byte; otherwise someone edited it since, so only asm's entries are removed (`strip`) and the edit stays.
 */
export function uninstallFile(
  options: { agent: string; path: string; backupsDir: string; strip: (text: string) => StripResult },
): FileUninstall {
  const { agent, path, backupsDir } = options;
  const record = latestBackup(backupsDir, agent, path);
  const current = readTextOrNull(path);
  const done = (record: BackupRecord | null) => {
    if (record !== null) writeRecord(backupsDir, { ...record, uninstalled_at: new Date().toISOString() });
  };
  if (current === null) {
    done(record);
    return { restored: false, stripped: false, notes: [`${path} does not exist; nothing to remove`] };
  }
  if (record !== null && sha256Hex(current) === record.installed_sha256) {
    if (record.absent) {
      Deno.removeSync(path);
      done(record);
      return { restored: true, stripped: false, notes: [`removed ${path}, which asm had created`] };
    }
    const original = readBytesOrNull(record.backup!);
    if (original !== null) {
      writeFileAtomic(path, original);
      done(record);
      return { restored: true, stripped: false, notes: [`restored ${path} from ${record.backup}`] };
    }
    // the backup itself is gone: fall through and remove only asm's entries
  }
  const stripped = options.strip(current);
  if (stripped.kind === "refused") return { restored: false, stripped: false, notes: [stripped.reason] };
  if (stripped.kind === "nothing") {
    done(record);
    return { restored: false, stripped: false, notes: [`${path} has no asm entries; left untouched`] };
  }
  writeFileAtomic(path, stripped.text);
  done(record);
  const why = record === null ? "no backup record was found" : "it changed since asm installed";
  return {
    restored: false,
    stripped: true,
    notes: [
      `removed only asm's entries from ${path} (${why}); everything else kept`,
      ...(stripped.notes ?? []),
    ],
  };
}
