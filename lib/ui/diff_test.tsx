import assert from "node:assert/strict";
import { render } from "preact-render-to-string";
import { Diff, lineDiff, Patch } from "./diff.tsx";

Deno.test("a small diff keeps the common lines and shows a change as removal then addition", () => {
  assert.deepEqual(lineDiff("a\nb\nc\nd\ne\n", "a\nB\nc\ne\nf\n"), [
    { op: " ", text: "a" },
    { op: "-", text: "b" },
    { op: "+", text: "B" },
    { op: " ", text: "c" },
    { op: "-", text: "d" },
    { op: " ", text: "e" },
    { op: "+", text: "f" },
  ]);
});

Deno.test("an empty side diffs as all additions or all removals, and a final newline is no line", () => {
  assert.deepEqual(lineDiff("", "x\ny\n"), [{ op: "+", text: "x" }, { op: "+", text: "y" }]);
  assert.deepEqual(lineDiff("x\r\n", ""), [{ op: "-", text: "x" }]);
  assert.deepEqual(lineDiff("same", "same\n"), [{ op: " ", text: "same" }]);
  assert.deepEqual(lineDiff("", ""), []);
});

Deno.test("a middle past 2,000 × 2,000 lines is all removals then all additions", () => {
  const common = Array.from({ length: 1999 }, (_, k) => `line ${k}`);
  const before = ["old head", ...common, "old tail"];
  const after = ["new head", ...common, "new tail"];
  const huge = lineDiff(before.join("\n"), after.join("\n"));
  assert.equal(huge.length, 4002);
  assert.ok(huge.slice(0, 2001).every((l) => l.op === "-"));
  assert.ok(huge.slice(2001).every((l) => l.op === "+"));
  assert.deepEqual(huge[2001], { op: "+", text: "new head" });
  // well under the bound the same shape is a real diff: the common lines are kept
  const small = lineDiff(
    ["old head", ...common.slice(0, 500), "old tail"].join("\n"),
    ["new head", ...common.slice(0, 500), "new tail"].join("\n"),
  );
  assert.equal(small.filter((l) => l.op === " ").length, 500);
  assert.deepEqual(
    small.filter((l) => l.op !== " ").map((l) => l.op + l.text),
    ["-old head", "+new head", "-old tail", "+new tail"],
  );
});

Deno.test("Diff keeps three lines of context around a change and counts the folded rest", () => {
  const before = Array.from({ length: 20 }, (_, k) => `l${k}`);
  const after = before.with(10, "<b>changed</b>");
  assert.equal(
    render(<Diff before={before.join("\n")} after={after.join("\n")} />),
    '<pre class="diff"><span class="skip">… 7 unchanged lines</span>' +
      '<span class="ctx">  l7</span><span class="ctx">  l8</span><span class="ctx">  l9</span>' +
      '<span class="del">- l10</span><span class="add">+ &lt;b>changed&lt;/b></span>' +
      '<span class="ctx">  l11</span><span class="ctx">  l12</span><span class="ctx">  l13</span>' +
      '<span class="skip">… 6 unchanged lines</span></pre>',
  );
  // a fold of one line would save nothing: the line shows instead
  const eight = ["a", "b", "c", "d", "e", "f", "g", "h"];
  const html = render(<Diff before={eight.join("\n")} after={[...eight.slice(0, 7), "H"].join("\n")} />);
  assert.ok(
    html.startsWith('<pre class="diff"><span class="skip">… 4 unchanged lines</span><span class="ctx">  e'),
    html,
  );
  assert.equal(render(<Diff before="x" after="x" />), '<pre class="diff"><span class="ctx">  x</span></pre>');
});

Deno.test("Patch classes each line by its first character, headers as hunks", () => {
  const unified =
    "diff --git a/x b/x\nindex 1..2\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+<c>\n\n--- gone";
  assert.equal(
    render(<Patch patch={unified} />),
    '<pre class="diff"><span class="hunk">diff --git a/x b/x</span><span class="ctx">index 1..2</span>' +
      '<span class="hunk">--- a/x</span><span class="hunk">+++ b/x</span><span class="hunk">@@ -1,2 +1,2 @@</span>' +
      '<span class="ctx"> a</span><span class="del">-b</span><span class="add">+&lt;c></span>' +
      '<span class="ctx"> </span><span class="del">--- gone</span></pre>',
  );
  const applyPatch = "*** Begin Patch\n*** Update File: a.ts\n@@ fn\n-old\n+new\n ctx\n*** End Patch\n";
  assert.equal(
    render(<Patch patch={applyPatch} />),
    '<pre class="diff"><span class="hunk">*** Begin Patch</span><span class="hunk">*** Update File: a.ts</span>' +
      '<span class="hunk">@@ fn</span><span class="del">-old</span><span class="add">+new</span>' +
      '<span class="ctx"> ctx</span><span class="hunk">*** End Patch</span></pre>',
  );
});
