import assert from "node:assert/strict";
import type { TokenUsage, ViewLine, ViewRecord } from "../../derive/mod.ts";
import { fixture, FIXTURES } from "../_test_utils.ts";
import { classifyClaudeLine, claudeTranscripts } from "./transcript.ts";
import { viewClaudeLine } from "./view_line.ts";

const P = "claude/p-mode/transcripts/";
const I = "claude/interactive/transcripts/";

function linesOf(rel: string): string[] {
  return Deno.readTextFileSync(fixture(rel)).split("\n").filter((l) => l !== "");
}

/** Every record a fixture file shows, in order. */
function recordsOf(rel: string): ViewRecord[] {
  return linesOf(rel).flatMap((l) => viewClaudeLine(l)?.records ?? []);
}

function only<K extends "tool_call" | "tool_result" | "usage">(
  records: ViewRecord[],
  kind: K,
): Extract<ViewRecord, { kind: K }>[] {
  return records.filter((r): r is Extract<ViewRecord, { kind: K }> => r.kind === kind);
}

/** The texts of the records of one text kind. */
function texts(records: ViewRecord[], kind: "prompt" | "assistant" | "injected"): string[] {
  return records.flatMap((r) => r.kind === kind ? [r.text] : []);
}

/** A line of the shape Claude writes, around a message. */
function line(type: "user" | "assistant", message: Record<string, unknown>, extra = {}): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type,
    message,
    uuid: "00000000-0000-4000-8000-000000000001",
    timestamp: "2026-11-29T22:13:16.161Z",
    ...extra,
  });
}

function toolUse(name: string, input: unknown): ViewRecord {
  const view = viewClaudeLine(line("assistant", {
    id: "msg_1",
    role: "assistant",
    content: [{ type: "tool_use", id: "toolu_1", name, input }],
  }));
  return view!.records[0];
}

Deno.test("a Bash tool_use shows the fixture's exact command, and its result pairs with it by call id", () => {
  const records = recordsOf(`${P}tool-bash.6f909761-eb71-48c5-bad6-f473a381c9c5.jsonl`);
  const calls = only(records, "tool_call");
  assert.equal(calls.length, 1);
  assert.equal(calls[0].tool, "Bash");
  assert.equal(calls[0].call_id, "toolu_mockjmf7mvuu2x");
  assert.equal(calls[0].input.command, "ls -la");
  assert.equal(calls[0].input.raw, '{"command":"ls -la","description":"Run command from mock"}');
  const results = only(records, "tool_result");
  assert.equal(results.length, 1);
  assert.equal(results[0].call_id, calls[0].call_id);
  assert.equal(results[0].error, false);
  assert.ok(results[0].output.startsWith("total 16\n") && results[0].output.endsWith(" f.txt"));
  // the order the page shows: prompt, reply, call, result, reply
  assert.deepEqual(records.filter((r) => r.kind !== "usage").map((r) => r.kind), [
    "prompt",
    "assistant",
    "tool_call",
    "tool_result",
    "assistant",
  ]);
});

Deno.test("a Write shows the file's whole text as added, and a denied one's result is an error", () => {
  const records = recordsOf(`${P}write-permission-denied.6050dc09-4503-43e6-8696-c151d13212d7.jsonl`);
  const [call] = only(records, "tool_call");
  assert.equal(call.tool, "Write");
  assert.equal(call.input.path, "/tmp/cc-proj-3/w.txt");
  assert.deepEqual(call.input.edit, { before: "", after: "written by mock\n" });
  const [result] = only(records, "tool_result");
  assert.equal(result.call_id, call.call_id);
  assert.equal(result.error, true);
  assert.equal(
    result.output,
    "Claude requested permissions to write to /tmp/cc-proj-3/w.txt, but you haven't granted it yet.",
  );
});

Deno.test("a message written on one line per block counts its usage once, under its message id", () => {
  const records = recordsOf(`${P}tool-bash.6f909761-eb71-48c5-bad6-f473a381c9c5.jsonl`);
  const usages = only(records, "usage").map((r) => r.usage);
  // three assistant lines: two blocks of one message, and the reply after the tool ran
  assert.equal(usages.length, 3);
  const calls = new Map<string | null, TokenUsage>(usages.map((u) => [u.call, u]));
  assert.deepEqual([...calls.keys()], ["msg_mock1795990396141kobg", "msg_mock179599039635775ja"]);
  assert.ok(usages.every((u) => u.scope === "call" && u.model === "claude-opus-5-5"));
  // input counts the cache: 2714 + 1000 + 2000, then 2837 + 1000 + 2000
  assert.deepEqual([...calls.values()].map((u) => [u.input, u.output]), [[5714, 42], [5837, 42]]);
});

