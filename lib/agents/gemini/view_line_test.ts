import assert from "node:assert/strict";
import type { ViewLine, ViewRecord } from "../../derive/mod.ts";
import { fixture } from "../_test_utils.ts";
import { classifyGeminiLine, geminiTranscripts } from "./transcript.ts";
import { viewGeminiLine } from "./view_line.ts";

const TOOL_SESSION = "gemini/headless/chats/session-2026-11-29T22-22-03265f03.jsonl";
const SESSIONS = [
  TOOL_SESSION,
  "gemini/headless/chats/session-2026-11-29T22-22-11111111.jsonl",
  "gemini/interactive/chats/session-2026-11-29T22-22-c1da5980.jsonl",
  "gemini/interactive/chats/session-2026-11-29T22-23-4966ac10.jsonl",
];

function linesOf(rel: string): string[] {
  return Deno.readTextFileSync(fixture(rel)).split("\n").filter((l) => l !== "");
}

/** The page's view of a file: line views folded by record id, the last copy of a record in its first place. */
function folded(rel: string): ViewRecord[] {
  const byId = new Map<string, ViewLine>();
  const anonymous: ViewLine[] = [];
  for (const raw of linesOf(rel)) {
    const view = viewGeminiLine(raw)!;
    if (view.id === null) anonymous.push(view);
    else byId.set(view.id, view);
  }
  return [...anonymous, ...byId.values()].flatMap((v) => v.records);
}

function only<K extends "tool_call" | "tool_result" | "usage">(
  records: ViewRecord[],
  kind: K,
): Extract<ViewRecord, { kind: K }>[] {
  return records.filter((r): r is Extract<ViewRecord, { kind: K }> => r.kind === kind);
}

function texts(records: ViewRecord[], kind: "prompt" | "assistant" | "injected"): string[] {
  return records.flatMap((r) => r.kind === kind ? [r.text] : []);
}

/** A reply record as Gemini CLI writes it, with the given tool calls. */
function reply(toolCalls: unknown, extra = {}): string {
  return JSON.stringify({
    id: "r1",
    timestamp: "2026-11-29T22:22:11.929Z",
    type: "gemini",
    content: "",
    tokens: { input: 10, output: 2, cached: 0, thoughts: 3, tool: 0, total: 15 },
    model: "gemini-3.8-flash",
    toolCalls,
    ...extra,
  });
}

function callsOf(raw: string): ViewRecord[] {
  return viewGeminiLine(raw)!.records.filter((r) => r.kind === "tool_call" || r.kind === "tool_result");
}

Deno.test("a re-appended reply keeps its id: its last copy shows the shell call, then its result", () => {
  const lines = linesOf(TOOL_SESSION);
  const copies = lines.map((l) => viewGeminiLine(l)!).filter((v) =>
    v.id === "9c556d30-5e32-4655-a6a4-3765cf446cc5"
  );
  assert.equal(copies.length, 2, "the reply is written, then written again with its tool calls");
  assert.deepEqual(copies[0].records.map((r) => r.kind), ["usage"], "an empty reply text shows no reply");
  assert.deepEqual(copies[1].records.map((r) => r.kind), ["tool_call", "tool_result", "usage"]);
  const [call] = only(copies[1].records, "tool_call");
  assert.equal(call.tool, "run_shell_command");
  assert.equal(call.call_id, "run_shell_command__run_shell_command_1795990931839_0");
  assert.equal(call.input.command, "echo tool-ran");
  assert.equal(call.input.raw, '{"command":"echo tool-ran","description":"mock tool call"}');
  const [result] = only(copies[1].records, "tool_result");
  assert.equal(result.call_id, call.call_id);
  assert.equal(result.error, false);
  assert.equal(
    result.output,
    "<untrusted_context>\nOutput: tool-ran\nProcess Group PGID: 9127\n</untrusted_context>",
  );
  assert.equal(result.ts, "2026-11-29T22:22:12.163Z", "the result's own time");
});

Deno.test("the functionResponse record shows nothing: each result is shown once, after its call", () => {
  const records = folded(TOOL_SESSION);
  assert.equal(only(records, "tool_result").length, 1);
  const response = linesOf(TOOL_SESSION).find((l) => l.includes('"id":"f5a4c2af'))!;
  assert.deepEqual(viewGeminiLine(response), { id: "f5a4c2af-466c-412b-b238-0a7c90aeb5d0", records: [] });
});

