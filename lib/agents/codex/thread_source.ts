/**
 * What Codex's `thread_source` says about a thread, mapped only where the value is known. Codex writes the field
 * verbatim (`codex --thread-source <anything>` is accepted); today's binaries write "user" for a thread a person
 * started, and Codex's own threads (sub-agents, reviews, compactions, memory passes) carry their own kinds. A value
 * not listed here is not known: it maps to null, the row stays shown, and the raw value stays in the row.
 * @module
 */
import type { SessionSource } from "../../derive/transcript_types.ts";

/** Known spellings, normalised (lower case, no `_`, `-` or spaces), and what each is evidence of. */
const KNOWN: Record<string, SessionSource | "user"> = {
  user: "user",
  subagent: "subagent",
  subagentreview: "subagent",
  subagentcompact: "subagent",
  subagentthreadspawn: "subagent",
  subagentother: "subagent",
  threadspawn: "subagent",
  review: "non-user",
  compact: "non-user",
  compaction: "non-user",
  memory: "non-user",
  memoryconsolidation: "non-user",
  guardian: "non-user",
  guardianreview: "non-user",
};

/**
 * The evidence a `thread_source` value is: "subagent" or "non-user" for a thread Codex made for itself, null for
 * a person's thread ("user") and for any value not known (neither hides a row; `source` speaks for those).
 */
export function threadSourceKind(raw: string | null): SessionSource | null {
  if (raw === null) return null;
  const kind = KNOWN[raw.toLowerCase().replace(/[\s_-]+/g, "")];
  return kind === undefined || kind === "user" ? null : kind;
}
