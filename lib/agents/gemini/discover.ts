/**
 * Where Gemini CLI keeps transcripts (agents/gemini.md section 3):
 * `$GEMINI_CLI_HOME/.gemini/tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl`
 * (GEMINI_CLI_HOME defaulting to HOME). The slug is the folder's basename registered in `projects.json`; the
 * folder itself is in `tmp/<slug>/.project_root`. One session can have two files (a resume in a later minute
 * writes a second one), so the session id comes from the file's header, not its name.
 *
 * Versions before 0.39 wrote `session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.json` instead: one JSON document,
 * rewritten whole (the file is marked `whole`), up to 0.29 under `tmp/<sha256 of the folder>/` with no
 * registry (the folder is then not known). 0.39 and later resume such a session into `<same name>.jsonl`.
 * @module
 */
import { basename, dirname, join, relative } from "node:path";
// deep on purpose: the read workers load this file; the faces would load smol-toml and the ledger into each
import { homeDir, relativeTo } from "../../config/paths.ts";
import { parseObject } from "../../derive/bytes.ts";
import { dirEntries } from "../dir_entries.ts";
import type { Env } from "../../config/mod.ts";
import type { ProblemSink, TranscriptFile, TranscriptIo } from "../../derive/mod.ts";
import { isRecord } from "../../lang/mod.ts";

/** `$GEMINI_CLI_HOME/.gemini` (GEMINI_CLI_HOME defaulting to HOME). */
export function geminiDir(env: Env): string {
  return join(env.GEMINI_CLI_HOME || homeDir(env), ".gemini");
}

const SESSION_FILE = /^session-.*\.jsonl?$/;

/** The working folder of a slug: `tmp/<slug>/.project_root`, else the `projects.json` registry. */
function slugFolders(env: Env, io: TranscriptIo): (slug: string) => string | null {
  let registry: Map<string, string> | null = null;
  return (slug) => {
    const root = io.readText(join(geminiDir(env), "tmp", slug, ".project_root"), 64 << 10)?.trim();
    if (root) return root;
    if (registry === null) {
      registry = new Map();
      const projects = parseObject(io.readText(join(geminiDir(env), "projects.json"), 4 << 20) ?? "")
        ?.projects;
      if (isRecord(projects)) {
        for (const [folder, s] of Object.entries(projects)) {
          if (typeof s === "string") registry.set(s, folder);
        }
      }
    }
    return registry.get(slug) ?? null;
  };
}

function fileAt(io: TranscriptIo, root: string, path: string, cwd: string | null): TranscriptFile | null {
  if (!SESSION_FILE.test(basename(path))) return null;
  const st = io.stat(path);
  if (st === null || !st.isFile) return null;
  return {
    agent: "gemini",
    path,
    sessionHint: null,
    role: "main",
    parentSessionId: null,
    cwd,
    rel: relativeTo(root, path),
    size: st.size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
    ...(path.endsWith(".json") ? { whole: true } : {}),
  };
}

/** Every Gemini session file on disk. */
export function discoverGemini(env: Env, io: TranscriptIo, problem: ProblemSink): TranscriptFile[] {
  const root = geminiDir(env);
  const tmp = join(root, "tmp");
  const folderOf = slugFolders(env, io);
  const out: TranscriptFile[] = [];
  const entries = (path: string) => dirEntries(io, path, problem);
  for (const slug of entries(tmp)) {
    if (!slug.isDirectory) continue;
    const chats = join(tmp, slug.name, "chats");
    const files = entries(chats).filter((e) => e.isFile && SESSION_FILE.test(e.name));
    if (files.length === 0) continue;
    const cwd = folderOf(slug.name);
    for (const e of files) {
      const file = fileAt(io, root, join(chats, e.name), cwd);
      if (file) out.push(file);
    }
  }
  return out;
}

/** The session file at a known path (a refresh), or null when it is not one. */
export function geminiFileOf(path: string, env: Env, io: TranscriptIo): TranscriptFile | null {
  const root = geminiDir(env);
  const rel = relative(join(root, "tmp"), path).split("/");
  if (rel[0] === ".." || rel.length !== 3 || rel[1] !== "chats") return null;
  return fileAt(io, root, path, slugFolders(env, io)(rel[0]));
}

/** `tmp/<slug>/logs.json` beside a session file: what was typed interactively in that folder. */
export function geminiLogsPath(sessionFile: string): string {
  return join(dirname(dirname(sessionFile)), "logs.json");
}

/**
 * The id tag a session file's name carries (`session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl`, or `.json`
 * before 0.39), or null.
 */
export function geminiFileTag(path: string): string | null {
  return basename(path).match(/^session-\d{4}-\d\d-\d\dT\d\d-\d\d-(.{1,8})\.jsonl?$/)?.[1] ?? null;
}
