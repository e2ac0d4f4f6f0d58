import assert from "node:assert/strict";
import { passFile, type SessionFacts, type TranscriptFile } from "../../derive/mod.ts";
import { denoIo } from "../../history/mod.ts";
import { fixture } from "../_test_utils.ts";
import {
  classifyClaudeLine,
  claudeContextWindow,
  claudeHead,
  claudeSkipsOnBytes,
  type ClaudeState,
  claudeTranscripts,
  readableCommand,
} from "./transcript.ts";

function fileFor(path: string, role: "main" | "subagent" = "main"): TranscriptFile {
  const id = path.match(/([0-9a-f-]{36})\.jsonl$/)?.[1] ?? "sub";
  return {
    agent: "claude",
    path,
    sessionHint: role === "main" ? id : `357e623d-2687-473b-b7a1-aaf113475103/agent-ac5a87ca59462ada7`,
    role,
    parentSessionId: role === "main" ? null : "357e623d-2687-473b-b7a1-aaf113475103",
    cwd: null,
    rel: "x",
    size: Deno.statSync(path).size,
    mtimeMs: 0,
    ino: null,
  };
}

/** The facts of one fixture file, read in small chunks so lines cross chunk boundaries. */
async function claudeFacts(path: string, role: "main" | "subagent" = "main"): Promise<SessionFacts> {
  const file = fileFor(path, role);
  const fold = claudeTranscripts.fold(file, null);
  const handle = denoIo.open(path);
  try {
    await passFile(handle, 0, file.size, fold, { chunkBytes: 4096 });
  } finally {
    handle.close();
  }
  return claudeTranscripts.facts([fold.state()], [file]);
}

const P = "claude/p-mode/transcripts/";
const I = "claude/interactive/transcripts/";
const S = "claude/signals/";

