import assert from "node:assert/strict";
import {
  ControlReader,
  paintOf,
  paneSizeOfLayout,
  sendBytesCommand,
  snapshotCommands,
  unescapeOutput,
} from "./control_mode.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("%output's escapes: three octal digits are one byte, two backslashes one, the rest as it came", () => {
  assert.deepEqual([...unescapeOutput(bytes("a\\015\\012\\033[K\\\\z\\9"))], [
    0x61,
    0x0d,
    0x0a,
    0x1b,
    0x5b,
    0x4b,
    0x5c,
    0x7a,
    0x5c,
    0x39,
  ]);
  // a character split over two notifications stays whole once its bytes are joined
  const e = bytes("é");
  assert.deepEqual([...unescapeOutput(e.subarray(0, 1)), ...unescapeOutput(e.subarray(1))], [...e]);
});

Deno.test("the reader: notifications outside blocks, a block's lines as its answer even when they look like notifications", () => {
  const r = new ControlReader();
  const push = (line: string) => r.push(bytes(line));
  assert.deepEqual(push("%begin 1 10 0"), []);
  assert.deepEqual(push("%end 1 10 0"), [{ kind: "ready" }], "the attach's own block: the client is ready");
  const out = push("%output %3 hi\\015\\012");
  assert.equal(out.length, 1);
  assert.deepEqual(out[0].kind === "output" && [out[0].pane, new TextDecoder().decode(out[0].bytes)], [
    "%3",
    "hi\r\n",
  ]);
  assert.deepEqual(push("%begin 2 11 1"), []);
  assert.deepEqual(push("%output %3 a captured line that looks like output"), []);
  assert.deepEqual(push("%end 9 99 1"), [], "another number's end is a line of the answer");
  assert.deepEqual(push("%end 2 11 1"), [{
    kind: "answer",
    lines: ["%output %3 a captured line that looks like output", "%end 9 99 1"],
    error: false,
  }]);
  push("%begin 3 12 1");
  assert.deepEqual(push("%error 3 12 1"), [{ kind: "answer", lines: [], error: true }]);
  assert.deepEqual(push("%layout-change @1 b25d,80x24,0,0,3 b25d,80x24,0,0,3 *"), [
    { kind: "layout", window: "@1", layout: "b25d,80x24,0,0,3" },
  ]);
  assert.deepEqual(push("%exit"), [{ kind: "exit", reason: "" }]);
});

Deno.test("commands carry only a pane id, hex bytes and numbers", () => {
  assert.equal(sendBytesCommand("%12", bytes("q'\x1b")), "send-keys -t %12 -H 71 27 1b");
  assert.throws(() => sendBytesCommand("%1; kill-server", bytes("x")), /not a tmux pane id/);
  assert.throws(
    () => snapshotCommands("#(touch x)", "asm-view-0123abcd", "/tmp/v/screen"),
    /not a tmux pane id/,
  );
  assert.throws(() => snapshotCommands("%1", "x; kill-server", "/tmp/v/screen"), /not a buffer name/);
  assert.throws(() => snapshotCommands("%1", "asm-view-0123abcd", "/tmp/v s/screen"), /not a capture file/);
  assert.deepEqual(snapshotCommands("%1", "asm-view-0123abcd", "/tmp/asm-view-x/screen").slice(1), [
    "capture-pane -e -N -t %1 -b asm-view-0123abcd",
    "save-buffer -b asm-view-0123abcd /tmp/asm-view-x/screen",
    "delete-buffer -b asm-view-0123abcd",
  ], "the screen goes through a buffer and a file of asm's, never in band");
  assert.equal(
    paneSizeOfLayout("ab12,99999x99999,0,0,0", "%0"),
    null,
    "a size no terminal has is not believed",
  );
  assert.deepEqual(paneSizeOfLayout("c4d8,160x50,0,0{80x50,0,0,3,79x50,81,0,4}", "%4"), {
    cols: 79,
    rows: 50,
  });
  assert.equal(paneSizeOfLayout("b25d,80x24,0,0,3", "%9"), null);
});

Deno.test("a paint resets, draws each captured line from column 0, and puts the cursor back", () => {
  const painted = new TextDecoder().decode(paintOf("one\ntwo\n", { x: 3, y: 1 }));
  assert.equal(painted, "\x1bc\x1b[H\x1b[2Jone\r\ntwo\x1b[2;4H");
});
