import assert from "node:assert/strict";
import {
  type Resolution,
  resolutionProblem,
  resolveSession,
  type SessionRef,
  shortIds,
} from "./session_ref.ts";

const A = { asm_id: "3f2a9c1e-0000-5000-8000-000000000001", agent: "claude", agent_session_id: "aaaa1111-x" };
const B = { asm_id: "3f2a9c1e-0000-5000-8000-000000000002", agent: "codex", agent_session_id: "bbbb2222-y" };
const C = {
  asm_id: "77c0ffee-0000-5000-8000-000000000003",
  agent: "gemini",
  agent_session_id: "3f2a-own-id",
};
const D = { asm_id: "9d00d00d-0000-5000-8000-000000000004", agent: "claude", agent_session_id: "cccc3333-z" };
const SESSIONS: SessionRef[] = [A, B, C, D];

function named(r: Resolution): string {
  if (r.kind === "found") return r.session.asm_id;
  if (r.kind === "ambiguous") return `ambiguous: ${r.candidates.map((c) => c.asm_id.slice(-1)).join(",")}`;
  return r.kind;
}

const ROWS: [string, string, string][] = [
  ["a full asm id names its session", A.asm_id, A.asm_id],
  ["a unique prefix of an asm id names its session", "77c0", C.asm_id],
  ["a prefix two asm ids share is ambiguous, with both as candidates", "3f2a9c1e", "ambiguous: 1,2"],
  ["a longer prefix tells the two apart", "3f2a9c1e-0000-5000-8000-000000000002", B.asm_id],
  ["the agent's own full id names its session", "bbbb2222-y", B.asm_id],
  ["a unique prefix of the agent's own id names its session", "cccc", D.asm_id],
  // "3f2a" begins two asm ids and one agent id: the asm ids win, and two of them is still ambiguous
  ["an asm-id prefix wins over an agent-id prefix", "3f2a", "ambiguous: 1,2"],
  ["a prefix shorter than four characters names nothing, even when unique", "9d0", "too short"],
  ["an id nobody has is unknown", "ffff", "unknown"],
];

for (const [name, ref, want] of ROWS) {
  Deno.test(name, () => assert.equal(named(resolveSession(ref, SESSIONS)), want));
}

Deno.test("an unknown or too-short reference is one sentence naming it", () => {
  assert.equal(
    resolutionProblem("ffff", resolveSession("ffff", SESSIONS)),
    'no session has an id that is or begins with "ffff"; asm sessions --all lists them',
  );
  assert.match(
    resolutionProblem("9d", resolveSession("9d", SESSIONS))!,
    /too short .* at least 4 characters/,
  );
  assert.equal(resolutionProblem(A.asm_id, resolveSession(A.asm_id, SESSIONS)), null);
});

Deno.test("an ambiguous prefix lists at most five candidates and counts the rest", () => {
  const many = Array.from({ length: 7 }, (_, i) => ({
    asm_id: `abcd${i}000-0000`,
    agent: "claude",
    agent_session_id: `own-${i}`,
    title: i === 0 ? "fix the build" : null,
  }));
  const sentence = resolutionProblem("abcd", resolveSession("abcd", many))!;
  assert.match(sentence, /^"abcd" begins the ids of 7 sessions: abcd0000-0000 \(claude, "fix the build"\); /);
  assert.equal(sentence.match(/abcd\d000-0000/g)!.length, 5);
  assert.match(sentence, /; and 2 more; give more of the id$/);
});

Deno.test("each short id is the shortest prefix no other id shares, at least eight characters", () => {
  const ids = shortIds(SESSIONS.map((s) => s.asm_id));
  assert.deepEqual([...ids.values()].sort(), [
    "3f2a9c1e-0000-5000-8000-000000000001",
    "3f2a9c1e-0000-5000-8000-000000000002",
    "77c0ffee",
    "9d00d00d",
  ]);
  assert.equal(shortIds(["abcdef0123", "abcdef9999"], 4).get("abcdef0123"), "abcdef0");
});

Deno.test("every short id resolves back to its own session", () => {
  const many = Array.from({ length: 300 }, () => ({
    asm_id: crypto.randomUUID(),
    agent: "claude",
    agent_session_id: crypto.randomUUID(),
  }));
  for (const [id, short] of shortIds(many.map((s) => s.asm_id))) {
    assert.equal(named(resolveSession(short, many)), id);
  }
});