// one row per fixture: what the byte pass must find, exactly
const CASES: [string, Partial<SessionFacts>][] = [
  [`${P}plain-then-resume-then-continue.11111111-2222-4333-8444-555555555555.jsonl`, {
    // -p, then --resume, then --continue: one file, one session, three prompts, headless
    source: "headless",
    turns: 3,
    days: { "2026-11-29": 3 },
    first_message: "hello plain A",
    model: "claude-opus-5-5",
    context_window: 200_000, // a Claude model's documented window
    context_tokens: 2776 + 1000 + 2000 + 42, // the last assistant usage: 5818
    cwd: "/tmp/cc-proj-3",
    started_at: "2026-11-29T22:13:07.491Z",
    last_seen: "2026-11-29T22:13:09.565Z",
    agent_version: "2.1.328",
    name: null,
  }],
  [`${P}plain-resume-continue-then-compact.11111111-2222-4333-8444-555555555555.jsonl`, {
    // /compact is a built-in command, not a turn; the context is what the compaction kept
    turns: 3,
    context_tokens: 2642,
    last_seen: "2026-11-29T22:29:02.163Z",
  }],
  [`${P}tool-bash.6f909761-eb71-48c5-bad6-f473a381c9c5.jsonl`, {
    turns: 1,
    first_message: "please USE_BASH:ls -la",
    context_tokens: 2837 + 3042,
  }],
  [`${P}write-permission-denied.6050dc09-4503-43e6-8696-c151d13212d7.jsonl`, {
    turns: 1,
    folders: { "/tmp/cc-proj-3/w.txt": 1 },
  }],
  [`${P}model-claude-sonnet-4-5.cb871653-c018-4b00-b2c0-436d50121d59.jsonl`, {
    model: "claude-sonnet-4-5",
    context_tokens: 5918,
  }],
  [`${P}model-alias-haiku.d112dbc9-6568-46c4-ba31-04883cac828c.jsonl`, { model: "claude-haiku-5-5" }],
  [`${P}357e623d-2687-473b-b7a1-aaf113475103.jsonl`, {
    // the background agent's completion arrives as a task notification: not a turn
    turns: 1,
    first_message: "please USE_AGENT",
    source: "headless",
  }],
  [`${P}sessionstart-additionalContext-injected.22222222-2222-4333-8444-555555555555.jsonl`, {
    turns: 1,
    first_message: "inject test",
  }],
  [`${P}sessionstart-plain-stdout.33333333-2222-4333-8444-555555555555.jsonl`, { turns: 1 }],
  [`${P}hook-timeout-2s-untrusted-project-hooks.98c6744b-afa8-490f-ae02-0470244558ff.jsonl`, {
    turns: 1,
    cwd: "/tmp/cc-proj-6",
    first_message: "timeout test",
  }],
  [`${I}before-clear.chat-tool-skill-rename.9489399f-ac78-4316-81cd-2726c9579121.jsonl`, {
    // typed: a chat, a tool run, a slash skill, a forged look-alike of the skill tags; then /rename
    source: "interactive",
    turns: 4,
    first_message: "hello interactive SLOW:3000",
    name: "My Custom Title",
    skills: { "mock-skill": 1 }, // the forged tags leave no harness marker
    cwd: "/tmp/cc proj 5",
    cleared_at: null,
    context_tokens: 6498,
  }],
  [`${I}after-clear.f826f6a9-ce37-4890-894d-d65e4845873a.jsonl`, {
    // the new session a /clear made: its first line is the /clear, and the title carried over
    source: "interactive",
    turns: 1,
    first_message: "after clear prompt",
    name: "My Custom Title",
    cleared_at: "2026-11-29T22:15:58.908Z",
    skills: {},
  }],
  [`${I}after-clear-then-interactive-resume.f826f6a9-ce37-4890-894d-d65e4845873a.jsonl`, {
    turns: 2,
    cleared_at: "2026-11-29T22:15:58.908Z",
    last_seen: "2026-11-29T22:29:19.823Z",
  }],
  [`${S}SIGKILL-idle.f6afb6dd-6b5f-416a-88b0-7b51fe180966.jsonl`, {
    turns: 1,
    first_message: "prompt before KILL",
    source: "interactive",
  }],
  [`${S}SIGTERM-idle.e0c66d5e-e1b1-454c-9ac8-c03166650dbe.jsonl`, { turns: 1 }],
  [`${S}SIGINT-idle.d31a6081-b864-4fc8-92ff-7b8c9d57b443.jsonl`, { turns: 1 }],
  [`${S}SIGHUP-idle.0c334a39-077c-4b95-a45c-a18b7cdbd366.jsonl`, { turns: 1 }],
  [`${S}tmux-kill-session.edf9e0d7-e9e7-45e1-b29c-977f4ec5cdae.jsonl`, { turns: 1 }],
  [`${S}ctrl-c-twice.05c9b34c-6530-406d-84b0-32356b8b08f9.jsonl`, { turns: 1 }],
];

for (const [rel, expected] of CASES) {
  Deno.test(`the Claude byte pass reads ${rel.split("/").pop()} exactly`, async () => {
    const facts = await claudeFacts(fixture(rel));
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(facts[key as keyof SessionFacts], value, `${key} of ${rel}`);
    }
    assert.equal(facts.bad_lines, 0);
    const daySum = Object.values(facts.days).reduce((a, b) => a + b, 0);
    assert.equal(daySum, facts.turns, "every turn lands on a day");
  });
}

Deno.test("a Claude sub-agent's file is its own session: nested under its parent, no typed turns", async () => {
  const facts = await claudeFacts(
    fixture(`${P}357e623d-2687-473b-b7a1-aaf113475103/subagents/agent-ac5a87ca59462ada7.jsonl`),
    "subagent",
  );
  assert.equal(facts.source, "subagent");
  assert.equal(facts.parent_session_id, "357e623d-2687-473b-b7a1-aaf113475103");
  assert.equal(facts.session_id, "357e623d-2687-473b-b7a1-aaf113475103/agent-ac5a87ca59462ada7");
  assert.equal(facts.turns, 0);
  assert.equal(facts.first_message, "SUBAGENT_TASK please run USE_BASH:echo from-subagent");
});