Deno.test("a reply's tokens are one call under its record id, counted once however often it is re-appended", () => {
  const usages = only(folded(TOOL_SESSION), "usage").map((r) => r.usage);
  assert.deepEqual(usages, [
    {
      model: "gemini-3.8-flash",
      input: 160,
      output: 7,
      scope: "call",
      call: "9c556d30-5e32-4655-a6a4-3765cf446cc5",
    },
    {
      model: "gemini-3.8-flash",
      input: 275,
      output: 7,
      scope: "call",
      call: "58f39179-3d4c-4f1d-8bb4-93327c44bb8f",
    },
  ]);
  // thinking is written by the model too: it counts with the output
  const [usage] = only(viewGeminiLine(reply([]))!.records, "usage");
  assert.deepEqual([usage.usage.input, usage.usage.output, usage.usage.call], [10, 5, "r1"]);
});

Deno.test("a prompt is what the person typed, hook context removed; a hook-only record is injected", () => {
  assert.deepEqual(texts(folded(TOOL_SESSION), "prompt"), ["please TOOLCALL now"]);
  const interactive = folded("gemini/interactive/chats/session-2026-11-29T22-22-c1da5980.jsonl");
  assert.deepEqual(texts(interactive, "prompt"), ["interactive hooks zeta"]);
  assert.deepEqual(texts(interactive, "injected"), ["<hook_context>HOOK-CTX-MARKER-startup</hook_context>"]);
  assert.deepEqual(texts(interactive, "assistant"), [
    "MOCK-REPLY #12 (gemini-3.8-flash) to:  hooks zeta <hook_context>BEFORE-AGENT-MARKER</hook_context>",
  ]);
});

Deno.test("the page's prompts and injected context are search's, line for line, in every Gemini fixture", () => {
  let prompts = 0;
  for (const rel of SESSIONS) {
    for (const raw of linesOf(rel)) {
      const search = classifyGeminiLine(raw)!;
      const view = viewGeminiLine(raw)!;
      assert.equal(view.id, search.id, raw.slice(0, 120));
      const spoken = view.records.flatMap((r) =>
        r.kind === "prompt" || r.kind === "injected" || r.kind === "assistant" ? [[r.kind, r.text]] : []
      );
      const expected = ["prompt", "injected", "assistant"].includes(search.kind) && search.text.trim() !== ""
        ? [[search.kind, search.text]]
        : [];
      assert.deepEqual(spoken, expected, raw.slice(0, 120));
      if (search.kind === "prompt") prompts++;
    }
  }
  assert.equal(prompts, 3);
});

Deno.test("the header and $set lines are records of the file: no records, not null", () => {
  const lines = linesOf(TOOL_SESSION);
  assert.deepEqual(viewGeminiLine(lines[0]), { id: null, records: [] }, "the header");
  assert.deepEqual(viewGeminiLine(lines[1]), { id: null, records: [] }, "$set of the whole message list");
  assert.deepEqual(viewGeminiLine(lines[3]), { id: null, records: [] }, "$set of lastUpdated");
  assert.deepEqual(viewGeminiLine('{"$rewindTo":"b25282f7"}'), { id: null, records: [] });
  const info = JSON.stringify({ id: "i1", type: "info", content: "Request cancelled." });
  assert.deepEqual(viewGeminiLine(info), { id: "i1", records: [] });
});

