/**
 * Where Claude Code keeps transcripts (agents/claude-code.md section 3): `$HOME/.claude/projects/<slug>/<id>.jsonl`,
 * one file per session (a resume appends to the same file), sub-agents in
 * `<slug>/<id>/subagents/agent-<agentId>.jsonl`. The slug is lossy, so the working folder comes from the lines.
 * @module
 */
import { basename, dirname, join } from "node:path";
// deep on purpose: the read workers load this file; the faces would load smol-toml and the ledger into each
import { homeDir, relativeTo } from "../../config/paths.ts";
import { dirEntries } from "../dir_entries.ts";
import type { Env } from "../../config/mod.ts";
import type { ProblemSink, TranscriptFile, TranscriptIo } from "../../derive/mod.ts";

/** `$HOME/.claude`. */
export function claudeDir(env: Env): string {
  return join(homeDir(env), ".claude");
}

/** `$HOME/.claude/projects`: the transcript store. */
export function claudeProjectsDir(env: Env): string {
  return join(claudeDir(env), "projects");
}

type Shape = Pick<TranscriptFile, "sessionHint" | "role" | "parentSessionId">;

function fileAt(io: TranscriptIo, path: string, rel: string, shape: Shape): TranscriptFile | null {
  const st = io.stat(path);
  if (st === null || !st.isFile) return null;
  return {
    agent: "claude",
    path,
    sessionHint: shape.sessionHint,
    role: shape.role,
    parentSessionId: shape.parentSessionId,
    cwd: null,
    rel,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
  };
}

/** The shape of a `.jsonl` file from its path in the store, cut at "/" (the walk knows them without cutting). */
function shapeOfParts(parts: readonly string[]): Shape | null {
  const stem = parts[parts.length - 1].slice(0, -".jsonl".length);
  if (parts.length === 2) {
    // older versions kept sub-agents beside the sessions as agent-<id>.jsonl; the lines name the parent
    if (stem.startsWith("agent-")) return { sessionHint: stem, role: "subagent", parentSessionId: null };
    return { sessionHint: stem, role: "main", parentSessionId: null };
  }
  if (parts.length === 4 && parts[2] === "subagents") {
    return { sessionHint: `${parts[1]}/${stem}`, role: "subagent", parentSessionId: parts[1] };
  }
  return null;
}

/** What a path inside the store is: a main transcript, a sub-agent's, or neither. */
export function claudeShape(path: string, root: string): Shape | null {
  const rel = relativeTo(root, path);
  if (rel.startsWith("..") || !path.endsWith(".jsonl")) return null;
  return shapeOfParts(rel.split("/"));
}

/** Every Claude transcript on disk, main and sub-agent. */
export function discoverClaude(env: Env, io: TranscriptIo, problem: ProblemSink): TranscriptFile[] {
  const root = claudeProjectsDir(env);
  const out: TranscriptFile[] = [];
  const entries = (path: string) => dirEntries(io, path, problem);
  for (const slug of entries(root)) {
    if (!slug.isDirectory) continue;
    const slugDir = join(root, slug.name);
    for (const entry of entries(slugDir)) {
      const path = `${slugDir}/${entry.name}`;
      if (entry.isFile && entry.name.endsWith(".jsonl")) {
        const parts = [slug.name, entry.name];
        const shape = shapeOfParts(parts);
        const file = shape && fileAt(io, path, parts.join("/"), shape);
        if (file) out.push(file);
      } else if (entry.isDirectory) {
        // <slug>/<session id>/ holds sub-agents (and custom-title.json, tasks); only subagents/ has transcripts
        const sub = `${path}/subagents`;
        for (const agentFile of entries(sub)) {
          if (!agentFile.isFile || !agentFile.name.endsWith(".jsonl")) continue;
          const parts = [slug.name, entry.name, "subagents", agentFile.name];
          const shape = shapeOfParts(parts);
          const file = shape && fileAt(io, `${sub}/${agentFile.name}`, parts.join("/"), shape);
          if (file) out.push(file);
        }
      }
    }
  }
  return out;
}

/** The transcript at a known path (a refresh), or null when it is not a Claude transcript. */
export function claudeFileOf(path: string, env: Env, io: TranscriptIo): TranscriptFile | null {
  const root = claudeProjectsDir(env);
  const shape = claudeShape(path, root);
  return shape && fileAt(io, path, relativeTo(root, path), shape);
}

/** The `<slug>/<id>/subagents/agent-<x>.meta.json` beside a sub-agent transcript. */
export function subagentMetaPath(path: string): string {
  return join(dirname(path), `${basename(path, ".jsonl")}.meta.json`);
}
