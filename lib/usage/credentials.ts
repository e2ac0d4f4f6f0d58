/**
 * Reading an agent's credentials file: fresh off disk on every call, read only, never written. Nothing read from
 * the file ever reaches a message: a JSON parse error quotes the text it choked on, so it is replaced by a
 * sentence naming the file only.
 * @module
 */
import { isRecord } from "../lang/mod.ts";

/** A credentials file as read: its JSON object, or why there is none. */
export type CredentialsFile =
  | { kind: "absent" }
  | { kind: "invalid"; message: string }
  | { kind: "ok"; root: Record<string, unknown> };

/** Reads a JSON credentials file. The messages name the file, never its contents. */
export async function readCredentialsFile(path: string): Promise<CredentialsFile> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { kind: "absent" };
    if (err instanceof Deno.errors.PermissionDenied) {
      return { kind: "invalid", message: `${path} cannot be read (permission denied)` };
    }
    return { kind: "invalid", message: `${path} cannot be read` };
  }
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    // never the parser's message: it quotes the file
    return { kind: "invalid", message: `${path} is not valid JSON` };
  }
  if (!isRecord(root)) {
    return { kind: "invalid", message: `${path} does not hold a JSON object` };
  }
  return { kind: "ok", root };
}

/** A non-empty string field of an object, else null. */
export function stringField(root: unknown, key: string): string | null {
  if (!isRecord(root)) return null;
  const value = root[key];
  return typeof value === "string" && value !== "" ? value : null;
}

/** A finite number field of an object, else null. */
export function numberField(root: unknown, key: string): number | null {
  if (!isRecord(root)) return null;
  const value = root[key];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/**
 * A stamp that changes whenever the file changes (mtime, size, inode), never derived from its contents:
 * `absent` when there is no file.
 */
export function fileStamp(path: string): string {
  try {
    const info = Deno.statSync(path);
    return `${info.mtime?.getTime() ?? 0}:${info.size}:${info.ino ?? 0}`;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return "absent";
    return "unreadable";
  }
}
