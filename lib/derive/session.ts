/**
 * From the facts of one session's byte pass to the row the ledger stores, pure: the title by precedence, the
 * closeout state, the project by scoring, the harness flag, the asm ids of its parent and of the session its
 * cleared context replaced.
 * @module
 */
import type { SessionFacts } from "./transcript_types.ts";
import { asmIdOf, type DerivedSession, underHarnessRoot } from "../ledger/mod.ts";
import { projectName, type ProjectRules, scoreProject } from "./project.ts";

export type { DerivedSession };

/** Closed, open, or null: nobody can say (no marker in this agent's format, or no closeout skill set). */
export type CloseoutState = "closed" | "open" | null;

/**
 * A session is closed out only when its own harness recorded the closeout skill as having run in it (any proxy
 * over-claims). "open" means the transcript was read and the marker is not there; null means nobody can say.
 */
export function closeoutOf(
  skills: Record<string, number>,
  closeoutSkill: string,
  markers: boolean,
): CloseoutState {
  if (!markers || closeoutSkill === "") return null;
  return (skills[closeoutSkill] ?? 0) > 0 ? "closed" : "open";
}

/** The title a list shows: a name the person gave, else the agent's title, its summary, the first message. */
export function titleOf(facts: SessionFacts): string | null {
  return facts.name ?? facts.title ?? facts.summary ?? facts.first_message;
}

/** What {@link deriveSession} needs beyond the facts. */
export interface DeriveContext {
  agent: string;
  /** the session's transcript (its first file) */
  transcriptPath: string;
  /** the compressed copy, when the agent keeps copies */
  transcriptCopy: string | null;
  /** agents.toml `closeout_skill` ("" = none) */
  closeoutSkill: string;
  /** the format records skill runs with a harness marker */
  skillMarkers: boolean;
  /** the transcript's paths resolved to project folders -> mentions */
  projectFolders: Record<string, number>;
  /** the working folder's own project folder (or the working folder itself) */
  home: string | null;
  rules: ProjectRules;
  /** every agent's closeout skill (they run in every finished session: never scored) */
  closeoutSkills: readonly string[];
  harnessRoots: readonly string[];
}

/** The ledger row of one session. */
export function deriveSession(facts: SessionFacts, ctx: DeriveContext): DerivedSession {
  const sessionId = facts.session_id;
  if (sessionId === null) throw new Error(`a session without an id cannot be stored (${ctx.transcriptPath})`);
  const score = scoreProject({
    folders: ctx.projectFolders,
    skills: facts.skills,
    home: ctx.home,
    rules: ctx.rules,
    alsoExcluded: ctx.closeoutSkills,
  });
  return {
    asm_id: asmIdOf(ctx.agent, sessionId),
    agent: ctx.agent,
    agent_session_id: sessionId,
    parent_asm_id: facts.parent_session_id === null ? null : asmIdOf(ctx.agent, facts.parent_session_id),
    cleared_from_asm_id: facts.cleared_from_session_id === null
      ? null
      : asmIdOf(ctx.agent, facts.cleared_from_session_id),
    source: facts.source,
    thread_source: facts.thread_source,
    cwd: facts.cwd,
    transcript_path: ctx.transcriptPath,
    transcript_copy: ctx.transcriptCopy,
    started_at: facts.started_at,
    last_seen: facts.last_seen,
    turns: facts.turns,
    first_message: facts.first_message,
    name: facts.name,
    title: titleOf(facts),
    summary: facts.summary,
    model: facts.model,
    context_tokens: facts.context_tokens,
    context_window: facts.context_window,
    agent_version: facts.agent_version,
    closeout_state: closeoutOf(facts.skills, ctx.closeoutSkill, ctx.skillMarkers),
    project: projectName(score.primary),
    primary_folder: score.primary,
    harness: underHarnessRoot(facts.cwd, ctx.harnessRoots),
    days: facts.days,
    folders: score.touched,
    skills: facts.skills,
  };
}
