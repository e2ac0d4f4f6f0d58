/**
 * A turn in trouble, from the tail of Claude Code's transcript (observed on 2.1.328 against a fake answering 529):
 * while the API answers with errors, Claude writes an `api-request` line for every attempt and its registry
 * keeps saying `busy`; a retry repeats the previous request exactly (the same `requestDigest`). When it gives up,
 * it writes a synthetic assistant message with `isApiErrorMessage: true`, `apiErrorStatus` and `apiErrorType`,
 * and goes `idle`. Without this, a session retrying read "Working" and one whose turn failed read "Idle". A failed
 * turn's reason is that message's own text (`API Error: Repeated 529 Overloaded errors.`).
 * Pure: text in, a reading out.
 * @module
 */
import { failureText } from "../failure_text.ts";

/** What the tail says about the current turn, when something is wrong with it. */
export type TurnTrouble =
  /** the same request sent again after an error: `attempt` is how many retries so far */
  | { kind: "retrying"; attempt: number }
  /** the last turn ended on an API error the agent gave up on */
  | { kind: "failed"; status: number | null; type: string | null; message: string | null };

interface Line {
  type: string;
  digest?: string;
  apiError?: { status: number | null; type: string | null; message: string | null };
  typed?: boolean;
}

/** The lines that matter, parsed only when their head says they might (most of a tail is something else). */
function linesOf(tail: string): Line[] {
  const out: Line[] = [];
  for (const raw of tail.split("\n")) {
    if (!raw.startsWith("{")) continue;
    const head = raw.slice(0, 200);
    const maybe = head.includes('"type":"api-request"') || head.includes('"type":"assistant"') ||
      raw.includes('"isApiErrorMessage"') || head.includes('"type":"user"') ||
      raw.includes('"promptSource":"typed"');
    if (!maybe) continue;
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(raw);
    } catch {
      continue; // a line being written, or a cut first line
    }
    if (j.type === "api-request") {
      out.push({
        type: "request",
        digest: typeof j.requestDigest === "string" ? j.requestDigest : undefined,
      });
    } else if (j.type === "assistant") {
      out.push({
        type: "assistant",
        apiError: j.isApiErrorMessage === true
          ? {
            status: typeof j.apiErrorStatus === "number" ? j.apiErrorStatus : null,
            type: typeof j.apiErrorType === "string" ? j.apiErrorType : null,
            message: failureText(textOf(j.message)),
          }
          : undefined,
      });
    } else if (j.type === "user" && isTyped(j)) {
      out.push({ type: "user", typed: true });
    }
  }
  return out;
}

/** The text blocks of an assistant message, joined; null when it holds none. */
function textOf(message: unknown): string | null {
  const content = (message as { content?: unknown } | null)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const texts = content
    .filter((b): b is { type: "text"; text: string } => b?.type === "text" && typeof b.text === "string")
    .map((b) => b.text);
  return texts.length ? texts.join(" ") : null;
}

/** A prompt a person (or a script) gave: not a tool result, a reminder or a task notification. */
function isTyped(j: Record<string, unknown>): boolean {
  if (j.promptSource === "typed" || j.promptSource === "sdk") return true;
  const origin = j.origin as { kind?: unknown } | undefined;
  return j.isMeta !== true && origin?.kind === "human";
}

/** The trouble of the turn the tail ends in, or null when there is none (or the tail cannot say). */
export function turnTrouble(tail: string): TurnTrouble | null {
  const lines = linesOf(tail);
  // the current turn: what follows the last typed prompt (or the whole tail when it holds none)
  let start = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].type === "user") {
      start = i + 1;
      break;
    }
  }
  const turn = lines.slice(start);
  const lastAssistant = turn.findLastIndex((l) => l.type === "assistant");
  if (lastAssistant >= 0 && turn[lastAssistant].apiError && lastAssistant === turn.length - 1) {
    return { kind: "failed", ...turn[lastAssistant].apiError! };
  }
  // requests since the last answer: the trailing ones that repeat the same request are retries
  const requests = turn.slice(lastAssistant + 1).filter((l) => l.type === "request");
  const last = requests.at(-1);
  if (!last?.digest) return null;
  let same = 0;
  for (let i = requests.length - 1; i >= 0 && requests[i].digest === last.digest; i--) same++;
  return same >= 2 ? { kind: "retrying", attempt: same - 1 } : null;
}

/** The reason a person reads for a turn in trouble: a failed turn's own message when it has one. */
export function troubleReason(trouble: TurnTrouble): string {
  if (trouble.kind === "retrying") {
    return `the API answered with an error; retry ${trouble.attempt}`;
  }
  if (trouble.message !== null) return trouble.message;
  const what = trouble.status === null ? "an API error" : `API error ${trouble.status}`;
  return `the last turn failed: ${what}${trouble.type ? ` (${trouble.type})` : ""}`;
}
