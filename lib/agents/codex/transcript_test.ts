import assert from "node:assert/strict";
import { join } from "node:path";
import { type EnrichInput, passFile, type SessionFacts, type TranscriptFile } from "../../derive/mod.ts";
import { denoIo } from "../../history/mod.ts";
import { fixture } from "../_test_utils.ts";
import {
  classifyCodexLine,
  codexHead,
  codexSkipsOnBytes,
  codexTranscripts,
  codexWants,
  isTypedCodexMessage,
} from "./transcript.ts";

async function codexFacts(path: string): Promise<SessionFacts> {
  const file: TranscriptFile = {
    agent: "codex",
    path,
    sessionHint: null,
    role: "main",
    parentSessionId: null,
    cwd: null,
    rel: "x",
    size: Deno.statSync(path).size,
    mtimeMs: 0,
    ino: null,
  };
  const fold = codexTranscripts.fold(file, null);
  const handle = denoIo.open(path);
  try {
    await passFile(handle, 0, file.size, fold, { chunkBytes: 4096 });
  } finally {
    handle.close();
  }
  return codexTranscripts.facts([fold.state()], [file]);
}

const R = "codex/rollouts/";
const CASES: [string, Partial<SessionFacts>][] = [
  [`${R}exec-plain-chat.rollout.jsonl`, {
    session_id: "01a2295d-92ca-73a0-ac65-5a6372a1a905",
    source: "headless", // codex exec
    thread_source: "user",
    turns: 1,
    days: { "2026-11-29": 1 },
    first_message: "hello there",
    model: "mock-model",
    context_tokens: 1231,
    context_window: 258400, // Codex's own model_context_window, from the rollout
    agent_version: "0.169.0",
    cwd: "/tmp/cx-work/proj1",
    started_at: "2026-11-29T22:12:08.023Z", // the thread's creation, from session_meta
    skills: {},
  }],
  [`${R}exec-tool-call.rollout.jsonl`, {
    turns: 1,
    first_message: "please RUN_LS now",
    context_tokens: 1233,
  }],
  [`${R}exec-tool-call-with-hooks-then-resumed-twice.rollout.jsonl`, {
    // two exec resumes append to the same rollout: one session, three prompts
    session_id: "01a2295e-6988-7d92-8f7d-1003fec4bca0",
    turns: 3,
    context_tokens: 1245, // the last request, not the thread's running total (4958)
    last_seen: "2026-11-29T22:14:55.959Z",
  }],
  [`${R}tui-chat-plus-tool-call.rollout.jsonl`, {
    source: "interactive", // the TUI is recorded as "vscode": a client of its daemon
    turns: 2,
    first_message: "hello from tmux",
    cwd: "/tmp/cx-work/proj3",
  }],
  [`${R}tui-killed-by-sigterm-mid-turn.rollout.jsonl`, { turns: 1, source: "interactive" }],
  [`${R}tui-new-thread-never-prompted-materialized-at-daemon-stop.rollout.jsonl`, {
    session_id: "01a2295f-a367-78c3-a99f-aea70e6b0f45",
    source: "interactive",
    turns: 0,
    first_message: null,
    model: null,
    context_tokens: null,
  }],
];

for (const [rel, expected] of CASES) {
  Deno.test(`the Codex byte pass reads ${rel.split("/").pop()} exactly`, async () => {
    const facts = await codexFacts(fixture(rel));
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(facts[key as keyof SessionFacts], value, `${key} of ${rel}`);
    }
    assert.equal(facts.bad_lines, 0);
  });
}

Deno.test("a rollout line's head names its record and payload types", () => {
  assert.deepEqual(
    codexHead(
      '{"timestamp":"2026-11-29T22:13:56.850Z","ordinal":7,"type":"response_item","payload":{"type":"message","id":"m","role":"user"',
    ),
    { type: "response_item", payload: "message", role: "user" },
  );
  assert.deepEqual(
    codexHead('{"timestamp":"x","ordinal":1,"type":"event_msg","payload":{"type":"token_count"'),
    {
      type: "event_msg",
      payload: "token_count",
      role: null,
    },
  );
});

