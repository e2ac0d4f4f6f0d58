import assert from "node:assert/strict";
import { asmIdOf, sessionViews } from "../ledger/mod.ts";
import { denoIo } from "./io.ts";
import { claudePromptLine, faultyIo, fixture, type ImportWorld, importWorld } from "./_test_utils.ts";

const GOOD = "f6afb6dd-6b5f-416a-88b0-7b51fe180966";
const BAD = "bbbbbbbb-0000-4000-8000-00000000000b";
const PROJECTS = ".claude/projects/-tmp-cc-proj-5";

/** A good Claude transcript beside the bad one: it must import exactly as it would alone. */
function withGoodFile(w: ImportWorld): void {
  w.place(fixture(`claude/signals/SIGKILL-idle.${GOOD}.jsonl`), `${PROJECTS}/${GOOD}.jsonl`);
}

function goodIsIntact(w: ImportWorld): void {
  const good = sessionViews(w.ledger, { all: true }).find((s) => s.asm_id === asmIdOf("claude", GOOD));
  assert.equal(good?.turns, 1, "the good file beside it imported in full");
}

function linesAbout(w: ImportWorld, path: string): Record<string, unknown>[] {
  return w.logged.filter((l) => l.path === path);
}

function badRow(w: ImportWorld) {
  return sessionViews(w.ledger, { all: true }).find((s) => s.asm_id === asmIdOf("claude", BAD));
}

/** A typed prompt line as Claude writes it. */
function prompt(text: string, ts = "2026-11-29T10:00:00.000Z"): string {
  return claudePromptLine({ sessionId: BAD, text, ts, cwd: "/tmp/x" });
}

Deno.test("a transcript whose last line was cut short imports its complete lines and costs one log line", async () => {
  await using w = importWorld();
  withGoodFile(w);
  const cut = prompt("third").slice(0, 40);
  const path = w.write(`${PROJECTS}/${BAD}.jsonl`, `${prompt("one")}\n${prompt("two")}\n${cut}`);
  await w.run();
  goodIsIntact(w);
  assert.equal(badRow(w)?.turns, 2);
  assert.equal(linesAbout(w, path).length, 1);
  assert.match(String(linesAbout(w, path)[0].error), /incomplete line/);
});

Deno.test("invalid UTF-8 never stops the import: the line still reads, with replacement characters", async () => {
  await using w = importWorld();
  withGoodFile(w);
  const enc = new TextEncoder();
  const [head, tail] = prompt("caf\u0000X").split("\\u0000");
  const bytes = new Uint8Array([
    ...enc.encode(head),
    0xff,
    0xfe,
    0xc3,
    ...enc.encode(tail),
    10,
    0x80,
    0x81,
    10,
  ]);
  const path = w.write(`${PROJECTS}/${BAD}.jsonl`, bytes);
  await w.run();
  goodIsIntact(w);
  assert.equal(badRow(w)?.turns, 1);
  assert.equal(linesAbout(w, path).length, 1, "the line of stray bytes: one log line for the file");
});

Deno.test("a 50 MB line is skipped without being held whole, and the lines around it count", async () => {
  await using w = importWorld();
  withGoodFile(w);
  const huge = new Uint8Array(50 << 20).fill(0x61); // "aaaa...": 50 MB, no newline
  const enc = new TextEncoder();
  const before = enc.encode(prompt("before") + "\n");
  const after = enc.encode("\n" + prompt("after", "2026-11-29T11:00:00.000Z") + "\n");
  const bytes = new Uint8Array(before.length + huge.length + after.length);
  bytes.set(before, 0);
  bytes.set(huge, before.length);
  bytes.set(after, before.length + huge.length);
  const path = w.write(`${PROJECTS}/${BAD}.jsonl`, bytes);
  await w.run();
  goodIsIntact(w);
  assert.equal(badRow(w)?.turns, 2);
  const lines = linesAbout(w, path);
  assert.equal(lines.length, 1);
  assert.match(String(lines[0].error), /1 line\(s\) over the line limit/);
});

