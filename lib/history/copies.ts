/**
 * Compressed copies of transcripts, for agents marked `keep_copies` in agents.toml (Gemini CLI can delete its own
 * session files after a resume): `$ASM_HOME/copies/<agent>/<path relative to the agent's store>.gz`. The copy is
 * rewritten whenever the import reads a changed file; when the original is gone, search and session detail read
 * the copy, and the session stays in the ledger.
 * @module
 */
import { dirname, join, normalize } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

/** Where the copy of a transcript lives. */
export function copyPathOf(asmHome: string, agent: string, rel: string): string {
  const clean = normalize(rel).replace(/^(\.\.\/)+/, "");
  return join(asmHome, "copies", agent, `${clean}.gz`);
}

/** Files up to this size are compressed in one call; larger ones are streamed. */
const IN_ONE_GO = 8 << 20;

/** Writes a gzip copy of `source` to `dest` (a large file is streamed: memory stays small whatever its size). */
export async function writeCopy(source: string, dest: string, size = Infinity): Promise<void> {
  Deno.mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.tmp`;
  if (size <= IN_ONE_GO) {
    // most session files are small: one native call, no stream machinery
    Deno.writeFileSync(tmp, gzipSync(Deno.readFileSync(source)), { mode: 0o600 });
    Deno.renameSync(tmp, dest);
    return;
  }
  const input = await Deno.open(source, { read: true });
  const output = await Deno.open(tmp, { write: true, create: true, truncate: true, mode: 0o600 });
  try {
    await input.readable.pipeThrough(new CompressionStream("gzip")).pipeTo(output.writable);
  } catch (err) {
    try {
      Deno.removeSync(tmp);
    } catch { /* never written */ }
    throw err;
  }
  Deno.renameSync(tmp, dest);
}

/** True when a copy exists at `path`. */
export function hasCopy(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * A transcript's bytes: the original when it is still there, else its copy, else null. Search and session
 * detail read through this, so a transcript the agent deleted is still readable.
 */
export function transcriptBytes(path: string, copy: string | null): Uint8Array | null {
  try {
    return Deno.readFileSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (copy === null) return null;
  try {
    return new Uint8Array(gunzipSync(Deno.readFileSync(copy)));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}