Deno.test("the page's prompts and injected context are search's, line for line, in every Claude fixture", () => {
  const files = [...Deno.readDirSync(`${FIXTURES}/claude/p-mode/transcripts`)]
    .filter((e) => e.name.endsWith(".jsonl")).map((e) => `${P}${e.name}`)
    .concat([...Deno.readDirSync(`${FIXTURES}/claude/interactive/transcripts`)].map((e) => `${I}${e.name}`))
    .concat(
      [...Deno.readDirSync(`${FIXTURES}/claude/signals`)].filter((e) => e.name.endsWith(".jsonl"))
        .map((e) => `claude/signals/${e.name}`),
    );
  assert.ok(files.length >= 15, files.join(" "));
  let prompts = 0;
  for (const rel of files) {
    for (const raw of linesOf(rel)) {
      const search = classifyClaudeLine(raw)!;
      const view = viewClaudeLine(raw)!;
      assert.equal(view.id, search.id);
      const spoken = view.records.filter((r) => r.kind === "prompt" || r.kind === "injected");
      if (search.kind === "prompt" || (search.kind === "injected" && search.text.trim() !== "")) {
        assert.deepEqual(
          spoken.map((r) => [r.kind, "text" in r ? r.text : ""]),
          [[search.kind, search.text]],
          raw,
        );
        if (search.kind === "prompt") prompts++;
      } else {
        assert.deepEqual(spoken, [], raw);
      }
    }
  }
  assert.ok(prompts >= 15, `${prompts} prompts`);
});

Deno.test("a typed slash skill is a prompt; its skill body and a system reminder are injected", () => {
  const records = recordsOf(
    `${I}before-clear.chat-tool-skill-rename.9489399f-ac78-4316-81cd-2726c9579121.jsonl`,
  );
  assert.deepEqual(texts(records, "prompt"), [
    "hello interactive SLOW:3000",
    "run USE_BASH:echo hi-from-interactive",
    "/mock-skill extra-args",
    "/mock-skill", // the tags typed by hand: typed, so a prompt (search reads it the same way)
  ]);
  const injected = texts(records, "injected");
  assert.ok(
    injected.some((t) =>
      t.startsWith("Base directory for this skill: /tmp/cc-home-5/.claude/skills/mock-skill")
    ),
  );
  assert.ok(injected.some((t) => t.startsWith("<system-reminder>")));
});

Deno.test("an Agent call is summarised by its description; the sub-agent's completion is injected, not typed", () => {
  const records = recordsOf(`${P}357e623d-2687-473b-b7a1-aaf113475103.jsonl`);
  const [call] = only(records, "tool_call");
  assert.equal(call.tool, "Agent");
  assert.equal(call.input.summary, "Mock subagent");
  assert.equal(call.input.command, null);
  const [result] = only(records, "tool_result");
  assert.equal(result.call_id, call.call_id);
  assert.ok(result.output.startsWith("Async agent launched successfully."), "text blocks of a result");
  assert.deepEqual(texts(records, "prompt"), ["please USE_AGENT"]);
  assert.ok(texts(records, "injected").some((t) => t.startsWith("<task-notification>")));
  // the sub-agent's own file: its task is handed over, never typed
  const sub = recordsOf(`${P}357e623d-2687-473b-b7a1-aaf113475103/subagents/agent-ac5a87ca59462ada7.jsonl`);
  assert.deepEqual(texts(sub, "prompt"), []);
  assert.equal(only(sub, "tool_call")[0].input.command, "echo from-subagent");
});

