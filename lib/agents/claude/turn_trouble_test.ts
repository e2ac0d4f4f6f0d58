import assert from "node:assert/strict";
import { troubleReason, turnTrouble } from "./turn_trouble.ts";
import { withTrouble } from "./live.ts";

// lines of the shapes Claude Code 2.1.328 wrote against a fake answering 529 (trimmed to what is read)
const typed = (text: string) =>
  JSON.stringify({ type: "user", message: { role: "user", content: text }, promptSource: "typed" });
const request = (digest: string) =>
  JSON.stringify({ type: "api-request", id: crypto.randomUUID(), requestDigest: digest });
const answer = (text: string) =>
  JSON.stringify({
    type: "assistant",
    message: { model: "claude-opus-5-5", content: [{ type: "text", text }] },
  });
const failure = JSON.stringify({
  type: "assistant",
  message: {
    model: "<synthetic>",
    content: [{ type: "text", text: "API Error: Repeated 529 Overloaded errors." }],
  },
  isApiErrorMessage: true,
  apiErrorStatus: 529,
  apiErrorType: "overloaded_error",
});
const meta = JSON.stringify({ type: "attachment", attachment: { type: "date" } });
const tail = (...lines: string[]) => lines.join("\n") + "\n";

Deno.test("a turn's trouble: retries are the same request sent again; a failed turn ends in the agent's error message", () => {
  const rows: [string, string, ReturnType<typeof turnTrouble>][] = [
    ["a plain turn in progress", tail(typed("hi"), meta, request("d1")), null],
    ["one retry of the same request", tail(typed("hi"), request("d1"), meta, request("d1")), {
      kind: "retrying",
      attempt: 1,
    }],
    ["two retries", tail(typed("hi"), request("d1"), request("d1"), request("d1")), {
      kind: "retrying",
      attempt: 2,
    }],
    [
      "a tool turn's next request is another request, not a retry",
      tail(typed("hi"), request("d1"), answer("x"), request("d2")),
      null,
    ],
    ["answered after its retries", tail(typed("hi"), request("d1"), request("d1"), answer("ok")), null],
    [
      "given up on: the agent's error message ends the turn",
      tail(typed("hi"), request("d1"), request("d1"), request("d1"), failure),
      {
        kind: "failed",
        status: 529,
        type: "overloaded_error",
        message: "API Error: Repeated 529 Overloaded errors.",
      },
    ],
    [
      "a failed turn followed by a new prompt is over",
      tail(typed("hi"), failure, typed("again"), request("d4")),
      null,
    ],
    [
      "a retry in an earlier turn is not this turn's",
      tail(typed("a"), request("d1"), request("d1"), answer("ok"), typed("b"), request("d2")),
      null,
    ],
    [
      "a cut first line and garbage are skipped",
      '{"type":"api-requ\nnot json\n' + tail(request("d1"), request("d1")),
      {
        kind: "retrying",
        attempt: 1,
      },
    ],
  ];
  for (const [name, text, want] of rows) assert.deepEqual(turnTrouble(text), want, name);
});

Deno.test("a busy session in a retry reads Retrying, an idle one whose turn failed reads failed with its message", () => {
  const busy = { state: "working" as const, raw: "busy", reason: null, at: null };
  const idle = { state: "idle" as const, raw: "idle", reason: null, at: null };
  assert.deepEqual(withTrouble(busy, { kind: "retrying", attempt: 2 }), {
    ...busy,
    state: "retrying",
    reason: "the API answered with an error; retry 2",
  });
  const failed = {
    kind: "failed" as const,
    status: 529,
    type: "overloaded_error",
    message: "API Error: Repeated 529 Overloaded errors.",
  };
  assert.deepEqual(withTrouble(idle, failed), {
    ...idle,
    state: "failed",
    reason: "API Error: Repeated 529 Overloaded errors.",
  });
  // an error message without text: the status and type say what failed
  assert.deepEqual(withTrouble(idle, { ...failed, message: null }), {
    ...idle,
    state: "failed",
    reason: "the last turn failed: API error 529 (overloaded_error)",
  });
  // the record's word stands where the transcript does not contradict it
  assert.deepEqual(withTrouble(busy, { ...failed, type: null }), busy);
  assert.deepEqual(withTrouble(idle, { kind: "retrying", attempt: 1 }), idle);
  assert.deepEqual(withTrouble(busy, null), busy);
  assert.equal(
    troubleReason({ kind: "failed", status: null, type: null, message: null }),
    "the last turn failed: an API error",
  );
});
