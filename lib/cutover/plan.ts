/**
 * The cutover's pure core: the eight steps by number and name, the pre-flight's judgement, and the rollback's
 * plan read out of the journal (which steps to undo, newest first, and for each file whether to put its old
 * bytes back). Facts in, decisions out; `steps.ts` does the I/O.
 * @module
 */
import type { FileAfter, FileBefore, FileState, JournalRecord, StepFacts } from "./journal.ts";

/** The steps, in order; a step's number is its index + 1. */
export const STEP_NAMES = [
  "back up every agent hook config and config.toml",
  "install the hooks for every agent found",
  "point the board at the real lists",
  "write the real lists into the real-list guard",
  "enable the autostart unit",
  'set mode = "live"',
  "restart by the port's owner",
  "post-check: health, the first board pass as a dry run, a canary event drained",
] as const;

/** One pre-flight check and what it found. */
export interface PreflightCheck {
  name: string;
  ok: boolean;
  /** What was found (ok) or what stops the cutover and how to fix it (not ok), one sentence. */
  text: string;
}

/** The pre-flight passes only when every check does. */
export function preflightPasses(checks: readonly PreflightCheck[]): boolean {
  return checks.every((c) => c.ok);
}

/** A gate run as `./asm verify` records it. */
export interface GateRun {
  gate: string;
  at: string;
  passed: number;
  failed: number;
  commit: string | null;
}

/** What the gates' judgement knows besides the runs. */
export interface GatesFacts {
  /** The gates this asm has (a checkout's); those never run are named. Empty: unknown (the one file). */
  known: readonly string[];
  /** The commit this asm was built from; a run on another commit proves nothing about it. Null: unknown. */
  commit: string | null;
}

/**
 * The gates' judgement: the newest run of every gate that was run (the last one written: the record is appended
 * as each run ends, so a date in it cannot put a run ahead of a later one) is green and ran on this commit, and
 * at least one was run. Gates never run are named, not required (the live gates take minutes each).
 */
export function gatesCheck(
  runs: readonly GateRun[],
  facts: GatesFacts = { known: [], commit: null },
): PreflightCheck {
  const newest = new Map<string, GateRun>();
  for (const run of runs) newest.set(run.gate, run);
  if (newest.size === 0) {
    return {
      name: "gates",
      ok: false,
      text:
        "no gate run is recorded in this data folder: run the gates of your testing setup (`./asm verify " +
        "<gate>` from a checkout of asm, with this ASM_HOME) and cut over once they pass",
    };
  }
  const last = [...newest.values()];
  const red = last.filter((r) => r.failed > 0 || r.passed === 0);
  if (red.length > 0) {
    return {
      name: "gates",
      ok: false,
      text: `the last run of ${
        red.map((r) => `${r.gate} (${r.failed} failed, ${r.at})`).join(", ")
      } is not ` +
        "green: fix it and run it again before the cutover",
    };
  }
  const known = (c: string | null) => c !== null && c !== "unknown";
  const other = last.filter((r) => known(facts.commit) && known(r.commit) && r.commit !== facts.commit);
  if (other.length > 0) {
    return {
      name: "gates",
      ok: false,
      text: `${other.map((r) => `${r.gate} ran on commit ${r.commit}`).join(", ")}, but this asm is ` +
        `${facts.commit}: run ${other.length === 1 ? "it" : "them"} again on the asm you cut over to`,
    };
  }
  const list = last.map((r) => `${r.gate} ${r.at.slice(0, 16).replace("T", " ")}`).join(", ");
  const never = facts.known.filter((g) => !newest.has(g));
  return {
    name: "gates",
    ok: true,
    text: `the newest run of each gate run here is green (${list})` +
      (never.length ? `; never run here: ${never.join(", ")}` : ""),
  };
}

/** The runs of the journal: each cutover run's records, in order. */
function runsOf(records: readonly JournalRecord[]): Map<string, JournalRecord[]> {
  const runs = new Map<string, JournalRecord[]>();
  for (const r of records) {
    if (!runs.has(r.run)) runs.set(r.run, []);
    runs.get(r.run)!.push(r);
  }
  return runs;
}

/** Where the newest cutover stands: none, in place (finished or stopped), or rolled back. */
export type CutoverStanding =
  | { kind: "none" }
  | { kind: "rolled-back"; run: string }
  | { kind: "in-place"; run: string; finished: boolean; lastStep: number; failed: number | null };