Deno.test("a rollout line skipped on its bytes is one its head would skip, on every fixture line and mutations of them", () => {
  const utf8 = new TextDecoder();
  const encoder = new TextEncoder();
  const headSkips = (bytes: Uint8Array) =>
    !codexWants(codexHead(utf8.decode(bytes.subarray(0, Math.min(bytes.length, 200)))));
  const lines: Uint8Array[] = [];
  for (const name of Deno.readDirSync(fixture("codex/rollouts"))) {
    const text = Deno.readTextFileSync(fixture(`codex/rollouts/${name.name}`));
    for (const line of text.split("\n")) if (line !== "") lines.push(encoder.encode(line));
  }
  for (const line of BARE_ROLLOUT.split("\n")) if (line !== "") lines.push(encoder.encode(line));
  let skipped = 0;
  for (const bytes of lines) {
    if (!codexSkipsOnBytes(bytes, 0, bytes.length)) continue;
    skipped++;
    assert.ok(headSkips(bytes), utf8.decode(bytes.subarray(0, 160)));
  }
  // most lines are events and echoes nobody reads: the byte check must actually catch them
  assert.ok(skipped > lines.length / 3, `${skipped} of ${lines.length} skipped on bytes`);
  // mutations: a byte of the first 200 changed, or the line cut short, never makes the bytes skip what the head keeps
  let seed = 7;
  const next = () => (seed = Math.imul(seed ^ (seed >>> 15), 2246822507) + 1 >>> 0);
  const alphabet = encoder.encode('"{}:,_.-aeirstuvxyz AZ09\\');
  for (let n = 0; n < 3000; n++) {
    const line = lines[next() % lines.length];
    const bytes = line.slice(0, Math.max(1, next() % Math.min(line.length + 1, 260)));
    for (let k = next() % 3; k > 0; k--) {
      bytes[next() % Math.min(bytes.length, 200)] = alphabet[next() % alphabet.length];
    }
    if (codexSkipsOnBytes(bytes, 0, bytes.length)) {
      assert.ok(headSkips(bytes), `mutation ${n}: ${utf8.decode(bytes.subarray(0, 200))}`);
    }
  }
});

Deno.test("only Codex's user.text message is a typed prompt; injected context and old injected blocks are not", () => {
  const typed = {
    role: "user",
    internal_chat_message_metadata_passthrough: { content_item_kinds: ["user.text"] },
  };
  const env = {
    role: "user",
    internal_chat_message_metadata_passthrough: { content_item_kinds: ["environments.environment_context"] },
  };
  assert.equal(isTypedCodexMessage(typed), true);
  assert.equal(isTypedCodexMessage(env), false);
  assert.equal(isTypedCodexMessage({ role: "developer", content: [{ text: "x" }] }), false);
  // rollouts from before content_item_kinds: the text decides
  assert.equal(
    isTypedCodexMessage({ role: "user", content: [{ type: "input_text", text: "fix the bug" }] }),
    true,
  );
  assert.equal(
    isTypedCodexMessage({ role: "user", content: [{ type: "input_text", text: "<environment_context>\n" }] }),
    false,
  );
});

