/**
 * The derived layer: the transcript contract every agent's reader implements (`transcript_types.ts`), the byte
 * pass that feeds a reader one file's lines, and what becomes of the facts a reader folds: a session row
 * (`session.ts`), its project (`project.ts`) and the heat map's series (`heatmap.ts`).
 *
 * The agents' transcript readers fold with `bytes.ts` and `facts.ts`, and `lib/history/read_file.ts` reads with
 * `byte_pass.ts`, importing them directly: the read workers load those files, and this face would load the
 * ledger into every worker with `session.ts`.
 * @module
 */
export type {
  EnrichInput,
  LineKind,
  ProblemSink,
  SessionFacts,
  SessionSource,
  TokenUsage,
  ToolInput,
  TranscriptCapability,
  TranscriptDirEntry,
  TranscriptFile,
  TranscriptFold,
  TranscriptHandle,
  TranscriptIo,
  TranscriptLine,
  TranscriptOpenOptions,
  TranscriptStat,
  ViewLine,
  ViewRecord,
} from "./transcript_types.ts";
export { type LineSink, passFile, type PassOptions, type PassOutcome, yieldToLoop } from "./byte_pass.ts";
export { simdAvailable } from "./newline_scan.ts";
export { projectName, type ProjectRules } from "./project.ts";
export { type DeriveContext, deriveSession, titleOf } from "./session.ts";
export { type HeatmapCell, type HeatmapSeries, heatmapSeries } from "./heatmap.ts";
