/**
 * Compressed copies of transcripts, for agents marked `keep_copies` in agents.toml (Gemini CLI can delete its own
 * session files after a resume). They live in one SQLite file, `$ASM_HOME/copies/copies.sqlite`, one row per
 * gzip member of up to 8 MB of the original (the members of a copy, in order, are one gzip stream): creating and
 * renaming a small file per transcript cost more than the whole read of it, and thousands of them made a cold
 * import wait on the file system. A copy is named by a reference, `<store>#<agent>/<path in the agent's store>`,
 * which the ledger keeps in `sessions.transcript_copy`; it is rewritten whenever the import reads a changed file.
 * When the original is gone, search and session detail read the copy, and the session stays in the ledger.
 * Copies written by earlier versions (a `.gz` file per transcript under `copies/<agent>/`) are still read.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { dirname, join, normalize } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { closeSync, openRegularSync, readFullySync, readTailSync, type Tail, tailOf } from "../files/mod.ts";

/** The copy store of an asm home. */
export function copyStoreOf(asmHome: string): string {
  return join(asmHome, "copies", "copies.sqlite");
}

/** The reference of the copy of a transcript (`rel`: its path inside the agent's store), never outside it. */
export function copyRefOf(asmHome: string, agent: string, rel: string): string {
  const clean = normalize(rel).replace(/^(\.\.\/)+/, "").replace(/^\/+/, "");
  return `${copyStoreOf(asmHome)}#${agent}/${clean}`;
}

