import assert from "node:assert/strict";
import { join } from "node:path";
import { adapterOf, loadAgents } from "../agents/mod.ts";
import type { ViewLine, ViewRecord } from "../derive/transcript_types.ts";
import { hitIndex, type KeyedLine, transcriptOf, UsageTotals, windowOf } from "./transcript_view.ts";

const FIXTURES = Deno.env.get("ASM_FIXTURES") ??
  new URL("../../../shared/fixtures", import.meta.url).pathname;

function viewer(agent: string) {
  const config = loadAgents().find((a) => a.name === agent)!;
  const transcripts = adapterOf(config).transcripts!;
  return (line: string) => transcripts.viewLine(line);
}

function keyed(texts: string[]): KeyedLine[] {
  return texts.map((text, i) => ({ key: `f@${i}`, text }));
}

function firstFile(dir: string, suffix: string): string {
  for (const e of Deno.readDirSync(dir)) if (e.isFile && e.name.endsWith(suffix)) return join(dir, e.name);
  throw new Error(`no *${suffix} in ${dir}`);
}

Deno.test("a real Claude transcript shows the typed prompt and the answer, and no metadata", () => {
  const file = firstFile(join(FIXTURES, "claude", "p-mode", "transcripts"), ".jsonl");
  const { entries, totals } = transcriptOf(keyed(Deno.readTextFileSync(file).split("\n")), viewer("claude"));
  const kinds = entries.flatMap((e) => e.records.map((r) => r.kind));
  assert.ok(kinds.includes("prompt"), "a prompt");
  assert.ok(kinds.includes("assistant"), "an answer");
  const texts = entries.flatMap((e) => e.records.map((r) => "text" in r ? r.text : ""));
  assert.equal(texts.every((t) => !/"parentUuid"|"sessionId"/.test(t)), true, "no JSON keys as text");
  assert.ok(totals.model, `the model is named (${totals.model})`);
  assert.ok((totals.output ?? 0) > 0, "tokens out are counted");
});

Deno.test("a Gemini record re-appended under its id shows once, as its last copy, in the place of the first", () => {
  const lines = [
    JSON.stringify({ sessionId: "s", projectHash: "h", startTime: "2026-11-29T22:00:00.000Z", kind: "main" }),
    JSON.stringify({
      id: "u1",
      timestamp: "2026-11-29T22:00:01.000Z",
      type: "user",
      content: [{ text: "hello" }],
    }),
    JSON.stringify({
      id: "g1",
      timestamp: "2026-11-29T22:00:02.000Z",
      type: "gemini",
      content: "first draft",
    }),
    JSON.stringify({
      id: "u2",
      timestamp: "2026-11-29T22:00:03.000Z",
      type: "user",
      content: [{ text: "more" }],
    }),
    JSON.stringify({
      id: "g1",
      timestamp: "2026-11-29T22:00:04.000Z",
      type: "gemini",
      content: "final answer",
    }),
  ];
  const { entries } = transcriptOf(keyed(lines), viewer("gemini"));
  const texts = entries.map((e) => e.records.map((r) => "text" in r ? r.text : r.kind).join("|"));
  assert.deepEqual(texts, ["hello", "final answer", "more"]);
  assert.equal(
    entries[1].key,
    "id:g1",
    "a record with an id is keyed by it, so the stream replaces it in place",
  );
});

function line(records: ViewRecord[], id: string | null = null): string {
  return JSON.stringify({ id, records } satisfies ViewLine);
}

const asView = (text: string) => JSON.parse(text) as ViewLine;