Deno.test("a Claude file read in two halves folds to the same facts as one read", async () => {
  const path = fixture(`${I}before-clear.chat-tool-skill-rename.9489399f-ac78-4316-81cd-2726c9579121.jsonl`);
  const file = fileFor(path);
  const whole = await claudeFacts(path);
  const first = claudeTranscripts.fold(file, null);
  const handle = denoIo.open(path);
  const half = await passFile(handle, 0, Math.floor(file.size / 2), first);
  const saved = JSON.parse(JSON.stringify(first.state()));
  const second = claudeTranscripts.fold(file, saved);
  await passFile(handle, half.offset, file.size, second);
  handle.close();
  assert.deepEqual(claudeTranscripts.facts([second.state()], [file]), whole);
});

Deno.test("a Claude line's head says what it is without parsing it", () => {
  const table: [string, ReturnType<typeof claudeHead>][] = [
    ['{"type":"queue-operation","operation":"enqueue"', { kind: "meta", type: "queue-operation" }],
    ['{"parentUuid":null,"isSidechain":false,"attachment":{"type":"environment"', { kind: "attachment" }],
    [
      '{"parentUuid":"a","isSidechain":false,"promptId":"p","type":"user","message":{"role":"user","content":"hi"',
      {
        kind: "user",
        toolResult: false,
      },
    ],
    [
      '{"parentUuid":"a","isSidechain":false,"promptId":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result"',
      { kind: "user", toolResult: true },
    ],
    ['{"parentUuid":"a","isSidechain":false,"type":"system","subtype":"turn_duration"', {
      kind: "system",
      subtype: "turn_duration",
    }],
    ['{"parentUuid":"a","isSidechain":false,"message":{"id":"m","type":"message","role":"assistant"', {
      kind: "assistant",
    }],
    ['{"somethingNew":1', { kind: "unknown" }],
    ['{"type":"user","message":{"role":"user","content":"typed first"}', { kind: "unknown" }],
  ];
  for (const [head, expected] of table) assert.deepEqual(claudeHead(head), expected, head);
});

Deno.test("a slash command's tags read as the command the person typed", () => {
  assert.equal(
    readableCommand(
      "<command-message>mock-skill</command-message>\n<command-name>/mock-skill</command-name>\n" +
        "<command-args>extra-args</command-args>",
    ),
    "/mock-skill extra-args",
  );
  assert.equal(readableCommand("plain words"), "plain words");
});

Deno.test("search sees a Claude prompt, a reply, a tool result and an injected line as what they are", () => {
  const lines = Deno.readTextFileSync(
    fixture(`${I}before-clear.chat-tool-skill-rename.9489399f-ac78-4316-81cd-2726c9579121.jsonl`),
  ).split("\n").filter((l) => l !== "");
  const kinds = lines.map((l) => classifyClaudeLine(l)!);
  const prompts = kinds.filter((k) => k.kind === "prompt").map((k) => k.text);
  assert.deepEqual(prompts, [
    "hello interactive SLOW:3000",
    "run USE_BASH:echo hi-from-interactive",
    "/mock-skill extra-args",
    "/mock-skill",
  ]);
  assert.ok(kinds.some((k) => k.kind === "tool" && k.text === "hi-from-interactive"));
  assert.ok(kinds.some((k) => k.kind === "injected" && k.text.startsWith("Base directory for this skill")));
  assert.ok(kinds.some((k) => k.kind === "assistant"));
  assert.equal(classifyClaudeLine("not json"), null);
});

