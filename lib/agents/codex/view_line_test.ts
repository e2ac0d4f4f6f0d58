import assert from "node:assert/strict";
import type { ViewRecord } from "../../derive/mod.ts";
import { fixture } from "../_test_utils.ts";
import { classifyCodexLine, codexTranscripts } from "./transcript.ts";
import { outputOf, viewCodexLine } from "./view_line.ts";

const R = "codex/rollouts/";
const ROLLOUTS = [
  "exec-plain-chat.rollout.jsonl",
  "exec-tool-call.rollout.jsonl",
  "exec-tool-call-with-hooks-then-resumed-twice.rollout.jsonl",
  "tui-chat-plus-tool-call.rollout.jsonl",
  "tui-killed-by-sigterm-mid-turn.rollout.jsonl",
  "tui-new-thread-never-prompted-materialized-at-daemon-stop.rollout.jsonl",
];

function linesOf(name: string): string[] {
  return Deno.readTextFileSync(fixture(`${R}${name}`)).split("\n").filter((l) => l !== "");
}

function recordsOf(name: string): ViewRecord[] {
  return linesOf(name).flatMap((l) => viewCodexLine(l)?.records ?? []);
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

/** A response item in its envelope, as Codex writes it. */
function item(payload: Record<string, unknown>): string {
  return JSON.stringify({
    timestamp: "2026-11-29T22:12:52.100Z",
    ordinal: 9,
    type: "response_item",
    payload,
  });
}

Deno.test("a Codex exec_command call shows the fixture's command, and its output pairs with it by call id", () => {
  const records = recordsOf("exec-tool-call.rollout.jsonl");
  const calls = only(records, "tool_call");
  assert.equal(calls.length, 1);
  assert.equal(calls[0].tool, "exec_command");
  assert.equal(calls[0].call_id, "call_mock_2");
  assert.equal(calls[0].input.command, "ls");
  assert.equal(calls[0].input.raw, '{"cmd":"ls","yield_time_ms":2000}');
  const results = only(records, "tool_result");
  assert.equal(results.length, 1);
  assert.equal(results[0].call_id, "call_mock_2");
  assert.equal(results[0].error, false, "Process exited with code 0");
  assert.ok(
    results[0].output.includes("Output:\npyenv: cannot rehash") && results[0].output.endsWith("README.md\n"),
  );
  assert.deepEqual(records.filter((r) => r.kind !== "usage" && r.kind !== "injected").map((r) => r.kind), [
    "prompt",
    "tool_call",
    "tool_result",
    "assistant",
  ]);
});

Deno.test("the typed prompt is a prompt; the environment context and developer instructions are injected", () => {
  const records = recordsOf("tui-chat-plus-tool-call.rollout.jsonl");
  assert.deepEqual(texts(records, "prompt"), ["hello from tmux", "now RUN_LS please"]);
  const injected = texts(records, "injected");
  assert.equal(injected.length, 2);
  assert.ok(injected[0].startsWith("<skills_instructions>"));
  assert.ok(injected[1].startsWith("<environment_context>"));
});

Deno.test("the item_completed echoes show nothing: each reply and prompt is shown once", () => {
  const records = recordsOf("tui-chat-plus-tool-call.rollout.jsonl");
  assert.deepEqual(texts(records, "assistant"), [
    "Mock reply #6 to: hello from tmux",
    'Tool finished. Output starts with: "Chunk ID: 1658b0\\nWall time: 0.0001 seconds\\nProcess exited wi"',
  ]);
  assert.equal(only(records, "tool_call").length, 1, "the CommandExecution echo is not a second call");
});

Deno.test("the page's prompts and injected context are search's, line for line, in every Codex fixture", () => {
  let prompts = 0;
  for (const name of ROLLOUTS) {
    for (const raw of linesOf(name)) {
      const search = classifyCodexLine(raw)!;
      const view = viewCodexLine(raw)!;
      assert.equal(view.id, search.id, raw.slice(0, 200));
      const spoken = view.records.flatMap((r) =>
        r.kind === "prompt" || r.kind === "injected" || r.kind === "assistant" ? [[r.kind, r.text]] : []
      );
      const expected = ["prompt", "injected", "assistant"].includes(search.kind) && search.text.trim() !== ""
        ? [[search.kind, search.text]]
        : [];
      assert.deepEqual(spoken, expected, raw.slice(0, 200));
      if (search.kind === "prompt") prompts++;
    }
  }
  assert.equal(prompts, 8);
});

Deno.test("token_count events are the thread's running totals; the last one of a resumed thread is its total", () => {
  const usages = only(recordsOf("exec-tool-call-with-hooks-then-resumed-twice.rollout.jsonl"), "usage");
  assert.equal(usages.length, 4);
  assert.ok(
    usages.every((u) => u.usage.scope === "total" && u.usage.call === null && u.usage.model === null),
  );
  assert.deepEqual(usages.map((u) => [u.usage.input, u.usage.output]), [
    [1204, 30],
    [2409, 60],
    [3623, 90],
    [4838, 120],
  ]);
  // a count before any call carries no totals
  const empty = JSON.stringify({ type: "event_msg", payload: { type: "token_count", info: null } });
  assert.deepEqual(viewCodexLine(empty), { id: null, records: [] });
});

Deno.test("an apply_patch call shows its patch and the first file it touches; a failed patch's result is an error", () => {
  const patch = "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-old\n+new\n*** End Patch\n";
  const [call] = viewCodexLine(item({
    type: "custom_tool_call",
    status: "completed",
    call_id: "call_p",
    name: "apply_patch",
    input: patch,
  }))!.records;
  assert.ok(call.kind === "tool_call");
  assert.equal(call.tool, "apply_patch");
  assert.equal(call.call_id, "call_p");
  assert.equal(call.input.patch, patch);
  assert.equal(call.input.path, "src/app.ts");
  assert.equal(call.input.command, null);
  const [result] = viewCodexLine(item({
    type: "custom_tool_call_output",
    call_id: "call_p",
    output: JSON.stringify({
      output: "patch did not apply",
      metadata: { exit_code: 1, duration_seconds: 0 },
    }),
  }))!.records;
  assert.deepEqual(result, {
    kind: "tool_result",
    call_id: "call_p",
    output: "patch did not apply",
    error: true,
    ts: "2026-11-29T22:12:52.100Z",
  });
});

Deno.test("a shell call given as an argument list shows its script; its folder is the summary", () => {
  const [call] = viewCodexLine(item({
    type: "function_call",
    name: "shell",
    arguments: JSON.stringify({ command: ["bash", "-lc", "ls -la && cat x"], workdir: "/srv/app" }),
    call_id: "call_s",
  }))!.records;
  assert.ok(call.kind === "tool_call");
  assert.equal(call.input.command, "ls -la && cat x");
  assert.equal(call.input.summary, "in /srv/app");
  // an older build ran apply_patch through the shell
  const [viaShell] = viewCodexLine(item({
    type: "function_call",
    name: "shell",
    arguments: JSON.stringify({
      command: ["apply_patch", "*** Begin Patch\n*** Add File: n.txt\n+x\n*** End Patch"],
    }),
    call_id: "call_t",
  }))!.records;
  assert.ok(viaShell.kind === "tool_call");
  assert.equal(viaShell.input.path, "n.txt");
  assert.ok(viaShell.input.patch!.startsWith("*** Begin Patch"));
  // a rollout from before the envelope: bare items, no timestamps
  const [bare] = viewCodexLine(
    '{"type":"function_call","name":"shell","arguments":"{\\"command\\":[\\"cat\\",\\"/srv/legacy-app/main.py\\"]}","call_id":"call_1"}',
  )!.records;
  assert.ok(bare.kind === "tool_call");
  assert.equal(bare.input.command, "cat /srv/legacy-app/main.py");
  assert.equal(bare.ts, null);
  const [local] = viewCodexLine(item({
    type: "local_shell_call",
    call_id: "call_l",
    status: "completed",
    action: { type: "exec", command: ["bash", "-lc", "pwd"], working_directory: "/w" },
  }))!.records;
  assert.ok(local.kind === "tool_call");
  assert.deepEqual([local.tool, local.call_id, local.input.command, local.input.summary], [
    "local_shell",
    "call_l",
    "pwd",
    "in /w",
  ]);
});

Deno.test("a tool's output says it failed by its exit code, in JSON or in the unified exec header", () => {
  assert.deepEqual(
    outputOf("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nboom\n"),
    {
      text: "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nboom\n",
      error: true,
    },
  );
  assert.equal(outputOf("Exit code: 0\nWall time: 1s\nOutput:\nok").error, false);
  // the output below the header is the program's own: it never decides
  assert.equal(outputOf("Process exited with code 0\nOutput:\nProcess exited with code 1\n").error, false);
  assert.deepEqual(outputOf('{"output":"fine","metadata":{"exit_code":0}}'), { text: "fine", error: false });
  assert.deepEqual(outputOf('{"not":"the shape"}'), { text: '{"not":"the shape"}', error: false });
  assert.deepEqual(outputOf([{ type: "input_text", text: "a" }, { type: "input_image" }]), {
    text: "a",
    error: false,
  });
  assert.deepEqual(outputOf({ content: "denied", success: false }), { text: "denied", error: true });
  assert.deepEqual(outputOf(42), { text: "", error: false });
});

Deno.test("reasoning, turn contexts and other events show nothing; a line that is not an object is null", () => {
  assert.deepEqual(viewCodexLine(item({ type: "reasoning", id: "rs_1", summary: [] })), {
    id: "rs_1",
    records: [],
  });
  const [turnContext] = linesOf("exec-tool-call.rollout.jsonl").filter((l) =>
    l.includes('"type":"turn_context"')
  );
  assert.deepEqual(viewCodexLine(turnContext), { id: null, records: [] });
  for (const bad of ["", "{", "[]", "true", "nope"]) assert.equal(viewCodexLine(bad), null, bad);
});

Deno.test("hostile Codex lines never throw: wrong types show nothing, bad arguments are raw text, huge output is clipped", () => {
  const odd = [
    item({ type: "function_call", name: 7, arguments: "{not json", call_id: 3 }),
    item({ type: "message", role: "user", content: "not a list" }),
    item({ type: "custom_tool_call", name: "apply_patch", input: { evil: 1 } }),
    item({ type: "function_call_output", call_id: "c", output: null }),
    JSON.stringify({ type: "response_item", payload: "text" }),
    JSON.stringify({
      type: "event_msg",
      payload: { type: "token_count", info: { total_token_usage: "lots" } },
    }),
  ].map((l) => viewCodexLine(l)!);
  const [call] = odd[0].records;
  assert.ok(call.kind === "tool_call");
  assert.deepEqual([call.tool, call.call_id, call.input.command, call.input.raw], [
    "function_call",
    null,
    null,
    '"{not json"',
  ]);
  assert.deepEqual(odd[1].records, []);
  const [patch] = odd[2].records;
  assert.ok(patch.kind === "tool_call" && patch.input.patch === null && patch.input.raw === '{"evil":1}');
  assert.deepEqual(odd[3].records.map((r) => r.kind === "tool_result" && [r.output, r.error]), [["", false]]);
  assert.deepEqual(odd[4], { id: null, records: [] });
  assert.deepEqual(odd[5].records, []);
  const [result] =
    viewCodexLine(item({ type: "function_call_output", call_id: "c", output: "é".repeat(500_000) }))!
      .records;
  assert.ok(result.kind === "tool_result");
  assert.ok(new TextEncoder().encode(result.output).length <= 64 * 1024 && result.output.endsWith("é…"));
});

Deno.test("Codex's adapter answers viewLine with the Codex reader", () => {
  const raw = linesOf("exec-plain-chat.rollout.jsonl")[7];
  assert.deepEqual(codexTranscripts.viewLine(raw), viewCodexLine(raw));
  assert.deepEqual(texts(codexTranscripts.viewLine(raw)!.records, "prompt"), ["hello there"]);
});
