/**
 * A Gemini CLI turn that failed, from the tail of its chat file (observed on 0.61 against a fake answering 400):
 * when the API answers with an error Gemini does not retry (or stops retrying), it appends an `error` record
 * whose `content` is the message it showed (`[API Error: {"error":{"code":400,...}}]`), then an `info` note
 * ("This request failed. ..."), and its AfterAgent hook still fires (a Stop: the hooks alone read Idle). The turn
 * failed while that error is the newest user, reply or error record; a new prompt's `user` record ends it.
 * Retries leave nothing: against 503 three times then 200, the chat held the prompt and then the reply, nothing
 * between, and `logs.json` and the project's temporary folder had nothing either (see docs/runbook.md).
 * Pure: text in, a reading out.
 * @module
 */
import { failureText } from "../failure_text.ts";

/** A failed turn: its message as Gemini recorded it (one bounded plain line), and when. */
export interface GeminiTurnFailure {
  message: string;
  /** The error record's `timestamp`, or null when it has none. */
  at: string | null;
}

/** The records that end or begin a turn. `info` and `warning` notes say nothing of it. */
const TURN_RECORDS = new Set(["user", "gemini", "error"]);

/** Pure: the failure the chat's tail ends in, or null when its newest turn record is not an error. */
export function chatTurnFailure(tail: string): GeminiTurnFailure | null {
  const lines = tail.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    // a record line opens with its id; `$set` lines and the header are state, not records
    if (!line.startsWith('{"id":')) continue;
    let record: { type?: unknown; content?: unknown; timestamp?: unknown };
    try {
      record = JSON.parse(line);
    } catch {
      continue; // the first line of a tail is usually cut; a half-written last line is read whole next poll
    }
    if (typeof record.type !== "string" || !TURN_RECORDS.has(record.type)) continue;
    if (record.type !== "error") return null;
    return {
      message: failureText(record.content) ?? "the turn ended on an error Gemini CLI did not describe",
      at: typeof record.timestamp === "string" ? record.timestamp : null,
    };
  }
  return null;
}
