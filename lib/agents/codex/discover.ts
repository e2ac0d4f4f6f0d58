/**
 * Where Codex keeps transcripts (agents/codex.md section 3): `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl`
 * (UTC day of the thread's creation; a resume appends to the same file), and `$CODEX_HOME/archived_sessions/` for
 * threads the person archived (still history). The TypeScript CLI (up to 0.1.2505172129) kept one JSON document per
 * session, `sessions/rollout-<day>-<id>.json`, rewritten whole (session_document.ts).
 * @module
 */
import { basename, join, relative } from "node:path";
// deep on purpose: the read workers load this file; the faces would load smol-toml and the ledger into each
import { relativeTo } from "../../config/paths.ts";
import { dirEntries } from "../dir_entries.ts";
import type { Env } from "../../config/mod.ts";
import type { ProblemSink, TranscriptFile, TranscriptIo } from "../../derive/mod.ts";
import { codexHome } from "./home.ts";
import { sessionDocumentId } from "./session_document.ts";

const ROLLOUT = /^rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** The thread id a rollout's file name carries, or null when the name is not a rollout's. */
export function rolloutThreadId(name: string): string | null {
  return name.match(ROLLOUT)?.[1] ?? null;
}

function fileAt(io: TranscriptIo, root: string, path: string, name = basename(path)): TranscriptFile | null {
  const document = sessionDocumentId(name);
  const id = rolloutThreadId(name) ?? document;
  if (id === null) return null;
  const st = io.stat(path);
  if (st === null || !st.isFile) return null;
  return {
    agent: "codex",
    path,
    sessionHint: id,
    role: "main",
    parentSessionId: null,
    cwd: null,
    rel: relativeTo(root, path),
    size: st.size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
    ...(document === null ? {} : { whole: true }),
  };
}

/** Every rollout on disk: `sessions/` (any depth up to the day folders) and `archived_sessions/`. */
export function discoverCodex(env: Env, io: TranscriptIo, problem: ProblemSink): TranscriptFile[] {
  const root = codexHome(env);
  const out: TranscriptFile[] = [];
  const walk = (dir: string, depth: number) => {
    for (const e of dirEntries(io, dir, problem)) {
      const path = `${dir}/${e.name}`;
      if (e.isFile && (e.name.endsWith(".jsonl") || e.name.endsWith(".json"))) {
        const file = fileAt(io, root, path, e.name);
        if (file) out.push(file);
      } else if (e.isDirectory && depth > 0) walk(path, depth - 1);
    }
  };
  walk(join(root, "sessions"), 3);
  walk(join(root, "archived_sessions"), 3);
  return out;
}

/** The rollout at a known path (a refresh), or null when it is not one under `$CODEX_HOME`. */
export function codexFileOf(path: string, env: Env, io: TranscriptIo): TranscriptFile | null {
  const root = codexHome(env);
  if (relative(root, path).startsWith("..")) return null;
  return fileAt(io, root, path);
}