Deno.test("Claude's file tools show their file and edit; search, web and skill tools a summary", () => {
  const cases: [string, unknown, Partial<Record<string, unknown>>][] = [
    ["Edit", { file_path: "/src/a.ts", old_string: "let x", new_string: "const x" }, {
      path: "/src/a.ts",
      edit: { before: "let x", after: "const x" },
    }],
    ["MultiEdit", {
      file_path: "/src/b.ts",
      edits: [{ old_string: "a", new_string: "b" }, { old_string: "c", new_string: "d" }, "junk"],
    }, { path: "/src/b.ts", edit: { before: "a\nc", after: "b\nd" } }],
    ["Read", { file_path: "/etc/hosts", offset: 3 }, { path: "/etc/hosts", edit: null }],
    ["NotebookEdit", { notebook_path: "/n.ipynb", new_source: "x" }, { path: "/n.ipynb" }],
    ["Glob", { pattern: "**/*.ts", path: "/src" }, { summary: "**/*.ts in /src", path: null }],
    ["Grep", { pattern: "TODO" }, { summary: "TODO" }],
    ["WebFetch", { url: "https://example.com/x", prompt: "read it" }, { summary: "https://example.com/x" }],
    ["WebSearch", { query: "deno lint rules" }, { summary: "deno lint rules" }],
    ["Skill", { skill: "mock-skill" }, { summary: "mock-skill" }],
    ["Task", { description: "Find the bug", prompt: "long..." }, { summary: "Find the bug" }],
    ["mcp__files__read", { file_path: "/x", command: "not a shell" }, { path: "/x", command: null }],
  ];
  for (const [name, input, want] of cases) {
    const record = toolUse(name, input);
    assert.equal(record.kind, "tool_call", name);
    if (record.kind !== "tool_call") continue;
    assert.equal(record.tool, name);
    assert.equal(record.call_id, "toolu_1");
    assert.equal(record.input.raw, JSON.stringify(input));
    for (const [key, value] of Object.entries(want)) {
      assert.deepEqual(record.input[key as keyof typeof record.input], value, `${name}.${key}`);
    }
  }
});

Deno.test("thinking shows nothing, a harness-made reply counts no call, and metadata lines show no records", () => {
  const view = viewClaudeLine(line("assistant", {
    id: "msg_2",
    model: "claude-opus-5-5",
    content: [{ type: "thinking", thinking: "secret plan", signature: "x" }],
    usage: { input_tokens: 10, output_tokens: 5 },
  }))!;
  assert.deepEqual(view.records.map((r) => r.kind), ["usage"]);
  const synthetic = viewClaudeLine(line("assistant", {
    id: "msg_3",
    model: "<synthetic>",
    content: [{ type: "text", text: "No response requested." }],
    usage: { input_tokens: 0, output_tokens: 0 },
  }))!;
  assert.deepEqual(synthetic.records.map((r) => r.kind), ["assistant"]);
  for (
    const meta of ['{"type":"last-prompt","lastPrompt":"x"}', '{"type":"attachment","attachment":{}}', "{}"]
  ) {
    assert.deepEqual(viewClaudeLine(meta), { id: null, records: [] });
  }
});

Deno.test("hostile Claude lines never throw: not JSON is null, wrong types show nothing, huge output is clipped", () => {
  for (const bad of ["", "not json", "[1,2]", "42", '"text"', "null", '{"type":"user"'] as const) {
    assert.equal(viewClaudeLine(bad), null, bad);
  }
  const odd: ViewLine[] = [
    line("assistant", { content: 42, usage: "lots" }),
    line("assistant", { content: [null, 7, { type: "tool_use", name: 5, id: {}, input: "rm -rf /" }] }),
    line("user", {
      content: [{ type: "tool_result", tool_use_id: 9, content: { evil: true }, is_error: "yes" }],
    }),
    line("user", { content: null }),
    JSON.stringify({ type: "assistant", message: "not an object" }),
  ].map((l) => viewClaudeLine(l)!);
  assert.deepEqual(odd[0].records, []);
  assert.deepEqual(
    odd[1].records.map((r) => r.kind === "tool_call" && [r.tool, r.call_id, r.input.command]),
    [
      ["", null, null],
    ],
  );
  assert.deepEqual(odd[2].records, [{
    kind: "tool_result",
    call_id: null,
    output: "",
    error: false,
    ts: "2026-11-29T22:13:16.161Z",
  }]);
  assert.deepEqual(odd[3].records, []);
  assert.deepEqual(odd[4].records, []);
  const huge = "A".repeat(1_000_000);
  const [result] = viewClaudeLine(line("user", {
    content: [{ type: "tool_result", tool_use_id: "toolu_9", content: huge }],
  }))!.records;
  assert.ok(result.kind === "tool_result");
  assert.ok(result.output.length <= 64 * 1024 && result.output.endsWith("A…"));
  // a tag-looking string is carried as text, not interpreted
  const [prompt] = viewClaudeLine(line("user", { content: "<script>alert(1)</script>" }, {
    promptSource: "typed",
  }))!.records;
  assert.deepEqual(prompt, {
    kind: "prompt",
    text: "<script>alert(1)</script>",
    ts: "2026-11-29T22:13:16.161Z",
  });
});

Deno.test("Claude's adapter answers viewLine with the Claude reader", () => {
  const raw = linesOf(`${P}tool-bash.6f909761-eb71-48c5-bad6-f473a381c9c5.jsonl`)[2];
  assert.deepEqual(claudeTranscripts.viewLine(raw), viewClaudeLine(raw));
  assert.equal(claudeTranscripts.viewLine(raw)!.records[0].kind, "prompt");
});