Deno.test("a file of binary garbage makes no row and costs one log line", async () => {
  await using w = importWorld();
  withGoodFile(w);
  let x = 12345;
  const garbage = Uint8Array.from(
    { length: 200_000 },
    () => (x = (x * 1103515245 + 12345) & 0x7fffffff) & 0xff,
  );
  const path = w.write(`${PROJECTS}/${BAD}.jsonl`, garbage);
  await w.run();
  goodIsIntact(w);
  assert.equal(badRow(w), undefined);
  assert.equal(linesAbout(w, path).length, 1);
  const again = await w.run();
  assert.equal(again.files_read, 0, "recorded as read: not re-read (nor logged) until it changes");
});

Deno.test("unknown line types and unknown fields are ignored; the known lines read exactly", async () => {
  await using w = importWorld();
  withGoodFile(w);
  const lines = [
    JSON.stringify({ type: "brand-new-kind", sessionId: BAD, anything: { nested: [1, 2] } }),
    prompt("hello").replace('"promptSource"', '"newField":{"x":1},"promptSource"'),
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type: "mystery",
      timestamp: "2026-11-29T10:00:01.000Z",
    }),
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      futureKey: true,
      message: {
        role: "assistant",
        model: "m9",
        content: "hi",
        usage: { input_tokens: 5, output_tokens: 6 },
      },
      type: "assistant",
      timestamp: "2026-11-29T10:00:02.000Z",
    }),
    JSON.stringify([1, 2, 3]),
    "42",
  ];
  const path = w.write(`${PROJECTS}/${BAD}.jsonl`, lines.join("\n") + "\n");
  w.write(
    ".codex/sessions/2026/11/29/rollout-2026-11-29T10-00-00-01a2295d-0000-7000-8000-000000000001.jsonl",
    [
      JSON.stringify({
        timestamp: "2026-11-29T10:00:00.000Z",
        ordinal: 0,
        type: "session_meta",
        payload: {
          id: "01a2295d-0000-7000-8000-000000000001",
          timestamp: "2026-11-29T10:00:00.000Z",
          cwd: "/tmp/c",
          source: "cli",
          thread_source: "user",
          new_thing: 1,
        },
      }),
      JSON.stringify({
        timestamp: "2026-11-29T10:00:01.000Z",
        ordinal: 1,
        type: "future_record",
        payload: { type: "x" },
      }),
      JSON.stringify({
        timestamp: "2026-11-29T10:00:02.000Z",
        ordinal: 2,
        type: "event_msg",
        payload: { type: "brand_new_event" },
      }),
    ].join("\n") + "\n",
  );
  await w.run();
  goodIsIntact(w);
  const bad = badRow(w)!;
  assert.equal(bad.turns, 1);
  assert.equal(w.ledger.query("SELECT model FROM sessions WHERE asm_id = ?", bad.asm_id)[0].model, "m9");
  assert.equal(bad.context_tokens, 11);
  // one line per unknown type, one for the lines that are not records at all: never one per line
  assert.deepEqual(linesAbout(w, path).map((l) => `${l.what}: ${l.error}`).sort(), [
    'transcript line type not known: 1 line(s) of type "brand-new-kind" were skipped: this reader does not know the type',
    'transcript line type not known: 1 line(s) of type "mystery" were skipped: this reader does not know the type',
    "transcript read with problems: 2 line(s) could not be read",
  ]);
  const codex = sessionViews(w.ledger, { all: true }).find((s) => s.agent === "codex");
  assert.equal(codex?.turns, 0);
});

