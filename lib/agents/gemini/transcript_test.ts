import assert from "node:assert/strict";
import { join } from "node:path";
import { passFile, type SessionFacts, type TranscriptFile } from "../../derive/mod.ts";
import { denoIo } from "../../history/mod.ts";
import { fixture } from "../_test_utils.ts";
import { classifyGeminiLine, geminiTranscripts, typedGeminiText } from "./transcript.ts";

function fileOf(path: string, cwd: string | null = "/tmp/gmfx/proj-a"): TranscriptFile {
  return {
    agent: "gemini",
    path,
    sessionHint: null,
    role: "main",
    parentSessionId: null,
    cwd,
    rel: "x",
    size: Deno.statSync(path).size,
    mtimeMs: 0,
    ino: null,
  };
}

async function stateOf(file: TranscriptFile): Promise<unknown> {
  const fold = geminiTranscripts.fold(file, null);
  const handle = denoIo.open(file.path);
  try {
    await passFile(handle, 0, file.size, fold, { chunkBytes: 512 });
  } finally {
    handle.close();
  }
  return JSON.parse(JSON.stringify(fold.state()));
}

async function geminiFacts(rel: string): Promise<SessionFacts> {
  const file = fileOf(fixture(rel));
  return geminiTranscripts.facts([await stateOf(file)], [file]);
}

Deno.test("Gemini's folded records count once: a reply re-appended with its tool calls is one record", async () => {
  const facts = await geminiFacts("gemini/headless/chats/session-2026-11-29T22-22-03265f03.jsonl");
  assert.equal(facts.session_id, "03265f03-2613-42de-9360-1d2e196c0f07");
  // the <session_context> record, the hook context and the tool result are not turns
  assert.equal(facts.turns, 1);
  assert.deepEqual(facts.days, { "2026-11-29": 1 });
  assert.equal(facts.first_message, "please TOOLCALL now");
  assert.equal(facts.context_tokens, 282); // the last gemini record's tokens.total
  assert.equal(facts.model, "gemini-3.8-flash");
  assert.equal(facts.started_at, "2026-11-29T22:22:11.435Z");
  assert.equal(facts.last_seen, "2026-11-29T22:22:12.536Z");
  assert.equal(facts.cwd, "/tmp/gmfx/proj-a");
  assert.equal(facts.bad_lines, 0);
});

Deno.test("a Gemini session chosen with --session-id reads like any other", async () => {
  const facts = await geminiFacts("gemini/headless/chats/session-2026-11-29T22-22-11111111.jsonl");
  assert.equal(facts.session_id, "11111111-2222-4333-8444-555555555555");
  assert.equal(facts.turns, 1);
  assert.equal(facts.first_message, "preassigned id");
  assert.equal(facts.context_tokens, 165);
});

Deno.test("an interactive Gemini session keeps its generated summary as a summary, not a name", async () => {
  const facts = await geminiFacts("gemini/interactive/chats/session-2026-11-29T22-22-c1da5980.jsonl");
  assert.equal(facts.turns, 1);
  assert.equal(facts.first_message, "interactive hooks zeta");
  assert.equal(
    facts.summary,
    "MOCK-REPLY #15 (gemini-3.5-flash-lite) to: t>BEFORE-AGENT-MARKER</hook_context> Summary (max 80 chars):",
  );
  assert.equal(facts.name, null);
});

Deno.test("a Gemini file holding only hook context has no turn", async () => {
  const facts = await geminiFacts("gemini/interactive/chats/session-2026-11-29T22-23-4966ac10.jsonl");
  assert.equal(facts.session_id, "4966ac10-2461-4c1b-87b6-bc2bed6d9575");
  assert.equal(facts.turns, 0);
  assert.equal(facts.first_message, null);
  assert.equal(facts.context_tokens, null);
});

