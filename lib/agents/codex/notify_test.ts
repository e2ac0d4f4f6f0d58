import assert from "node:assert/strict";
import { insertTopLevelLine, isAsmNotify, notifyLine, stripNotify } from "./notify.ts";

const LINE = 'notify = ["/a/bin/asm-hook", "codex", "notify"]';

Deno.test("the notify line lands among the top-level keys, before the first table and its comment", () => {
  const cases: [string, string][] = [
    ["", `${LINE}\n`],
    ['model = "m"\n', `model = "m"\n${LINE}\n`],
    ['model = "m"', `model = "m"\n${LINE}\n`],
    ['model = "m"\n\n[tui]\nx = 1\n', `model = "m"\n${LINE}\n\n[tui]\nx = 1\n`],
    [
      '# mine\nmodel = "m" # inline\n\n# providers\n[p.mock]\nname = "x"\n',
      `# mine\nmodel = "m" # inline\n${LINE}\n\n# providers\n[p.mock]\nname = "x"\n`,
    ],
    ["[tui]\nx = 1\n", `${LINE}\n\n[tui]\nx = 1\n`],
    ["# header comment\n[tui]\n", `${LINE}\n\n# header comment\n[tui]\n`],
    ['a = [\n  "x",\n]\n\n[t]\n', `a = [\n  "x",\n]\n${LINE}\n\n[t]\n`],
    ['model = "m"\r\n\r\n[tui]\r\n', `model = "m"\r\n${LINE}\r\n\r\n[tui]\r\n`],
  ];
  for (const [before, after] of cases) {
    assert.equal(insertTopLevelLine(before, LINE), after, JSON.stringify(before));
  }
});

Deno.test("asm's notify is recognised by the wrapper path and the agent name", () => {
  assert.equal(notifyLine("/a/bin/asm-hook", "codex"), LINE);
  assert.ok(isAsmNotify(["/old/bin/asm-hook", "codex", "notify"], "codex"));
  assert.ok(!isAsmNotify(["/a/bin/asm-hook", "codex2", "notify"], "codex"));
  assert.ok(!isAsmNotify(["/usr/bin/python3", "/x.py", "notify"], "codex"));
});

Deno.test("stripping notify removes asm's line and nothing else", () => {
  const text = `# mine\nmodel = "m"\n${LINE}\n\n[tui]\nx = 1\n`;
  assert.deepEqual(stripNotify("/c/config.toml", "codex", text), {
    kind: "stripped",
    text: '# mine\nmodel = "m"\n\n[tui]\nx = 1\n',
  });
  assert.deepEqual(stripNotify("/c/config.toml", "codex", `${LINE}\n\n[tui]\n`), {
    kind: "stripped",
    text: "[tui]\n",
  });
  assert.deepEqual(stripNotify("/c/config.toml", "codex", 'notify = ["/usr/bin/say"]\n'), {
    kind: "nothing",
  });
  const broken = stripNotify("/c/config.toml", "codex", "[tui\n");
  assert.equal(broken.kind, "refused");
});