Deno.test("the context the byte pass reads is the one Claude itself reports when the session resumes (5754, 5786, 5818)", () => {
  // Claude's SessionStart(resume) payload carries context_tokens; the transcript up to that moment must say the same
  const dumps = ["claude/p-mode/hook-dumps", "claude/p-mode/hook-dumps-compact"].flatMap((dir) =>
    [...Deno.readDirSync(fixture(dir))].map((e) =>
      JSON.parse(Deno.readTextFileSync(fixture(`${dir}/${e.name}`)))
    )
  ).filter((d) => d.stdin?.source === "resume" && typeof d.stdin?.context_tokens === "number");
  assert.equal(dumps.length, 3);
  const path = fixture(`${P}plain-resume-continue-then-compact.11111111-2222-4333-8444-555555555555.jsonl`);
  const lines = Deno.readTextFileSync(path).split("\n").filter((l) => l !== "");
  const seen: number[] = [];
  for (const dump of dumps) {
    const at = new Date(dump.ts * 1000).toISOString();
    const cut = lines.findIndex((l) => (JSON.parse(l).timestamp ?? "") > at);
    const file = fileFor(path);
    const fold = claudeTranscripts.fold(file, null);
    const bytes = new TextEncoder().encode(lines.slice(0, cut).join("\n") + "\n");
    for (let s = 0, i = bytes.indexOf(10); i >= 0; s = i + 1, i = bytes.indexOf(10, s)) {
      fold.line(bytes, s, i);
    }
    const facts = claudeTranscripts.facts([fold.state()], [file]);
    assert.equal(facts.context_tokens, dump.stdin.context_tokens, `at ${at}`);
    seen.push(facts.context_tokens!);
  }
  assert.deepEqual(seen.sort(), [5754, 5786, 5818]);
});

Deno.test("a line skipped on its bytes alone is one the head would skip too, on every fixture line", () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) walk(path);
      else if (e.name.endsWith(".jsonl")) files.push(path);
    }
  };
  walk(fixture("claude"));
  let skipped = 0;
  let lines = 0;
  for (const path of files) {
    const bytes = Deno.readFileSync(path);
    let start = 0;
    for (let nl = bytes.indexOf(10); nl >= 0; start = nl + 1, nl = bytes.indexOf(10, start)) {
      lines++;
      if (!claudeSkipsOnBytes(bytes, start, nl)) continue;
      skipped++;
      const head = claudeHead(new TextDecoder().decode(bytes.subarray(start, Math.min(nl, start + 320))));
      const headSkips = head.kind === "attachment" ||
        (head.kind === "meta" && !["custom-title", "ai-title"].includes(head.type));
      assert.ok(headSkips, `${path}: ${new TextDecoder().decode(bytes.subarray(start, start + 120))}`);
    }
  }
  // most lines are attachments and bookkeeping records: the byte check must actually catch them
  assert.ok(skipped > lines / 3, `${skipped} of ${lines} skipped on bytes`);
});

Deno.test("a Claude model's window is the documented one, the 1M window when the id asks for it, none for a stranger", () => {
  assert.equal(claudeContextWindow("claude-sonnet-4-5"), 200_000);
  assert.equal(claudeContextWindow("claude-sonnet-4-5[1m]"), 1_000_000);
  assert.equal(claudeContextWindow("mock"), null);
});

/** Folds the lines of a made-up file. */
function foldLines(
  lines: string[],
  path = "/nowhere/p/x.jsonl",
): { state: ClaudeState; file: TranscriptFile } {
  const file: TranscriptFile = {
    agent: "claude",
    path,
    sessionHint: "made-up",
    role: "main",
    parentSessionId: null,
    cwd: null,
    rel: "x",
    size: 0,
    mtimeMs: 0,
    ino: null,
  };
  const fold = claudeTranscripts.fold(file, null);
  const bytes = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(""));
  for (let s = 0, i = bytes.indexOf(10); i >= 0; s = i + 1, i = bytes.indexOf(10, s)) fold.line(bytes, s, i);
  return { state: fold.state() as ClaudeState, file };
}

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** A message line as the versions with summary lines wrote it (key order included). */
function oldLine(
  o: { uuid: string; type: string; sidechain?: boolean; version?: string; content?: unknown },
) {
  const message = o.type === "assistant"
    ? { role: "assistant", model: "claude-sonnet-4-20250514", content: [{ type: "text", text: "ok" }] }
    : { role: "user", content: o.content ?? "typed" };
  return JSON.stringify({
    parentUuid: null,
    isSidechain: o.sidechain ?? false,
    userType: "external",
    cwd: "/tmp/p",
    sessionId: "made-up",
    version: o.version ?? "1.0.128",
    type: o.type,
    ...(o.type === "system" ? { subtype: "informational", content: "note" } : { message }),
    uuid: o.uuid,
    timestamp: "2025-09-30T10:00:00.000Z",
  });
}

