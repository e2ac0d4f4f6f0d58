/**
 * The Gemini reader on the files older versions wrote (verify/fixtures/old/gemini, real files the old CLIs wrote
 * offline: docs/agents/gemini_old_versions.md): `.json` chats read whole, and a session resumed from `.json`
 * into `.jsonl` after an upgrade.
 */
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { passFile, type TranscriptFile } from "../../derive/mod.ts";
import { newFacts } from "../../derive/facts.ts";
import { denoIo } from "../../history/mod.ts";
import { repoRoot } from "../../config/mod.ts";
import { geminiTranscripts } from "./transcript.ts";
import { discoverGemini, geminiFileTag } from "./discover.ts";

const OLD = join(repoRoot(), "verify", "fixtures", "old", "gemini");
const HASHED_082 = ".gemini/tmp/45d3ae065c9a75a9f3d06b5635f308eab78ac0d4609a4614fe6935e30f2168bc";

function fileAt(path: string): TranscriptFile {
  return {
    agent: "gemini",
    path,
    sessionHint: null,
    role: "main",
    parentSessionId: null,
    cwd: null,
    rel: basename(path),
    size: Deno.statSync(path).size,
    mtimeMs: 0,
    ino: null,
    ...(path.endsWith(".json") ? { whole: true } : {}),
  };
}

async function stateOf(file: TranscriptFile, chunkBytes = 256): Promise<unknown> {
  const fold = geminiTranscripts.fold(file, null);
  const handle = denoIo.open(file.path);
  try {
    await passFile(handle, 0, file.size, fold, { chunkBytes });
  } finally {
    handle.close();
  }
  // what the import keeps: the state as JSON
  return JSON.parse(JSON.stringify(fold.state()));
}

async function factsOf(...paths: string[]) {
  const files = paths.map((p) => fileAt(join(OLD, p)));
  const states = [];
  for (const f of files) states.push(await stateOf(f));
  return { facts: geminiTranscripts.facts(states, files), states, files };
}

Deno.test("an early .json chat (0.8.2) reads as the same facts a JSONL session gives", async () => {
  const { facts, states, files } = await factsOf(
    `0.8.2/home/${HASHED_082}/chats/session-2026-12-01T19-30-c7d973fb.json`,
  );
  assert.deepEqual(facts, {
    ...newFacts("c7d973fb-ea90-4a56-a45f-50bca3e7ac67"),
    started_at: "2026-12-01T19:30:19.260Z",
    last_seen: "2026-12-01T19:30:19.276Z",
    turns: 1,
    days: { "2026-12-01": 1 },
    first_message: "first prompt alpha",
    model: "gemini-2.5-pro",
    context_tokens: 151,
    context_window: 1_048_576,
  });
  assert.equal(geminiTranscripts.sessionOf(states[0], files[0]), "c7d973fb-ea90-4a56-a45f-50bca3e7ac67");
  // the state kept is the records' summary, not the file's text
  assert.ok(JSON.stringify(states[0]).length < 800, JSON.stringify(states[0]));
});

Deno.test("a .json chat reads the same whatever the chunk size", async () => {
  const path = join(OLD, `0.8.2/home/${HASHED_082}/chats/session-2026-12-01T19-30-095de617.json`);
  const file = fileAt(path);
  const whole = await stateOf(file, 1 << 20);
  for (const chunk of [1, 7, 64]) assert.deepEqual(await stateOf(file, chunk), whole, `chunks of ${chunk}`);
});

Deno.test("the last .json version (0.38.2): its summary, kind and content parts; an info note is no turn", async () => {
  const resumed = await factsOf(
    "0.38.2/home/.gemini/tmp/project/chats/session-2026-12-01T19-31-a5a5ffff.json",
  );
  assert.equal(resumed.facts.session_id, "a5a5ffff-e16b-41b0-a7de-8d61fb22dda1");
  assert.equal(
    resumed.facts.summary,
    "Mock reply #3: Summarize the user's primary intent or g…cond prompt beta Summary (max 80 chars):",
  );
  assert.equal(resumed.facts.turns, 2, "a -p run and its --resume, in one file");
  assert.equal(resumed.facts.first_message, "first prompt alpha");
  assert.equal(resumed.facts.started_at, "2026-12-01T19:31:07.078Z");
  assert.equal(
    resumed.facts.last_seen,
    "2026-12-01T19:31:10.595Z",
    "the summary written later moved lastUpdated",
  );
  assert.equal(resumed.facts.context_tokens, 189);
  assert.equal(resumed.facts.source, null, '"kind": "main" is no sub-agent');
  const interactive = await factsOf(
    "0.38.2/home/.gemini/tmp/project/chats/session-2026-12-01T19-31-ed9bc085.json",
  );
  assert.equal(interactive.facts.turns, 2, "two prompts; /chat save left only an info note");
  assert.deepEqual(interactive.facts.unknown_types, {}, "info is a type the reader knows and ignores");
  assert.equal(interactive.facts.bad_lines, 0);
});

