import assert from "node:assert/strict";
import { transcriptReader } from "../agents/transcripts.ts";
import type { TranscriptFile } from "../derive/mod.ts";
import { denoIo } from "./io.ts";
import { listTranscript } from "./list_read.ts";
import { fixture } from "./_test_utils.ts";

const CLAUDE_ID = "9489399f-ac78-4316-81cd-2726c9579121";
const PATH = fixture(`claude/interactive/transcripts/before-clear.chat-tool-skill-rename.${CLAUDE_ID}.jsonl`);

function fileAt(path: string, size = Deno.statSync(path).size): TranscriptFile {
  return {
    agent: "claude",
    path,
    sessionHint: CLAUDE_ID,
    role: "main",
    parentSessionId: null,
    cwd: null,
    rel: "x.jsonl",
    size,
    mtimeMs: 0,
    ino: null,
  };
}

/** The facts of the whole file, through the same fold. */
function wholeFacts(path: string) {
  const cap = transcriptReader("claude");
  const file = fileAt(path);
  const fold = cap.fold(file, null);
  const bytes = Deno.readFileSync(path);
  for (let i = 0, j = bytes.indexOf(10); j >= 0; i = j + 1, j = bytes.indexOf(10, i)) fold.line(bytes, i, j);
  return cap.facts([fold.state()], [file]);
}

Deno.test("a list read of a real transcript's two ends finds the head's facts and the tail's newest model, in a bounded read", () => {
  const cap = transcriptReader("claude");
  const whole = wholeFacts(PATH);
  for (const first of [512, 4096]) {
    const { data, problems } = listTranscript(fileAt(PATH), cap, denoIo, { first });
    assert.deepEqual(problems, []);
    assert.ok(data && data.facts, `first ${first}`);
    for (const key of ["session_id", "cwd", "started_at", "source", "first_message", "model"] as const) {
      assert.deepEqual(data.facts[key], whole[key], `first ${first}: ${key}`);
    }
    assert.equal(data.sessionId, CLAUDE_ID);
    // two ends, not the file: bounded by the head's and the tail's bounds
    assert.ok(data.bytesRead <= (64 << 10) + (16 << 10) * 2, `${data.bytesRead} bytes`);
    assert.ok(
      data.bytesRead < Deno.statSync(PATH).size,
      `${data.bytesRead} bytes of ${Deno.statSync(PATH).size}`,
    );
  }
});

Deno.test("a first line longer than the head's bound leaves the head's facts unknown, never a guess from mid-line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "asm-list-read-" });
  try {
    const path = `${dir}/${CLAUDE_ID}.jsonl`;
    const long = JSON.stringify({
      type: "user",
      sessionId: CLAUDE_ID,
      cwd: "/far",
      pad: "x".repeat(100_000),
    });
    await Deno.writeTextFile(path, long + "\n" + (await Deno.readTextFile(PATH)));
    const { data } = listTranscript(fileAt(path), transcriptReader("claude"), denoIo, {
      first: 1024,
      max: 8192,
    });
    assert.ok(data && data.facts);
    assert.equal(data.facts.cwd, null, "the head holds no complete line within its bound");
    assert.equal(data.facts.first_message, null);
    // the session is still known (by its file's name) and the tail still speaks
    assert.equal(data.sessionId, CLAUDE_ID);
    assert.equal(data.facts.model, wholeFacts(PATH).model);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a file that cannot be opened costs one problem line and no data", () => {
  const { data, problems } = listTranscript(
    fileAt("/nonexistent/asm-list-read.jsonl", 10),
    transcriptReader("claude"),
    denoIo,
  );
  assert.equal(data, null);
  assert.equal(problems.length, 1);
  assert.equal(problems[0].what, "transcript unreadable");
});