Deno.test("a line of a type no version is known to write is counted by type; known types, read or not, are not", () => {
  const { state } = foldLines([
    JSON.stringify({ type: "brand-new-record", sessionId: "made-up" }),
    JSON.stringify({ type: "brand-new-record", sessionId: "made-up" }),
    JSON.stringify({ parentUuid: null, isSidechain: false, type: "mystery-message", uuid: U(1) }),
    JSON.stringify({ type: "summary", summary: "an older title", leafUuid: U(2) }),
    JSON.stringify({ type: "checkpoint", sessionId: "made-up", commit: "c", id: "1" }),
    JSON.stringify({ type: "queue-operation", operation: "dequeue", sessionId: "made-up" }),
    JSON.stringify({ type: "file-history-snapshot", messageId: U(3), snapshot: {} }),
    JSON.stringify({ parentUuid: null, isSidechain: false, type: "progress", uuid: U(4) }),
    JSON.stringify({ type: "ai-title", aiTitle: "Titled", sessionId: "made-up" }),
    oldLine({ uuid: U(5), type: "user" }),
  ]);
  assert.deepEqual(state.facts.unknown_types, { "brand-new-record": 2, "mystery-message": 1 });
  assert.equal(state.facts.title, "Titled");
  assert.equal(state.facts.turns, 1);
  assert.equal(state.facts.summary, null, "a summary line titles another file's conversation, never its own");
});

Deno.test("every line of every Claude fixture is of a type the reader knows", () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) walk(path);
      // transcripts only: not the -p stdout, not the typed-line history
      else if (e.name.endsWith(".jsonl") && !/stdout|history/.test(e.name)) files.push(path);
    }
  };
  walk(fixture("claude"));
  assert.equal(files.length, 19);
  for (const path of files) {
    const { state } = foldLines(Deno.readTextFileSync(path).split("\n").filter((l) => l !== ""));
    assert.deepEqual(state.facts.unknown_types, {}, path);
  }
});

Deno.test("a summary-era file keeps its newest main-conversation line as its leaf, even one skipped unparsed", () => {
  const toolResult = [{ tool_use_id: "t", type: "tool_result", content: "x".repeat(5000) }];
  const lines = [
    oldLine({ uuid: U(1), type: "user" }),
    oldLine({ uuid: U(2), type: "assistant" }),
    oldLine({ uuid: U(3), type: "user", sidechain: true }),
  ];
  assert.equal(
    foldLines(lines).state.leaf,
    U(2),
    "a sub-agent's line in the main file is not the conversation's",
  );
  assert.equal(
    foldLines([...lines, oldLine({ uuid: U(4), type: "user", content: toolResult })]).state.leaf,
    U(4),
  );
  assert.equal(foldLines([...lines, oldLine({ uuid: U(5), type: "system" })]).state.leaf, U(5));
  // a version after the summary lines: no leaf is kept, nothing is scanned for it
  assert.equal(foldLines([oldLine({ uuid: U(1), type: "user", version: "2.1.328" })]).state.leaf, null);
  // the same file continued by such a version is no longer titled by a summary line
  assert.equal(
    foldLines([...lines, oldLine({ uuid: U(6), type: "assistant", version: "2.1.30" })]).state.leaf,
    null,
  );
});

Deno.test("the enrich step titles a summary-era session with the summary line another file of its folder holds", async () => {
  const dir = await Deno.makeTempDir({ prefix: "asm-claude-summary-" });
  try {
    const titled = foldLines([
      oldLine({ uuid: U(1), type: "user" }),
      oldLine({ uuid: U(2), type: "assistant" }),
    ], `${dir}/a.jsonl`);
    const later = `${JSON.stringify({ type: "summary", summary: "Title of a", leafUuid: U(2) })}\n`;
    await Deno.writeTextFile(`${dir}/b.jsonl`, later + oldLine({ uuid: U(9), type: "user" }) + "\n");
    const input = {
      facts: claudeTranscripts.facts([titled.state], [titled.file]),
      states: [titled.state],
      files: [titled.file],
    };
    assert.deepEqual(claudeTranscripts.enrich!([input], { HOME: dir }, denoIo), []);
    assert.equal(input.facts.summary, "Title of a");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