Deno.test("a file that vanishes or shrinks while being read costs one log line and is read again next time", async () => {
  await using w = importWorld();
  withGoodFile(w);
  const path = w.write(`${PROJECTS}/${BAD}.jsonl`, `${prompt("one")}\n${prompt("two")}\n`);
  const size = Deno.statSync(path).size;
  await w.run({ io: faultyIo(denoIo, { endsAt: new Map([[path, Math.floor(size / 2)]]) }) });
  goodIsIntact(w);
  assert.equal(badRow(w), undefined, "a half-read file is not stored");
  assert.equal(linesAbout(w, path).length, 1);
  assert.match(String(linesAbout(w, path)[0].error), /ended at byte/);
  // gone between the walk and the read
  const gone = w.write(`${PROJECTS}/cccccccc-0000-4000-8000-00000000000c.jsonl`, `${prompt("x")}\n`);
  const io = {
    ...denoIo,
    open: (p: string) => {
      if (p === gone) Deno.removeSync(gone);
      return denoIo.open(p);
    },
  };
  await w.run({ io });
  assert.equal(linesAbout(w, gone).length, 1);
  assert.equal(w.logged.filter((l) => l.path === path).length, 1, "the shrunk file was read whole this time");
  assert.equal(badRow(w)?.turns, 2);
});

Deno.test("an unreadable file or folder costs one log line, and everything else imports", async () => {
  await using w = importWorld();
  withGoodFile(w);
  const path = w.write(`${PROJECTS}/${BAD}.jsonl`, `${prompt("one")}\n`);
  w.place(
    fixture("codex/rollouts/exec-plain-chat.rollout.jsonl"),
    ".codex/sessions/2026/11/29/rollout-2026-11-29T22-12-08-01a2295d-92ca-73a0-ac65-5a6372a1a905.jsonl",
  );
  const day = `${w.home}/.codex/sessions/2026/11/29`;
  // tests run as root, where chmod 000 stops nothing: the reader itself refuses
  const report = await w.run({
    io: faultyIo(denoIo, { unreadable: new Set([path]), unlistable: new Set([day]) }),
  });
  goodIsIntact(w);
  assert.equal(report.files_failed, 1);
  assert.equal(linesAbout(w, path).length, 1);
  assert.match(String(linesAbout(w, path)[0].error), /permission denied/);
  assert.equal(linesAbout(w, day).length, 1);
  assert.equal(badRow(w), undefined);
});

Deno.test("values out of range in a transcript are stored as null, named in one log line, and the row reads", async () => {
  await using w = importWorld();
  withGoodFile(w);
  const assistant = (ts: string, inputTokens: string) =>
    `{"type":"assistant","isSidechain":false,"timestamp":"${ts}","sessionId":"${BAD}",` +
    `"message":{"role":"assistant","model":"claude-x","content":[],"usage":{"input_tokens":${inputTokens}}}}`;
  const path = w.write(
    `${PROJECTS}/${BAD}.jsonl`,
    [
      prompt("first", "2026-11-29T10:00:00.000Z"),
      // a token count of 2^62 (no read of it could have given it back), and a moment in 2099
      assistant("2026-11-29T10:00:05.000Z", "4611686018427387904"),
      prompt("from the future", "2099-01-01T00:00:00.000Z"),
    ].join("\n") + "\n",
  );
  await w.run();
  goodIsIntact(w);
  const row = badRow(w)!;
  assert.equal(row.context_tokens, null);
  assert.equal(row.last_seen, null, "a moment in 2099 is no last_seen");
  assert.equal(row.started_at, "2026-11-29T10:00:00.000Z");
  assert.equal(row.turns, 2);
  assert.deepEqual(
    w.ledger.query("SELECT day FROM session_days WHERE asm_id = ? ORDER BY day", asmIdOf("claude", BAD))
      .map((r) => r.day),
    ["2026-11-29"],
    "the day in 2099 is left out",
  );
  const named = w.logged.filter((l) => l.what === "import values dropped");
  assert.equal(named.length, 1);
  assert.equal(named[0].path, path);
  const dropped = named[0].dropped as Record<string, string>;
  assert.deepEqual(Object.keys(dropped).sort(), ["context_tokens", "days", "last_seen"]);
  assert.match(dropped.context_tokens, /^4611686018427387904 is not a token count/);
  assert.match(dropped.last_seen, /^2099-01-01T00:00:00.000Z is more than a day after the clock$/);
});