Deno.test("Codex's thread index adds the thread title and a name the person gave", async () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-codex-threads-" });
  try {
    const codexHome = join(root, ".codex");
    Deno.mkdirSync(codexHome);
    Deno.copyFileSync(fixture("codex/state/home3-state_5.sqlite"), join(codexHome, "state_5.sqlite"));
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(join(codexHome, "state_5.sqlite"));
    db.prepare("UPDATE threads SET name = 'Release notes' WHERE id = ?").run(
      "01a2295f-bf52-7960-be5b-3035993272f7",
    );
    db.close();
    const inputs: EnrichInput[] = [
      "01a2295f-0ad6-7852-afe2-883c2e6eae7a",
      "01a2295f-bf52-7960-be5b-3035993272f7",
      "01a2295f-a367-78c3-a99f-aea70e6b0f45",
    ].map((id) => ({ facts: { ...emptyFacts(), session_id: id }, states: [], files: [] }));
    const problems = codexTranscripts.enrich!(inputs, { HOME: root, CODEX_HOME: codexHome }, denoIo);
    assert.deepEqual(problems, []);
    assert.equal(inputs[0].facts.title, "hello from tmux");
    assert.equal(inputs[0].facts.name, null);
    assert.equal(inputs[1].facts.name, "Release notes");
    assert.equal(inputs[2].facts.title, null, "an empty title stays null");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

function emptyFacts(): SessionFacts {
  return codexTranscripts.facts([], []);
}

Deno.test("search sees a Codex prompt, the injected context and a tool's output as what they are", () => {
  const lines = Deno.readTextFileSync(fixture(`${R}tui-chat-plus-tool-call.rollout.jsonl`)).split("\n")
    .filter((l) => l !== "").map((l) => classifyCodexLine(l)!);
  assert.deepEqual(lines.filter((l) => l.kind === "prompt").map((l) => l.text), [
    "hello from tmux",
    "now RUN_LS please",
  ]);
  assert.ok(lines.some((l) => l.kind === "injected" && l.text.startsWith("<environment_context>")));
  assert.ok(lines.some((l) => l.kind === "tool" && l.text.includes("Chunk ID")));
  assert.ok(lines.some((l) => l.kind === "assistant" && l.text === "Mock reply #6 to: hello from tmux"));
});

/** A rollout as Codex wrote them before the `{timestamp, type, payload}` envelope: a bare meta line, bare items. */
const BARE_ROLLOUT = [
  '{"id":"0d6e3c1a-1111-4222-8333-944455556666","timestamp":"2025-04-20T10:00:00.000Z","instructions":null}',
  '{"record_type":"state"}',
  '{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\\n  <cwd>/srv/legacy-app</cwd>\\n</environment_context>"}]}',
  '{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the old bug"}]}',
  '{"type":"reasoning","id":"rs_1","summary":[]}',
  '{"type":"function_call","name":"shell","arguments":"{\\"command\\":[\\"cat\\",\\"/srv/legacy-app/main.py\\"]}","call_id":"call_1"}',
  '{"type":"function_call_output","call_id":"call_1","output":"{\\"output\\":\\"print(1)\\"}"}',
  '{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}',
  '{"record_type":"state"}',
].join("\n") + "\n";

Deno.test("a rollout from before the envelope (bare meta and items) is read: its turn, its day, its tool's folder", async () => {
  const dir = await Deno.makeTempDir({ prefix: "asm-codex-bare-" });
  try {
    const path = join(dir, "rollout-2025-04-20T10-00-00-0d6e3c1a-1111-4222-8333-944455556666.jsonl");
    await Deno.writeTextFile(path, BARE_ROLLOUT);
    const facts = await codexFacts(path);
    assert.equal(facts.session_id, "0d6e3c1a-1111-4222-8333-944455556666");
    assert.equal(facts.turns, 1, "the typed prompt, not the injected context");
    assert.equal(facts.first_message, "fix the old bug");
    assert.deepEqual(facts.days, { "2025-04-20": 1 });
    assert.equal(facts.started_at, "2025-04-20T10:00:00.000Z");
    assert.equal(facts.cwd, "/srv/legacy-app", "named only by the injected environment block");
    assert.deepEqual(facts.unknown_types, {}, "state lines, reasoning and tool output are known");
    assert.ok(
      Object.keys(facts.folders).some((f) => f.startsWith("/srv/legacy-app")),
      JSON.stringify(facts.folders),
    );
    assert.equal(facts.bad_lines, 0);
    // search sees the same lines for what they are
    const kinds = BARE_ROLLOUT.trim().split("\n").map((l) => classifyCodexLine(l)?.kind);
    assert.deepEqual(
      kinds,
      ["meta", "meta", "injected", "prompt", "meta", "tool", "tool", "assistant"].concat(["meta"]),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a record type the reader does not know is counted by type and skipped; known ones it ignores are not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "asm-codex-unknown-" });
  try {
    const at = (n: number) => `"timestamp":"2026-12-01T10:00:0${n}.000Z"`;
    const PROMPT_HI = '{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}';
    const path = join(dir, "rollout-2026-12-01T10-00-00-0d6e3c1a-1111-4222-8333-944455556667.jsonl");
    await Deno.writeTextFile(
      path,
      [
        `{${at(0)},"type":"session_meta","payload":{"id":"0d6e3c1a-1111-4222-8333-944455556667","cwd":"/w"}}`,
        `{${at(1)},"type":"world_state","payload":{"state":{}}}`,
        `{${at(2)},"type":"token_usage_record","payload":{"usage":{}}}`,
        `{${at(3)},"type":"hologram","payload":{"type":"message","role":"user","content":[]}}`,
        `{${at(4)},"type":"hologram","payload":{}}`,
        '{"type":"teleport_call","call_id":"c1"}',
        `{${at(5)},"type":"response_item","payload":${PROMPT_HI}}`,
      ].join("\n") + "\n",
    );
    const facts = await codexFacts(path);
    assert.deepEqual(facts.unknown_types, { hologram: 2, teleport_call: 1 });
    assert.equal(facts.turns, 1, "the prompt after them is read");
    assert.equal(facts.last_seen, "2026-12-01T10:00:05.000Z", "an unknown line's time is not the session's");
    assert.equal(facts.bad_lines, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the TypeScript CLI's session document is found whole and read as one: its prompts, at its one time", async () => {
  const home = await Deno.makeTempDir({ prefix: "asm-codex-ts-" });
  try {
    const id = "2215c8cf-6e9e-4a84-bea3-6dc30483e564";
    const sessions = join(home, ".codex", "sessions");
    await Deno.mkdir(sessions, { recursive: true });
    const user = (text: string) => ({
      role: "user",
      content: [{ type: "input_text", text }],
      type: "message",
    });
    const doc = {
      session: { timestamp: "2026-12-01T23:59:58.000Z", id, instructions: "" },
      items: [
        user("fix it"),
        {
          type: "function_call",
          name: "shell",
          arguments: '{"command":["ls"],"workdir":"/srv/app"}',
          call_id: "c",
        },
        { type: "function_call_output", call_id: "c", output: '{"output":"a.py"}' },
        { type: "hologram" },
        user("thanks"),
      ],
    };
    // as the CLI writes it: two-space indents, no newline at the end
    await Deno.writeTextFile(join(sessions, `rollout-2026-12-01-${id}.json`), JSON.stringify(doc, null, 2));
    const env = { HOME: home, CODEX_HOME: join(home, ".codex") };
    const [file] = codexTranscripts.discover(env, denoIo, () => {});
    assert.equal(file.whole, true);
    assert.equal(file.sessionHint, id);
    const fold = codexTranscripts.fold(file, null);
    const handle = denoIo.open(file.path);
    try {
      await passFile(handle, 0, file.size, fold, { chunkBytes: 64 });
    } finally {
      handle.close();
    }
    const facts = codexTranscripts.facts([fold.state()], [file]);
    assert.equal(facts.session_id, id);
    assert.equal(facts.turns, 2);
    assert.deepEqual(facts.days, { "2026-12-01": 2 }, "on the day of the document's one time");
    assert.equal(facts.first_message, "fix it");
    assert.equal(facts.started_at, "2026-12-01T23:59:58.000Z");
    assert.equal(facts.last_seen, "2026-12-01T23:59:58.000Z");
    assert.deepEqual(facts.folders, { "/srv/app": 1 });
    assert.equal(facts.cwd, null, "the document names no folder of its own");
    assert.deepEqual(facts.unknown_types, { hologram: 1 });
    assert.equal(facts.bad_lines, 0);
    assert.deepEqual(
      JSON.parse(JSON.stringify(fold.state())),
      fold.state(),
      "the state is JSON, without the text",
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
