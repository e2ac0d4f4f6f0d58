import assert from "node:assert/strict";
import { BadEventError, parseEvent } from "./event.ts";
import { hookEvent } from "./_test_utils.ts";

Deno.test("an event file's rules_skipped is read as written", () => {
  const why = "standing rules skipped: /p/.asm/rules.md is a link outside the session's folder";
  assert.equal(parseEvent(JSON.stringify(hookEvent({ rules_skipped: why }))).rules_skipped, why);
  assert.equal(parseEvent(JSON.stringify(hookEvent({ rules_skipped: null }))).rules_skipped, null);
});

Deno.test("an event file written before the hook knew rules_skipped still parses, with it null", () => {
  const { rules_skipped: _, ...old } = hookEvent();
  assert.equal("rules_skipped" in old, false);
  const event = parseEvent(JSON.stringify(old));
  assert.equal(event.rules_skipped, null);
  assert.equal(event.event, "SessionStart");
});

const READ_AT = Date.parse("2026-11-29T22:00:05.000Z");

/** The event file's text with `over` written over the hook's keys (raw JSON values: 2^62 stays 2^62). */
function fileWith(over: Record<string, string>): string {
  const text = JSON.stringify(hookEvent());
  return Object.entries(over).reduce(
    (t, [key, raw]) => t.replace(new RegExp(`"${key}":(\\[\\]|null|"[^"]*"|[^,}\\]]+)`), `"${key}":${raw}`),
    text,
  );
}

Deno.test("each value out of range is read as null and named, and the rest of the event is kept", () => {
  // key, its raw JSON in the file, what the event keeps of it
  const rows: [string, string, unknown][] = [
    ["agent_pid", "4611686018427387904", null],
    ["agent_pid", "0", null],
    ["agent_pid", "-1", null],
    ["agent_pid", "4194305", null],
    ["agent_pid", '"4611686018427387904"', null],
    ["agent_pid", "4194304", 4194304],
    ["agent_pid", '"4242"', 4242],
    ["agent_proc_start", "-5", null],
    ["agent_proc_start", "9007199254740993", null],
    ["agent_proc_start", "1e300", null],
    ["agent_proc_start", "0", 0],
    ["boot_id", '"../../etc/passwd"', null],
    ["boot_id", '"0b3c6f3e-1e0b-4c5e-9d8e-2f5b6c7d8e9f"', "0b3c6f3e-1e0b-4c5e-9d8e-2f5b6c7d8e9f"],
    ["cwd", `"/${"a".repeat(5000)}"`, null],
    ["cwd", '"relative/folder"', null],
    ["cwd", '"/a\\u0000b"', null],
    ["transcript_path", `"/${"a".repeat(4095)}"`, `/${"a".repeat(4095)}`],
    ["transcript_path", `"/${"a".repeat(4096)}"`, null],
    ["launch_token", '"asmlt_; rm -rf ~"', null],
    ["session_name", `"${"n".repeat(257)}"`, null],
    ["source", '"start\\nup"', null],
    ["entrypoint", `"${"e".repeat(129)}"`, null],
    ["rules_skipped", `"${"r".repeat(16_385)}"`, null],
    ["hook_ms", "-1", null],
    ["hook_ms", "1e999", null],
    ["hook_ms", "12.5", 12.5],
    ["v", "99999", 1],
  ];
  for (const [key, raw, kept] of rows) {
    const event = parseEvent(fileWith({ [key]: raw }), { now: () => READ_AT });
    const label = `${key}: ${raw.slice(0, 40)}`;
    assert.deepEqual((event as unknown as Record<string, unknown>)[key], kept, label);
    assert.equal(event.dropped?.[key] !== undefined, kept === null || key === "v", label);
    // nothing else was touched
    assert.equal(event.agent_session_id, "11111111-2222-4333-8444-555555555555", label);
    assert.equal(event.event, "SessionStart", label);
    assert.equal(Object.keys(event.dropped ?? {}).length <= 1, true, label);
  }
});