/** The newest cutover's standing, from the journal. */
export function standing(records: readonly JournalRecord[]): CutoverStanding {
  const runs = [...runsOf(records).entries()];
  if (runs.length === 0) return { kind: "none" };
  const [run, recs] = runs[runs.length - 1];
  if (recs.some((r) => r.kind === "rolled-back")) return { kind: "rolled-back", run };
  const begun = recs.filter((r) => r.kind === "begin").map((r) => r.step);
  const failed = recs.find((r) => r.kind === "failed");
  return {
    kind: "in-place",
    run,
    finished: recs.some((r) => r.kind === "finished"),
    lastStep: begun.length ? Math.max(...begun) : 0,
    failed: failed?.kind === "failed" ? failed.step : null,
  };
}

/** A step the rollback undoes: what the journal said before it ran and, when it finished, after. */
export interface UndoStep {
  step: number;
  name: string;
  files: FileBefore[];
  /** The files after the step, by path; null when the step never finished (it failed or the run stopped). */
  after: Map<string, FileAfter> | null;
  facts: StepFacts;
  /** The finished step's own facts (e.g. which server it started); {} when it never finished. */
  doneFacts: StepFacts;
}

/**
 * What the rollback of the newest cutover undoes: every step that began and is not undone yet, newest first.
 * Null when there is nothing to roll back (no cutover, or its rollback finished).
 */
export function rollbackPlan(records: readonly JournalRecord[]): { run: string; steps: UndoStep[] } | null {
  const now = standing(records);
  if (now.kind !== "in-place") return null;
  const recs = runsOf(records).get(now.run)!;
  const undone = new Set(recs.filter((r) => r.kind === "undo").map((r) => r.step));
  const steps: UndoStep[] = [];
  for (const r of recs) {
    if (r.kind !== "begin" || undone.has(r.step)) continue;
    const done = recs.find((d) => d.kind === "done" && d.step === r.step);
    steps.push({
      step: r.step,
      name: r.name,
      files: r.files,
      facts: r.facts,
      after: done?.kind === "done" ? new Map(done.files.map((f) => [f.path, f])) : null,
      doneFacts: done?.kind === "done" ? done.facts : {},
    });
  }
  return { run: now.run, steps: steps.sort((a, b) => b.step - a.step) };
}

/** What to do with one file of a step being undone. */
export type FileDecision =
  /** it is as it was before the step, or the step did not change it: nothing to do */
  | "unchanged"
  /** put the kept bytes back (or remove it, when there was none) */
  | "restore"
  /** someone changed it after the step: the step's own undo edits it, or it is left and said */
  | "changed-since";

/**
 * One file's undo. A finished step's file is restored only when it still holds what the step wrote; an
 * unfinished step's file is restored whatever it holds (the step stopped part way: what is there is its own).
 */
export function fileDecision(before: FileState, after: FileState | null, current: FileState): FileDecision {
  if (current.sha256 === before.sha256 && current.mode === before.mode) return "unchanged";
  if (after === null) return "restore";
  // the step left it as it was: whatever it holds now is someone else's doing, not the step's to undo
  if (after.sha256 === before.sha256 && after.mode === before.mode) return "unchanged";
  return current.sha256 === after.sha256 ? "restore" : "changed-since";
}

/** A doctor finding as the pre-flight reads it (lib/doctor's `Finding`). */
export interface DoctorFinding {
  subject: string;
  check: string;
  severity: string;
  text: string;
  fix: string | null;
}

/**
 * The doctor's judgement for the cutover: nothing broken, except what the cutover itself fixes (the hooks, their
 * runtime and the unit: each says `asm install`; a server that is not running: step 7 starts it).
 */
export function doctorCheck(findings: readonly DoctorFinding[]): PreflightCheck {
  // hooks waiting for the person's trust are what the cutover's own install leaves: said at step 2, not a blocker
  const fixedByCutover = (f: DoctorFinding) =>
    f.fix === "asm install" || f.check === "trust" ||
    (f.subject === "asm" && f.check === "server" && /asm serve/.test(f.fix ?? ""));
  const broken = findings.filter((f) => f.severity === "broken");
  const blocking = broken.filter((f) => !fixedByCutover(f));
  if (blocking.length > 0) {
    return {
      name: "doctor",
      ok: false,
      text: `asm doctor finds ${blocking.length} thing(s) broken that the cutover does not fix: ` +
        blocking.map((f) => f.text).join(" "),
    };
  }
  return {
    name: "doctor",
    ok: true,
    text: broken.length === 0
      ? "asm doctor finds nothing broken"
      : `asm doctor finds nothing broken that the cutover does not fix (${broken.length} it fixes: ` +
        `${[...new Set(broken.map((f) => `${f.subject} ${f.check}`))].join(", ")})`,
  };
}