Deno.test("token totals count each model call once, and take a format's running totals as they come", () => {
  const call = (call: string | null, input: number, output: number): ViewRecord => ({
    kind: "usage",
    usage: { model: "m-1", input, output, scope: "call", call },
    ts: null,
  });
  const { totals } = transcriptOf(
    keyed([
      line([{ kind: "assistant", text: "a", ts: null }, call("c1", 100, 10)]),
      line([
        { kind: "tool_call", tool: "Bash", call_id: "t", input: blankInput(), ts: null },
        call("c1", 100, 10),
      ]),
      line([call("c2", 150, 5)]),
      line([call(null, 1, 1)]),
    ]),
    asView,
  );
  assert.deepEqual(totals, { model: "m-1", input: 251, output: 16 }, "c1 written twice counts once");
  const running = new UsageTotals();
  running.add({ model: "x", input: 10, output: 1, scope: "total", call: null });
  running.add({ model: null, input: 30, output: 4, scope: "total", call: null });
  assert.deepEqual(running.totals(), { model: "x", input: 30, output: 4 });
  assert.deepEqual(
    new UsageTotals().totals(),
    { model: null, input: null, output: null },
    "never said is null",
  );
});

function blankInput() {
  return { command: null, path: null, edit: null, patch: null, summary: null, raw: "" };
}

Deno.test("a line of token counts alone makes no entry; its counts still count", () => {
  const { entries, totals } = transcriptOf(
    keyed([
      line([{
        kind: "usage",
        usage: { model: null, input: 7, output: 3, scope: "total", call: null },
        ts: null,
      }]),
      line([{ kind: "prompt", text: "hi", ts: null }]),
      "not json at all",
    ]),
    (text) => text.startsWith("{") ? asView(text) : null,
  );
  assert.deepEqual(entries.map((e) => e.key), ["f@1"]);
  assert.deepEqual([totals.input, totals.output], [7, 3]);
});

function prompts(n: number): KeyedLine[] {
  return Array.from({ length: n }, (_, i) => ({
    key: `f@${i}`,
    text: line([{ kind: "prompt", text: i === 17 ? "the needle is here" : `message ${i}`, ts: `t${i}` }]),
  }));
}

Deno.test("the window: the newest page, the page before a key, and the part around a search hit", () => {
  const { entries } = transcriptOf(prompts(1000), asView);
  const newest = windowOf(entries, { size: 300 });
  assert.deepEqual([newest.entries[0].key, newest.earlier, newest.later], ["f@700", 700, 0]);
  const before = windowOf(entries, { size: 300, before: "f@700" });
  assert.deepEqual([before.entries[0].key, before.entries.at(-1)!.key, before.earlier, before.later], [
    "f@400",
    "f@699",
    400,
    300,
  ]);
  const hit = windowOf(entries, { size: 300, find: "NEEDLE" });
  assert.equal(hit.hit, "f@17");
  assert.deepEqual([hit.entries[0].key, hit.earlier], ["f@7", 7], "ten entries of context before the hit");
  assert.equal(hit.later, 0, "everything after the hit, so the page follows the transcript");
  const far = windowOf(transcriptOf(prompts(3000), asView).entries, { size: 300, find: "needle" });
  assert.deepEqual(
    [far.entries.length, far.later],
    [1000, 1993],
    "at most 1,000 entries from the hit's window",
  );
  const none = windowOf(entries, { size: 300, find: "absent" });
  assert.deepEqual([none.hit, none.earlier], [null, 700], "no hit: the newest page");
});

Deno.test("a search hit prefers the entry written at the snippet's time; else the newest holding it", () => {
  const { entries } = transcriptOf(
    keyed([
      line([{ kind: "prompt", text: "deploy now", ts: "2026-01-01T00:00:00.000Z" }]),
      line([{ kind: "assistant", text: "Deploy done", ts: "2026-01-01T00:01:00.000Z" }]),
      line([{ kind: "prompt", text: "unrelated", ts: "2026-01-01T00:02:00.000Z" }]),
    ]),
    asView,
  );
  assert.equal(hitIndex(entries, "deploy"), 1);
  assert.equal(hitIndex(entries, "deploy", "2026-01-01T00:00:00.000Z"), 0);
  assert.equal(hitIndex(entries, "deploy", "2099-01-01T00:00:00.000Z"), 1);
  assert.equal(hitIndex(entries, "nowhere"), -1);
});