Deno.test("a session resumed after the upgrade, kept as .json and .jsonl, is one union started at its start", async () => {
  const chats = "0.39.1/home/.gemini/tmp/project/chats";
  const both = await factsOf(
    `${chats}/session-2026-12-01T19-31-d99f292c.json`,
    `${chats}/session-2026-12-01T19-31-d99f292c.jsonl`,
  );
  const sid = "d99f292c-8cc6-46ce-92d0-4b97e7dbbe71";
  assert.deepEqual(both.states.map((s, i) => geminiTranscripts.sessionOf(s, both.files[i])), [sid, sid]);
  assert.equal(both.facts.turns, 2, "the prompt before the upgrade is in both files and counts once");
  assert.deepEqual(both.facts.days, { "2026-12-01": 2 });
  assert.equal(both.facts.first_message, "prompt before the upgrade");
  assert.equal(both.facts.started_at, "2026-12-01T19:31:23.034Z");
  assert.equal(both.facts.last_seen, "2026-12-01T19:31:24.254Z");
  assert.equal(both.facts.context_tokens, 194);
  // the .jsonl alone: 0.39 wrote a header with the resume time before the one it copied: the earliest counts
  const jsonl = await factsOf(`${chats}/session-2026-12-01T19-31-d99f292c.jsonl`);
  assert.equal(jsonl.facts.started_at, "2026-12-01T19:31:23.034Z");
  assert.equal(jsonl.facts.turns, 2);
});

Deno.test("a message or line of a type the Gemini reader does not know is counted by type, not read", () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-gemini-unknown-" });
  try {
    const json = join(root, "session-2026-12-01T10-00-aaaaaaaa.json");
    Deno.writeTextFileSync(
      json,
      JSON.stringify(
        {
          sessionId: "aaaaaaaa-1",
          startTime: "2026-12-01T10:00:00.000Z",
          messages: [
            { id: "1", timestamp: "2026-12-01T10:00:01.000Z", type: "user", content: "typed" },
            { id: "2", timestamp: "2026-12-01T10:00:02.000Z", type: "compression", content: "?" },
            { id: "3", timestamp: "2026-12-01T10:00:03.000Z", type: "warning", content: "known" },
          ],
        },
        null,
        2,
      ),
    );
    const jsonl = join(root, "session-2026-12-01T10-00-bbbbbbbb.jsonl");
    Deno.writeTextFileSync(
      jsonl,
      [
        { sessionId: "bbbbbbbb-1", startTime: "2026-12-01T10:00:00.000Z", kind: "main" },
        { id: "1", timestamp: "2026-12-01T10:00:01.000Z", type: "user", content: [{ text: "typed" }] },
        { id: "2", timestamp: "2026-12-01T10:00:02.000Z", type: "compression", content: [] },
        { $unset: ["summary"] },
        { $set: { messages: [{ id: "9", type: "compression" }] } },
        { id: "3", timestamp: "2026-12-01T10:00:03.000Z", type: "user", content: [{ text: "again" }] },
      ].map((l) => JSON.stringify(l)).join("\n") + "\n",
    );
    const read = (path: string) => {
      const file = fileAt(path);
      const fold = geminiTranscripts.fold(file, null);
      const bytes = Deno.readFileSync(path);
      let start = 0;
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i] === 10) {
          fold.line(bytes, start, i);
          start = i + 1;
        }
      }
      return geminiTranscripts.facts([fold.state()], [file]);
    };
    const a = read(json);
    assert.deepEqual([a.turns, a.unknown_types, a.bad_lines], [1, { compression: 1 }, 0]);
    const b = read(jsonl);
    // the $set of the message list replaced the records before it; its unknown one is counted too
    assert.deepEqual([b.turns, b.unknown_types, b.bad_lines], [1, { compression: 2, $unset: 1 }, 0]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("the walk finds the .json chats of a hashed folder (whole, folder not known), never a checkpoint", () => {
  const home = join(OLD, "0.26.0", "home");
  const files = discoverGemini({ HOME: home }, denoIo, () => {});
  assert.deepEqual(files.map((f) => [basename(f.path), f.cwd, f.whole]).sort(), [
    ["session-2026-12-01T19-30-356ff2fc.json", null, true],
    ["session-2026-12-01T19-30-730011d2.json", null, true],
    ["session-2026-12-01T19-30-9bf3ecdc.json", null, true],
  ]);
  assert.equal(geminiFileTag(files[0].path), basename(files[0].path).slice(25, 33));
  // 0.39's .jsonl beside its .json: both found, only the .json read whole
  const upgraded = discoverGemini({ HOME: join(OLD, "0.39.1", "home") }, denoIo, () => {});
  assert.deepEqual(upgraded.map((f) => [basename(f.path), f.cwd, f.whole ?? false]).sort(), [
    ["session-2026-12-01T19-31-d99f292c.json", "/tmp/asm-old/gemini-0.39.1/project", true],
    ["session-2026-12-01T19-31-d99f292c.jsonl", "/tmp/asm-old/gemini-0.39.1/project", false],
    ["session-2026-12-01T19-31-f4fdb9c7.jsonl", "/tmp/asm-old/gemini-0.39.1/project", false],
  ]);
});