Deno.test("a Gemini session kept in two files is the union of both by record id, started at the first header", async () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-gemini-two-" });
  try {
    const sid = "aaaaaaaa-1111-4222-8333-444444444444";
    const ctx = {
      id: "ctx",
      timestamp: "2026-11-29T10:00:00.001Z",
      type: "user",
      content: [{ text: "<session_context>x</session_context>" }],
    };
    const p1 = {
      id: "p1",
      timestamp: "2026-11-29T10:00:01.000Z",
      type: "user",
      content: [{ text: "first" }],
    };
    const r1 = {
      id: "r1",
      timestamp: "2026-11-29T10:00:02.000Z",
      type: "gemini",
      content: "ok",
      tokens: { total: 100 },
    };
    const p2 = {
      id: "p2",
      timestamp: "2026-11-30T00:10:00.000Z",
      type: "user",
      content: [{ text: "second, next day" }],
    };
    const r2 = {
      id: "r2",
      timestamp: "2026-11-30T00:10:01.000Z",
      type: "gemini",
      content: "ok",
      tokens: { total: 250 },
      model: "m2",
    };
    const lines = (...l: unknown[]) => l.map((x) => JSON.stringify(x)).join("\n") + "\n";
    // the original file: created, then (after the resume) the new turns were appended to it
    const original = join(root, "session-2026-11-29T10-00-aaaaaaaa.jsonl");
    Deno.writeTextFileSync(
      original,
      lines(
        {
          sessionId: sid,
          projectHash: "h",
          startTime: "2026-11-29T10:00:00.000Z",
          lastUpdated: "x",
          kind: "main",
        },
        { $set: { messages: [ctx] } },
        p1,
        r1,
        p2,
        r2,
      ),
    );
    // the stray file the resume created a minute later: a header with the resume time and the history so far
    const stray = join(root, "session-2026-11-29T10-01-aaaaaaaa.jsonl");
    Deno.writeTextFileSync(
      stray,
      lines(
        {
          sessionId: sid,
          projectHash: "h",
          startTime: "2026-11-29T10:01:00.000Z",
          lastUpdated: "x",
          kind: "main",
        },
        { $set: { sessionId: sid } },
        { $set: { messages: [ctx, p1, r1] } },
      ),
    );
    const files = [fileOf(original, "/w"), fileOf(stray, "/w")];
    const states = [await stateOf(files[0]), await stateOf(files[1])];
    assert.equal(geminiTranscripts.sessionOf(states[1], files[1]), sid);
    const facts = geminiTranscripts.facts(states, files);
    assert.equal(facts.turns, 2);
    assert.deepEqual(facts.days, { "2026-11-29": 1, "2026-11-30": 1 });
    assert.equal(facts.started_at, "2026-11-29T10:00:00.000Z");
    assert.equal(facts.context_tokens, 250);
    assert.equal(facts.model, "m2");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("Gemini's typed text is what the person saw, without hook context", () => {
  assert.equal(
    typedGeminiText({
      content: [{ text: "<hook_context>A</hook_context>\n\nplease TOOLCALL now" }, {
        text: "<hook_context>B</hook_context>",
      }],
    }),
    "please TOOLCALL now",
  );
  assert.equal(
    typedGeminiText({
      content: [{ text: "x <hook_context>B</hook_context>" }],
      displayContent: [{ text: "shown" }],
    }),
    "shown",
  );
  assert.equal(typedGeminiText({ content: [{ text: "<hook_context>only</hook_context>" }] }), null);
  assert.equal(typedGeminiText({ content: [{ functionResponse: { name: "x" } }] }), null);
});

Deno.test("a Gemini session is interactive when logs.json saw it typed, and not known without one", async () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-gemini-logs-" });
  try {
    const chats = join(root, ".gemini", "tmp", "proj-b", "chats");
    Deno.mkdirSync(chats, { recursive: true });
    const path = join(chats, "session-2026-11-29T22-22-c1da5980.jsonl");
    Deno.copyFileSync(fixture("gemini/interactive/chats/session-2026-11-29T22-22-c1da5980.jsonl"), path);
    const file = fileOf(path, "/tmp/gmfx/proj-b");
    const states = [await stateOf(file)];
    const run = () => {
      const input = { facts: geminiTranscripts.facts(states, [file]), states, files: [file] };
      geminiTranscripts.enrich!([input], { HOME: root }, denoIo);
      return input.facts.source;
    };
    assert.equal(run(), null, "no logs.json is no evidence of anything: not known, shown");
    Deno.copyFileSync(
      fixture("gemini/interactive/logs.json"),
      join(root, ".gemini", "tmp", "proj-b", "logs.json"),
    );
    assert.equal(run(), "interactive");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("search sees a Gemini prompt and a reply as what they are", () => {
  const lines = Deno.readTextFileSync(
    fixture("gemini/headless/chats/session-2026-11-29T22-22-03265f03.jsonl"),
  )
    .split("\n").filter((l) => l !== "").map((l) => classifyGeminiLine(l)!);
  assert.deepEqual(lines.filter((l) => l.kind === "prompt").map((l) => l.text), ["please TOOLCALL now"]);
  assert.ok(lines.some((l) => l.kind === "assistant" && l.text === "MOCK-REPLY #8: tool result received."));
  assert.ok(lines.some((l) => l.kind === "tool"));
});
