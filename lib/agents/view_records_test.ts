import assert from "node:assert/strict";
import {
  clipBytes,
  commandLine,
  commonFields,
  isPatchText,
  patchPath,
  RAW_BYTES,
  rawJson,
  TEXT_BYTES,
  toolInput,
} from "./view_records.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;

Deno.test("a text that fits is kept whole; a longer one is cut to the byte budget with a trailing …", () => {
  assert.equal(clipBytes("short"), "short");
  const fits = "x".repeat(TEXT_BYTES);
  assert.equal(clipBytes(fits), fits);
  const long = "y".repeat(TEXT_BYTES + 1);
  const cut = clipBytes(long);
  assert.ok(cut.endsWith("…"));
  assert.ok(bytes(cut) <= TEXT_BYTES, `${bytes(cut)} bytes`);
  assert.equal(cut.slice(0, -1), "y".repeat(cut.length - 1), "nothing but the … is added");
});

Deno.test("a cut never splits a character: multi-byte letters and emoji stay whole", () => {
  for (const unit of ["é", "語", "😀"]) {
    const cut = clipBytes(unit.repeat(50_000), 1000);
    assert.ok(bytes(cut) <= 1000, `${unit}: ${bytes(cut)} bytes`);
    const body = cut.slice(0, -1);
    assert.equal(body, unit.repeat(body.length / unit.length), `${unit} was split`);
    assert.ok(!body.includes("\uFFFD"));
  }
});

Deno.test("a tool input's raw JSON is compact and clipped; a nesting too deep for JSON.stringify is empty, not a throw", () => {
  assert.equal(rawJson({ command: "ls", n: 1 }), '{"command":"ls","n":1}');
  const big = rawJson({ content: "z".repeat(100_000) });
  assert.ok(bytes(big) <= RAW_BYTES && big.endsWith("…"));
  let deep: unknown = "leaf";
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.equal(typeof rawJson(deep), "string");
  assert.equal(rawJson(undefined), "");
});

Deno.test("a command given as bash -lc is shown as its script; other argument lists as quoted words", () => {
  assert.equal(commandLine(["bash", "-lc", "ls -la | head"]), "ls -la | head");
  assert.equal(commandLine(["/bin/bash", "-lc", "ls"]), "ls");
  assert.equal(commandLine(["sh", "-c", "echo hi"]), "echo hi");
  assert.equal(commandLine(["cat", "/srv/app/main.py"]), "cat /srv/app/main.py");
  assert.equal(commandLine(["grep", "-n", "it's here", "a b.txt"]), `grep -n 'it'\\''s here' 'a b.txt'`);
  assert.equal(commandLine("npm test"), "npm test");
  assert.equal(commandLine(["ls", 3]), null, "a list with a non-string is not a command");
  assert.equal(commandLine({ cmd: "ls" }), null);
  assert.equal(commandLine([]), null);
  assert.equal(commandLine(""), null);
});

Deno.test("an apply-patch text names its first file; other text names none", () => {
  const patch =
    "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** Add File: src/new.ts\n+x\n*** End Patch";
  assert.equal(isPatchText(patch), true);
  assert.equal(patchPath(patch), "src/app.ts");
  assert.equal(
    patchPath("*** Begin Patch\n*** Add File: /abs/new file.txt\n+x\n*** End Patch"),
    "/abs/new file.txt",
  );
  assert.equal(patchPath("no patch here"), null);
  assert.equal(isPatchText("diff --git a b"), false);
});

Deno.test("the keys tools share give a file, an edit, and a pattern in its folder; never a command", () => {
  assert.deepEqual(commonFields({ file_path: "/a.ts", old_string: "x", new_string: "y" }), {
    path: "/a.ts",
    edit: { before: "x", after: "y" },
    summary: null,
  });
  assert.equal(commonFields({ pattern: "TODO", path: "/src" }).summary, "TODO in /src");
  assert.equal(commonFields({ query: "deno fmt" }).summary, "deno fmt");
  assert.equal(commonFields({ dir_path: "/src" }).summary, "in /src");
  assert.deepEqual(commonFields({ command: "rm -rf /" }), { path: null, edit: null, summary: null });
  // hostile shapes: wrong types are ignored, never evaluated
  assert.deepEqual(commonFields({ file_path: 7, old_string: "x", new_string: null, pattern: {} }), {
    path: null,
    edit: null,
    summary: null,
  });
  assert.deepEqual(commonFields("not an object"), {});
});

Deno.test("a ToolInput bounds every field it carries", () => {
  const huge = "q".repeat(200_000);
  const input = toolInput({ huge }, {
    command: huge,
    path: huge,
    edit: { before: huge, after: "" },
    summary: huge,
  });
  assert.ok(bytes(input.command!) <= TEXT_BYTES);
  assert.ok(bytes(input.path!) <= 1024);
  assert.ok(bytes(input.summary!) <= 1024);
  assert.ok(bytes(input.edit!.before) <= TEXT_BYTES);
  assert.equal(input.edit!.after, "");
  assert.ok(bytes(input.raw) <= RAW_BYTES);
  assert.equal(input.patch, null);
});
