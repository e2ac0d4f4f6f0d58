import assert from "node:assert/strict";
import { join } from "node:path";
import { denoIo } from "../../history/io.ts";
import type { TranscriptIo } from "../../derive/mod.ts";
import {
  attachSummaries,
  folderSummaries,
  SUMMARY_HEAD_BYTES,
  summaryEra,
  uuidOnBytes,
} from "./summaries.ts";

const LEAF_A = "aaaaaaaa-1111-4111-8111-111111111111";
const LEAF_B = "bbbbbbbb-2222-4222-8222-222222222222";

function summaryLine(leaf: string, summary: string): string {
  return JSON.stringify({ type: "summary", summary, leafUuid: leaf });
}

Deno.test("the versions up to 2.1.29 wrote summary lines; 2.1.30 and later, and an unreadable version, did not", () => {
  const table: [string | null, boolean][] = [
    ["0.2.126", true],
    ["1.0.128", true],
    ["2.0.77", true],
    ["2.0.100", true],
    ["2.1.29", true],
    ["2.1.30", false],
    ["2.1.328", false],
    ["3.0.0", false],
    ["10.0.0", false],
    [null, false],
    ["not a version", false],
  ];
  for (const [version, era] of table) assert.equal(summaryEra(version), era, String(version));
});

Deno.test("a line's own uuid is read from its bytes; parentUuid, leafUuid and quoted text are not it", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const line = JSON.stringify({
    parentUuid: LEAF_B,
    leafUuid: LEAF_B,
    type: "user",
    message: { content: [{ type: "tool_result", content: `a quoted "uuid":"${LEAF_B}" in the output` }] },
    uuid: LEAF_A,
    toolUseResult: { uuid: LEAF_B },
  });
  const b = bytes(`x${line}y`);
  assert.equal(uuidOnBytes(b, 1, b.length - 1), LEAF_A);
  const none = bytes(JSON.stringify({ parentUuid: LEAF_B, type: "user" }));
  assert.equal(uuidOnBytes(none, 0, none.length), null);
  // a uuid cut by the line's end is no uuid
  const cut = bytes(`{"uuid":"${LEAF_A}"`);
  assert.equal(uuidOnBytes(cut, 0, cut.length - 1), null);
});

Deno.test("a folder's summary lines map each leaf to its title, the first real title of a leaf winning", async () => {
  const dir = await Deno.makeTempDir({ prefix: "asm-summaries-" });
  try {
    const prompt = JSON.stringify({ type: "user", uuid: LEAF_B, message: { content: "hi" } });
    // a failed title request left the version's error text as the title: not a title, the next one counts
    const failed = summaryLine(LEAF_A, "Invalid API key · Please run /login");
    await Deno.writeTextFile(join(dir, "0.jsonl"), `${failed}\n${summaryLine(LEAF_B, "API Error: 500")}\n`);
    await Deno.writeTextFile(join(dir, "1.jsonl"), `${summaryLine(LEAF_A, "Title A")}\n${prompt}\n`);
    // a -p run may write its prompt before the title it asked for at start-up
    await Deno.writeTextFile(
      join(dir, "2.jsonl"),
      `${prompt}\n${summaryLine(LEAF_A, "A again")}\n${summaryLine(LEAF_B, "Title B")}\n`,
    );
    await Deno.writeTextFile(join(dir, "notes.txt"), `${summaryLine(LEAF_B, "not a transcript")}\n`);
    // a summary line past the head is not looked for
    await Deno.writeTextFile(
      join(dir, "3.jsonl"),
      `${"x".repeat(SUMMARY_HEAD_BYTES)}\n${summaryLine("cccccccc-3333-4333-8333-333333333333", "C")}\n`,
    );
    assert.deepEqual([...folderSummaries(denoIo, dir)], [[LEAF_A, "Title A"], [LEAF_B, "Title B"]]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a session gets the title its leaf is given; a titled one keeps its own; a folder that fails is a problem", async () => {
  const dir = await Deno.makeTempDir({ prefix: "asm-summaries-" });
  try {
    await Deno.writeTextFile(join(dir, "later.jsonl"), `${summaryLine(LEAF_A, "Title A")}\n`);
    const untitled = { summary: null as string | null };
    const titled = { summary: "own" as string | null };
    const other = { summary: null as string | null };
    let listed = 0;
    const counting: TranscriptIo = {
      ...denoIo,
      readDir: (path) => {
        listed++;
        return denoIo.readDir(path);
      },
    };
    const problems = attachSummaries([
      { facts: untitled, path: join(dir, "a.jsonl"), leaf: LEAF_A },
      { facts: titled, path: join(dir, "b.jsonl"), leaf: LEAF_A },
      { facts: other, path: join(dir, "c.jsonl"), leaf: LEAF_B },
    ], counting);
    assert.deepEqual(problems, []);
    assert.deepEqual([untitled.summary, titled.summary, other.summary], ["Title A", "own", null]);
    assert.equal(listed, 1, "a folder is read once for all its sessions");

    const failing: TranscriptIo = {
      ...denoIo,
      readDir: () => {
        throw new Deno.errors.PermissionDenied("permission denied");
      },
    };
    const lost = { summary: null as string | null };
    assert.deepEqual(attachSummaries([{ facts: lost, path: join(dir, "a.jsonl"), leaf: LEAF_A }], failing), [
      `summary lines in ${dir} could not be read: permission denied`,
    ]);
    assert.equal(lost.summary, null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