/** A reference split into its store and its name there; null for a copy of an earlier version (a `.gz` file). */
function parseRef(ref: string): { store: string; name: string } | null {
  const at = ref.indexOf(".sqlite#");
  if (at < 0) return null;
  return { store: ref.slice(0, at + ".sqlite".length), name: ref.slice(at + ".sqlite#".length) };
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS copies (
  name TEXT NOT NULL,
  part INTEGER NOT NULL,
  gz BLOB NOT NULL,
  PRIMARY KEY (name, part)
) WITHOUT ROWID`;

/** Source bytes per gzip member: memory stays bounded whatever the transcript's size. */
const PART_BYTES = 8 << 20;

// one connection per store while an import writes (opening one per copy costs as much as a file)
const open = new Map<string, DatabaseSync>();

function writer(store: string): DatabaseSync {
  let db = open.get(store);
  if (db === undefined) {
    Deno.mkdirSync(dirname(store), { recursive: true, mode: 0o700 });
    // SQLite gives its -wal and -shm files the database file's mode: create it 0600 first
    Deno.writeFileSync(store, new Uint8Array(0), { append: true, mode: 0o600 });
    db = new DatabaseSync(store);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec(SCHEMA);
    open.set(store, db);
  }
  return db;
}

/** Closes the store connections the writes opened (the import's end). */
export function closeCopyStores(): void {
  for (const db of open.values()) db.close();
  open.clear();
}

/**
 * The compressed parts of a transcript's copy: gzip members of up to 8 MB of it each (a read worker makes them;
 * the writer stores them with {@link writeCopies}).
 */
export function compressFile(source: string): Uint8Array[] {
  // the open the byte pass read the transcript through: a regular file, never a link, never blocking
  const file = openRegularSync(source);
  try {
    const buf = new Uint8Array(Math.min(PART_BYTES, Math.max(file.size, 1)));
    const parts: Uint8Array[] = [];
    for (let at = 0;;) {
      const filled = readFullySync(file.fd, buf, at);
      at += filled;
      if (filled === 0 && parts.length > 0) break;
      parts.push(new Uint8Array(gzipSync(buf.subarray(0, filled))));
      if (filled < buf.length) break;
    }
    return parts;
  } finally {
    closeSync(file.fd);
  }
}

/** Stores copies (each replacing an earlier one of the same reference), in one transaction per store. */
export function writeCopies(copies: { ref: string; parts: Uint8Array[] }[]): void {
  const byStore = new Map<string, { name: string; parts: Uint8Array[] }[]>();
  for (const { ref, parts } of copies) {
    const parsed = parseRef(ref);
    if (parsed === null) throw new Error(`"${ref}" is not a copy reference`);
    const list = byStore.get(parsed.store) ?? [];
    list.push({ name: parsed.name, parts });
    byStore.set(parsed.store, list);
  }
  for (const [store, list] of byStore) {
    const db = writer(store);
    db.exec("BEGIN IMMEDIATE");
    try {
      const clear = db.prepare("DELETE FROM copies WHERE name = ?");
      const insert = db.prepare("INSERT INTO copies (name, part, gz) VALUES (?, ?, ?)");
      for (const { name, parts } of list) {
        clear.run(name);
        parts.forEach((gz, part) => insert.run(name, part, gz));
      }
      db.exec("COMMIT");
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
  }
}

/** True when a copy exists under `ref`. */
export function hasCopy(ref: string): boolean {
  const parsed = parseRef(ref);
  if (parsed === null) return isFile(ref);
  const held = open.get(parsed.store);
  if (held !== undefined) {
    return held.prepare("SELECT 1 FROM copies WHERE name = ? LIMIT 1").get(parsed.name) !== undefined;
  }
  return readStore(
    parsed.store,
    (db) => db.prepare("SELECT 1 FROM copies WHERE name = ? LIMIT 1").get(parsed.name) !== undefined,
  ) ?? false;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Runs `fn` on a read-only connection to `store`; undefined when the store does not exist. */
function readStore<T>(store: string, fn: (db: DatabaseSync) => T): T | undefined {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(store, { readOnly: true });
  } catch (err) {
    if (isFile(store)) throw err;
    return undefined;
  }
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    return fn(db);
  } finally {
    db.close();
  }
}

/** The bytes of the copy under `ref`, or null when there is none. */
export function copyBytes(ref: string): Uint8Array | null {
  const parsed = parseRef(ref);
  if (parsed === null) {
    try {
      return new Uint8Array(gunzipSync(Deno.readFileSync(ref)));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  }
  const parts = readStore(
    parsed.store,
    (db) =>
      db.prepare("SELECT gz FROM copies WHERE name = ? ORDER BY part").all(parsed.name).map((r) =>
        r.gz as Uint8Array
      ),
  );
  if (parts === undefined || parts.length === 0) return null;
  const chunks = parts.map((gz) => new Uint8Array(gunzipSync(gz)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * The last `maxBytes` (whole lines) of the copy under `ref`, decompressing only the members needed from its end;
 * null when there is none. A copy of any size costs at most `maxBytes` plus one member (8 MB) of memory.
 */
export function copyTail(ref: string, maxBytes: number): Tail | null {
  const parsed = parseRef(ref);
  if (parsed === null) {
    const whole = copyBytes(ref);
    return whole === null ? null : { ...tailOf(whole, maxBytes), size: whole.length };
  }
  return readStore(parsed.store, (db) => {
    const newestFirst = db.prepare("SELECT gz FROM copies WHERE name = ? ORDER BY part DESC");
    const chunks: Uint8Array[] = [];
    let total = 0;
    let cut = false;
    for (const row of newestFirst.iterate(parsed.name)) {
      // one byte beyond the bound tells whether the window starts on a line
      if (total > maxBytes) {
        cut = true;
        break;
      }
      const part = new Uint8Array(gunzipSync(row.gz as Uint8Array));
      chunks.unshift(part);
      total += part.length;
    }
    if (chunks.length === 0) return null;
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    const tail = tailOf(bytes, maxBytes);
    return { bytes: tail.bytes, truncated: tail.truncated || cut, size: cut ? -1 : total };
  }) ?? null;
}

/**
 * A transcript's bytes: the original when it is still there, else its copy, else null. Search and session
 * detail read through this, so a transcript the agent deleted is still readable.
 */
export function transcriptBytes(path: string, copy: string | null): Uint8Array | null {
  try {
    // the path may have come from a hook event: a regular file only, never through a link, never blocking
    const tail = readTailSync(path, Number.MAX_SAFE_INTEGER);
    return tail.bytes;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return copy === null ? null : copyBytes(copy);
}
