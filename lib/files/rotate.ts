/**
 * A log that rotates by size: past `maxBytes`, `x.log` becomes `x.log.1` (and `x.log.1` becomes `x.log.2`, up to
 * `keep`), so a server that runs for months keeps a bounded log. Best effort between processes: two writers that
 * rotate at the same moment may drop one older generation, never the line being written.
 * @module
 */

/** Options of {@link appendRotating}. */
export interface RotateOptions {
  /** The size past which the log rotates before the next line (default 10 MiB). */
  maxBytes?: number;
  /** Older generations kept beside it (default 2). */
  keep?: number;
  /** The file's mode when it is made (default 0600: logs name the user's folders). */
  mode?: number;
}

/** The size a log rotates at unless told. */
export const LOG_MAX_BYTES = 10 * 1024 * 1024;

/** Moves `path` to `path.1` (and each older one up), dropping the oldest. */
export function rotate(path: string, keep: number): void {
  for (let i = keep - 1; i >= 1; i--) {
    try {
      Deno.renameSync(`${path}.${i}`, `${path}.${i + 1}`);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  try {
    Deno.renameSync(path, `${path}.1`);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err; // another writer rotated it first
  }
}

/** Appends `text` to the log at `path`, rotating it first when it has grown past the limit. */
export function appendRotating(path: string, text: string, options: RotateOptions = {}): void {
  const maxBytes = options.maxBytes ?? LOG_MAX_BYTES;
  let size = 0;
  try {
    size = Deno.statSync(path).size;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (size > 0 && size + text.length > maxBytes) rotate(path, Math.max(1, options.keep ?? 2));
  Deno.writeTextFileSync(path, text, { append: true, create: true, mode: options.mode ?? 0o600 });
}
