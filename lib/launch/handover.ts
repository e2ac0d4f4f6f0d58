/**
 * Continue-with: the prompt a new agent starts with when it takes over work from another session. Pure. It names
 * the predecessor (its agent, its name, its session ids) and points at the project's work log: the predecessor's
 * own transcript, the record of what was done, which the new agent reads with its own tools.
 * @module
 */

/** The session being continued. */
export interface Predecessor {
  /** The agent's display name (`Claude Code`). */
  display: string;
  name: string | null;
  agentSessionId: string;
  asmId: string;
  transcriptPath: string | null;
}

/** The prompt of a continue-with: the prefix, a blank line, then the request (or the opener when there is none). */
export function handoverPrompt(before: Predecessor, request: string): string {
  const named = before.name ? ` "${before.name}"` : "";
  const log = before.transcriptPath
    ? `The project's work log is that session's transcript: ${before.transcriptPath}. Read it before you start.`
    : "asm has no transcript of that session; ask me where the project's work log is before you start.";
  return [
    `You are continuing work started in ${before.display} session${named} ` +
    `(${before.display} session id ${before.agentSessionId}; asm id ${before.asmId}), in this same folder.`,
    log,
    "",
    request,
  ].join("\n");
}
