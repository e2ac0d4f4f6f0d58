import assert from "node:assert/strict";
import { setTomlKey, TomlEditError, tomlInlineTable, tomlString } from "./toml_edit.ts";

const PERSON = [
  "# my asm",
  "port = 7801 # not the default",
  'mode = "testing"   # until the cutover',
  "",
  "[launch]",
  'env = ["HTTPS_PROXY"]',
  "",
  "[board]",
  "# the throwaway copy",
  'path = "/tmp/try/board.md"',
  "",
].join("\n");

Deno.test("a key on its own line changes in place; every other line, comment and blank stays", () => {
  const next = setTomlKey(PERSON, null, "mode", tomlString("live"));
  assert.equal(next, PERSON.replace('mode = "testing"   # until', 'mode = "live"   # until'));
  const board = setTomlKey(next, "board", "path", tomlString("/home/me/vault/board.md"));
  assert.equal(board, next.replace('path = "/tmp/try/board.md"', 'path = "/home/me/vault/board.md"'));
});

Deno.test("a missing key goes at the end of its table; a missing table is added at the end of the file", () => {
  const added = setTomlKey(PERSON, "board", "backend", tomlString("markdown"));
  assert.equal(added, PERSON.replace('board.md"\n', 'board.md"\nbackend = "markdown"\n'));
  const top = setTomlKey('[board]\npath = "x"\n', null, "mode", tomlString("live"));
  assert.equal(top, 'mode = "live"\n[board]\npath = "x"\n');
  const table = setTomlKey(
    'mode = "testing"\n\n',
    "board",
    "lists",
    tomlInlineTable({ plan: "a", process: "b" }),
  );
  assert.equal(table, 'mode = "testing"\n\n[board]\nlists = { plan = "a", process = "b" }\n');
  assert.equal(setTomlKey("", null, "mode", tomlString("live")), 'mode = "live"\n');
});

Deno.test("removing a key removes its line only; setting then removing gives the text back byte for byte", () => {
  const added = setTomlKey(PERSON, "board", "key_file", tomlString("wf.key"));
  assert.equal(setTomlKey(added, "board", "key_file", null), PERSON);
  assert.equal(
    setTomlKey(PERSON, null, "mode", null),
    PERSON.replace('mode = "testing"   # until the cutover\n', ""),
  );
});

Deno.test("a hostile value stays one TOML string: quotes, newlines, backslashes and DEL are escaped", () => {
  const hostile = '/tmp/a"b\nmode = "live"\\\x7f';
  const next = setTomlKey(PERSON, "board", "path", tomlString(hostile));
  assert.equal(next.split("\n").length, PERSON.split("\n").length);
  assert.match(next, /^path = "\/tmp\/a\\"b\\nmode = \\"live\\"\\\\\\u007f"$/m);
});

Deno.test("a layout a line edit would break is refused with what to set by hand, never mangled", () => {
  const dotted = 'board.path = "/tmp/x.md"\n';
  assert.throws(
    () => setTomlKey(dotted, "board", "path", tomlString("/real.md")),
    (err: Error) =>
      err instanceof TomlEditError &&
      err.message ===
        "asm cannot set path in config.toml's [board] safely (the file writes it in a way a line " +
          'edit would change more): set path = "/real.md" yourself, then run it again',
  );
  const multiline = 'mode = """\ntesting"""\n';
  assert.throws(() => setTomlKey(multiline, null, "mode", tomlString("live")), TomlEditError);
  assert.throws(
    () => setTomlKey("mode = [", null, "mode", tomlString("live")),
    /config.toml is not valid TOML/,
  );
});

Deno.test("a CRLF file keeps its line ends and its comments: the edit's lines end in CRLF too", () => {
  const crlf = PERSON.replaceAll("\n", "\r\n");
  const next = setTomlKey(crlf, null, "mode", tomlString("live"));
  assert.equal(next, crlf.replace('mode = "testing"   # until', 'mode = "live"   # until'));
  const added = setTomlKey(crlf, "board", "backend", tomlString("markdown"));
  assert.equal(added, crlf.replace('board.md"\r\n', 'board.md"\r\nbackend = "markdown"\r\n'));
  const table = setTomlKey('mode = "testing" # x\r\n', "board", "path", tomlString("/b.md"));
  assert.equal(table, 'mode = "testing" # x\r\n\r\n[board]\r\npath = "/b.md"\r\n');
  assert.equal(setTomlKey(added, "board", "backend", null), crlf);
});
