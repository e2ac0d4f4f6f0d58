/**
 * The installed Claude Code version, for the `claude-code/<version>` user agent of the usage call (the header
 * Claude Code itself sends). First the binary's own answer to `--version`, cached per binary (path, mtime, size:
 * an update is noticed at once, and the 0.1 s run happens once per install); when that fails (not on PATH, a
 * desktop-only install), the `version` field of the newest transcript under `~/.claude/projects`.
 * @module
 */
import { join } from "node:path";
import { findOnPath, homeDir } from "../../config/mod.ts";
import type { Env } from "../protocol.ts";
import { RefusedFile } from "../../files/mod.ts";
import { readTail } from "../../usage/mod.ts";

const VERSION = /^(\d+\.\d+\.\d+[\w.+-]*)/;
const byBinary = new Map<string, { stamp: string; version: string | null }>();

/** The version at the start of `claude --version`'s output (`2.1.328 (Claude Code)`), else null. */
export function parseVersionOutput(text: string): string | null {
  return text.trim().match(VERSION)?.[1] ?? null;
}

/** The last `"version":"..."` in a transcript's text, else null. */
export function versionInTranscript(text: string): string | null {
  let found: string | null = null;
  for (const m of text.matchAll(/"version"\s*:\s*"(\d+\.\d+\.\d+[\w.+-]*)"/g)) found = m[1];
  return found;
}

async function fromBinary(command: string, env: Env): Promise<string | null> {
  const path = findOnPath(command, env);
  if (path === null) return null;
  let stamp: string;
  try {
    const info = Deno.statSync(Deno.realPathSync(path));
    stamp = `${info.mtime?.getTime() ?? 0}:${info.size}`;
  } catch {
    return null;
  }
  const known = byBinary.get(path);
  if (known?.stamp === stamp) return known.version;
  let version: string | null = null;
  try {
    // only what finding its own files needs: asm's environment holds keys that `--version` has no use for
    const own = Object.fromEntries(
      ["HOME", "PATH", "LANG", "CLAUDE_CONFIG_DIR"].flatMap((k) =>
        env[k] === undefined ? [] : [[k, env[k]!]]
      ),
    );
    const out = await new Deno.Command(path, {
      args: ["--version"],
      env: own,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(10_000),
    }).output();
    if (out.success) version = parseVersionOutput(new TextDecoder().decode(out.stdout));
  } catch {
    version = null;
  }
  byBinary.set(path, { stamp, version });
  return version;
}

/** The newest `~/.claude/projects/<slug>/<id>.jsonl`'s version (its last 64 KiB are read). */
export function newestTranscriptVersion(env: Env): string | null {
  const root = join(homeDir(env), ".claude", "projects");
  let newest: { path: string; mtime: number } | null = null;
  try {
    for (const project of Deno.readDirSync(root)) {
      if (!project.isDirectory) continue;
      for (const entry of Deno.readDirSync(join(root, project.name))) {
        if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
        const path = join(root, project.name, entry.name);
        const mtime = Deno.statSync(path).mtime?.getTime() ?? 0;
        if (newest === null || mtime > newest.mtime) newest = { path, mtime };
      }
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  if (newest === null) return null;
  try {
    return versionInTranscript(readTail(newest.path, 65_536));
  } catch (err) {
    // gone meanwhile, or not a regular file (a link, a FIFO): it names no version
    if (err instanceof Deno.errors.NotFound || err instanceof RefusedFile) return null;
    throw err;
  }
}

/** The installed Claude Code version, or null when neither the binary nor a transcript says. */
export async function claudeVersion(command: string, env: Env): Promise<string | null> {
  return (await fromBinary(command, env)) ?? newestTranscriptVersion(env);
}