Deno.test("several values out of range in one event are all named, with the reason for each", () => {
  const event = parseEvent(
    fileWith({ agent_pid: "4611686018427387904", agent_proc_start: "-5", cwd: `"/${"a".repeat(5000)}"` }),
    { now: () => READ_AT },
  );
  assert.deepEqual(event.dropped, {
    agent_pid: "4611686018427387904 is not a pid (1 to 4194304)",
    agent_proc_start: "-5 is not a start time in clock ticks (0 to 2^53)",
    cwd: "a path of 5001 bytes, more than 4096",
  });
  assert.deepEqual([event.agent_pid, event.agent_proc_start, event.cwd], [null, null, null]);
  assert.equal(event.boot_id, "boot-1");
  assert.equal(event.hook_ms, 12);
});

Deno.test("an event the hook wrote whole has nothing dropped, and no dropped key at all", () => {
  const event = parseEvent(JSON.stringify(hookEvent()), { now: () => READ_AT });
  assert.equal("dropped" in event, false);
  assert.equal(event.agent_pid, 4242);
});

Deno.test("a key that says nothing (null, absent, empty) is null without being named", () => {
  const { cwd: _, ...noCwd } = hookEvent({ agent_pid: null, source: "" as unknown as null });
  const event = parseEvent(JSON.stringify(noCwd), { now: () => READ_AT });
  assert.deepEqual([event.cwd, event.agent_pid, event.source], [null, null, null]);
  assert.equal(event.dropped, undefined);
});

Deno.test("a ts outside the window is replaced by the time the event was read, and named", () => {
  for (const ts of ["2099-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z"]) {
    const event = parseEvent(fileWith({ ts: `"${ts}"` }), { now: () => READ_AT });
    assert.equal(event.ts, "2026-11-29T22:00:05.000Z", ts);
    assert.match(event.dropped!.ts, /the time the event was read is used$/, ts);
  }
  // a day ahead is still believed (a clock NTP stepped back)
  const ahead = parseEvent(fileWith({ ts: '"2026-11-30T21:00:00.000Z"' }), { now: () => READ_AT });
  assert.equal(ahead.ts, "2026-11-30T21:00:00.000Z");
  assert.equal(ahead.dropped, undefined);
});

Deno.test("an id, agent or event name out of range makes the file no event, with the reason", () => {
  const rows: [string, string, RegExp][] = [
    ["event_id", `"${"e".repeat(1_000_000)}"`, /"event_id" is out of range: a text of 1000000 characters/],
    ["agent_session_id", '"a\\nb"', /"agent_session_id" is out of range: .* holds a control character/],
    ["agent", `"${"c".repeat(129)}"`, /"agent" is out of range/],
    ["event", '"Session\\u0007Start"', /"event" is out of range/],
    ["event_id", "42", /"event_id" is missing or empty/],
    ["ts", "1e20", /"ts" is not a timestamp: 100000000000000000000/],
  ];
  for (const [key, raw, why] of rows) {
    assert.throws(() => parseEvent(fileWith({ [key]: raw }), { now: () => READ_AT }), (err: Error) => {
      assert.equal(err instanceof BadEventError, true, key);
      assert.match(err.message, why, key);
      return true;
    });
  }
});

Deno.test("ancestors: at most 8 kept, an entry with a pid out of range left out, a bad exe or start nulled", () => {
  const entry = (pid: number | string, exe: unknown = "/bin/sh", created: unknown = 100) => ({
    pid,
    exe,
    created,
  });
  const ancestors = [
    entry(10),
    entry("4611686018427387904"),
    entry(11, "relative"),
    entry(12, "/bin/sh", -3),
    "not an ancestor",
    ...Array.from({ length: 6 }, (_, i) => entry(20 + i)),
  ];
  const event = parseEvent(fileWith({ ancestors: JSON.stringify(ancestors) }), { now: () => READ_AT });
  assert.deepEqual(event.ancestors.map((a) => a.pid), [10, 11, 12, 20, 21, 22]);
  assert.deepEqual(event.ancestors[1], { pid: 11, exe: null, created: 100 });
  assert.deepEqual(event.ancestors[2], { pid: 12, exe: "/bin/sh", created: null });
  const why = event.dropped!.ancestors;
  assert.match(why, /^11 entries, more than the hook writes \(8\): the first 8 kept/);
  assert.match(why, /entry 2 left out: 4611686018427387904 is not a pid/);
  assert.match(why, /entry 3 exe: "relative" is not an absolute path/);
  assert.match(why, /entry 4 created: -3 is not a start time/);
  assert.match(why, /entry 5 left out: "not an ancestor" is not an ancestor/);
});