Deno.test("Gemini's file tools show their file and edit; a failed call's result is an error", () => {
  const records = callsOf(reply([
    { id: "c1", name: "replace", args: { file_path: "/p/a.ts", old_string: "let", new_string: "const" } },
    { id: "c2", name: "write_file", args: { file_path: "/p/new.md", content: "# New\n" } },
    {
      id: "c3",
      name: "read_file",
      args: { absolute_path: "/p/README.md" },
      status: "success",
      resultDisplay: "",
    },
    {
      id: "c4",
      name: "run_shell_command",
      args: { command: "false", dir_path: "/p" },
      status: "error",
      result: [{ functionResponse: { id: "c4", name: "run_shell_command", response: { error: "exit 1" } } }],
    },
    { id: "c5", name: "glob", args: { pattern: "**/*.ts", dir_path: "/p" } },
    {
      id: "c6",
      name: "replace",
      args: { file_path: "/p/b.ts", old_string: "a", new_string: "b" },
      status: "success",
      resultDisplay: { fileDiff: "--- b.ts\n+++ b.ts\n-a\n+b\n", fileName: "b.ts" },
    },
  ]));
  const calls = only(records, "tool_call");
  assert.deepEqual(
    calls.map((c) => [c.call_id, c.input.path, c.input.edit, c.input.command, c.input.summary]),
    [
      ["c1", "/p/a.ts", { before: "let", after: "const" }, null, null],
      ["c2", "/p/new.md", { before: "", after: "# New\n" }, null, null],
      ["c3", "/p/README.md", null, null, null],
      ["c4", null, null, "false", "in /p"],
      ["c5", null, null, null, "**/*.ts in /p"],
      ["c6", "/p/b.ts", { before: "a", after: "b" }, null, null],
    ],
  );
  const results = only(records, "tool_result");
  assert.deepEqual(results.map((r) => [r.call_id, r.output, r.error]), [
    ["c3", "", false],
    ["c4", "exit 1", true],
    ["c6", "--- b.ts\n+++ b.ts\n-a\n+b\n", false],
  ]);
  // a result right after its own call
  assert.deepEqual(
    records.map((r) =>
      r.kind === "tool_call" ? `call ${r.call_id}` : r.kind === "tool_result" ? `result ${r.call_id}` : r.kind
    ),
    [
      "call c1",
      "call c2",
      "call c3",
      "result c3",
      "call c4",
      "result c4",
      "call c5",
      "call c6",
      "result c6",
    ],
  );
});

Deno.test("hostile Gemini lines never throw: not JSON is null, wrong types show nothing, huge output is clipped", () => {
  for (const bad of ["", "garbage", "[]", "3", '{"id":']) assert.equal(viewGeminiLine(bad), null, bad);
  assert.deepEqual(viewGeminiLine(reply("not a list", { tokens: "many" }))!.records, []);
  const odd = callsOf(reply([null, 5, { name: 9, id: [], args: "rm -rf /", result: "x", status: "error" }]));
  assert.deepEqual(odd.map((r) => r.kind), ["tool_call", "tool_result"]);
  const [call] = only(odd, "tool_call");
  assert.deepEqual([call.tool, call.call_id, call.input.command, call.input.raw], [
    "",
    null,
    null,
    '"rm -rf /"',
  ]);
  const user = JSON.stringify({
    id: "u1",
    type: "user",
    content: [{ text: 42 }, "x", { text: "<b>hi</b>" }],
  });
  assert.deepEqual(viewGeminiLine(user)!.records.map((r) => r.kind === "prompt" && r.text), ["<b>hi</b>"]);
  const huge = "😀".repeat(300_000);
  const [result] = only(
    callsOf(
      reply([{
        id: "h",
        name: "run_shell_command",
        args: {},
        result: [{ functionResponse: { response: { output: huge } } }],
      }]),
    ),
    "tool_result",
  );
  assert.ok(new TextEncoder().encode(result.output).length <= 64 * 1024 && result.output.endsWith("😀…"));
});

Deno.test("Gemini's adapter answers viewLine with the Gemini reader", () => {
  const raw = linesOf(TOOL_SESSION)[2];
  assert.deepEqual(geminiTranscripts.viewLine(raw), viewGeminiLine(raw));
  assert.deepEqual(texts(geminiTranscripts.viewLine(raw)!.records, "prompt"), ["please TOOLCALL now"]);
});

Deno.test("a Gemini shell command that exited non-zero is a failed result; one that exited 0 is not", () => {
  const shell = (id: string, code: number) => ({
    id,
    name: "run_shell_command",
    args: { command: "make test" },
    status: "success",
    result: [{
      functionResponse: {
        id,
        name: "run_shell_command",
        response: { output: `Output: boom\nExit Code: ${code}\nProcess Group PGID: 9127` },
      },
    }],
  });
  const results = only(callsOf(reply([shell("s1", 2), shell("s2", 0)])), "tool_result");
  assert.deepEqual(results.map((r) => [r.call_id, r.error]), [["s1", true], ["s2", false]]);
});
