/**
 * Project attribution (the spec's Phase 4 scoring), pure: a session belongs to the project folder it worked on,
 * not to the folder its window opened in. Each mention of a project folder scores 1; each run of a skill that
 * names a project scores 25 for that project; the highest score wins, ties broken alphabetically (never by
 * insertion order, or a session would move between projects on a restart); with no score at all, the working
 * folder's own project. Every scoring folder is kept as "touched".
 * @module
 */

/** What maps skills to projects (from `$ASM_HOME/config.toml` `[projects]`). */
export interface ProjectRules {
  /** skill name -> the project folder it names */
  skillFolders: Record<string, string>;
  /** skills never scored (added to {@link EXCLUDED_SKILLS}) */
  excludedSkills: readonly string[];
}

/**
 * Skills that run in (nearly) every session, so they must never score: at 25 points a run, one of them would
 * file every session under whatever folder it names. Deliberately listed here so nobody maps them again while
 * tidying the config. The closeout skill of each agent is added by the caller.
 */
export const EXCLUDED_SKILLS: readonly string[] = [
  "session-start", // a session-start routine runs in every session
  "closeout", // the default closeout skill: every finished session runs it
  "describe", // the describe command rewrites every session's description
];

/** The scores of one session. */
export interface ProjectScore {
  /** The winning project folder, or null when nothing names one and there is no working folder. */
  primary: string | null;
  /** Every scoring folder with its score (the "touched" counts). */
  touched: Record<string, number>;
}

/** What the scoring needs: project folders already resolved from the transcript's paths. */
export interface ScoreInput {
  /** project folder -> mentions */
  folders: Record<string, number>;
  /** skill -> runs */
  skills: Record<string, number>;
  /** the working folder's own project folder (the fallback) */
  home: string | null;
  rules: ProjectRules;
  /** more skills to leave out (the agents' closeout skills) */
  alsoExcluded?: readonly string[];
}

/** Scores one session. */
export function scoreProject(input: ScoreInput): ProjectScore {
  const touched: Record<string, number> = {};
  for (const [folder, n] of Object.entries(input.folders)) {
    if (n > 0) touched[folder] = (touched[folder] ?? 0) + n;
  }
  const excluded = new Set([
    ...EXCLUDED_SKILLS,
    ...input.rules.excludedSkills,
    ...(input.alsoExcluded ?? []),
  ]);
  for (const [skill, runs] of Object.entries(input.skills)) {
    if (excluded.has(skill) || runs <= 0) continue;
    const folder = input.rules.skillFolders[skill];
    if (folder) touched[folder] = (touched[folder] ?? 0) + 25 * runs;
  }
  let primary: string | null = null;
  for (const folder of Object.keys(touched).sort()) {
    // sorted, and only a strictly higher score replaces: a tie keeps the alphabetically first
    if (primary === null || touched[folder] > touched[primary]) primary = folder;
  }
  return { primary: primary ?? input.home, touched };
}

/** The label of a project folder: its last path segment. */
export function projectName(folder: string | null): string | null {
  if (folder === null) return null;
  const trimmed = folder.replace(/\/+$/, "");
  const name = trimmed.slice(trimmed.lastIndexOf("/") + 1);
  return name === "" ? folder : name;
}
