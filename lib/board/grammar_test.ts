import assert from "node:assert/strict";
import {
  cardName,
  DROPPED_TAG,
  hasTag,
  parseCard,
  projectTag,
  withoutTag,
  withTag,
  withTagOf,
  withTitle,
} from "./grammar.ts";

Deno.test("a card's tags are the trailing run of #words; a # inside the title is not a tag", () => {
  const rows: [string, string, string[]][] = [
    ["Fix the login redirect #webapp #claude", "Fix the login redirect", ["webapp", "claude"]],
    ["Fix C# parsing #123 in the title #webapp", "Fix C# parsing #123 in the title", ["webapp"]],
    ["Fix issue #123", "Fix issue #123", []],
    ["Fix issue #123 #webapp", "Fix issue #123", ["webapp"]],
    ["No tags at all", "No tags at all", []],
    ["#webapp #codex", "", ["webapp", "codex"]],
    ["Trailing dot #webapp.", "Trailing dot #webapp.", []],
    ["Tabs\t#webapp\t#claude  ", "Tabs", ["webapp", "claude"]],
    ["Mixed #Unknown-Tag #ünïcode #a/b #p-2024", "Mixed", ["Unknown-Tag", "ünïcode", "a/b", "p-2024"]],
    ["word#notatag #webapp", "word#notatag", ["webapp"]],
    ["Escaped last word \\#webapp #claude", "Escaped last word #webapp", ["claude"]],
    ["Two backslashes \\\\#webapp", "Two backslashes \\#webapp", []],
    ["  Leading spaces #x", "Leading spaces", ["x"]],
    ["", "", []],
  ];
  for (const [name, title, tags] of rows) {
    assert.deepEqual(parseCard(name), { title, tags }, name);
  }
});

Deno.test("setting a tag rewrites only the trailing run: title and spacing kept exactly", () => {
  const rows: [string, string, string][] = [
    ["Fix  the   login #webapp", DROPPED_TAG, "Fix  the   login #webapp #dropped"],
    ["Fix C# parsing #123 in the title", "claude", "Fix C# parsing #123 in the title #claude"],
    ["Title  \t#webapp\t#claude  ", "dropped", "Title  \t#webapp\t#claude #dropped  "],
    ["Already #dropped", "dropped", "Already #dropped"],
    ["Any case #Dropped", "dropped", "Any case #Dropped"],
    ["", "webapp", "#webapp"],
    ["Trailing spaces   ", "x", "Trailing spaces #x   "],
  ];
  for (const [name, tag, want] of rows) assert.equal(withTag(name, tag), want, name);
});

Deno.test("removing a tag removes it and its separator; the title's own spacing goes to the next tag", () => {
  const rows: [string, string, string][] = [
    ["Fix it #webapp #claude #dropped", "dropped", "Fix it #webapp #claude"],
    ["Fix it  #dropped #webapp", "dropped", "Fix it  #webapp"],
    ["Fix it #webapp  #dropped\t#claude ", "dropped", "Fix it #webapp\t#claude "],
    ["#dropped #webapp", "dropped", "#webapp"],
    ["Fix it #dropped", "DROPPED", "Fix it"],
    ["Fix #dropped it", "dropped", "Fix #dropped it"],
    ["Twice #dropped #x #dropped", "dropped", "Twice #x"],
    ["None here", "dropped", "None here"],
  ];
  for (const [name, tag, want] of rows) assert.equal(withoutTag(name, tag), want, name);
});

Deno.test("an agent tag is swapped in place; a card with none gets one at the end", () => {
  const agents = ["claude", "codex", "gemini"];
  const rows: [string, string, string][] = [
    ["Fix it #webapp #claude #dropped", "codex", "Fix it #webapp #codex #dropped"],
    ["Fix it #webapp #Claude #codex", "gemini", "Fix it #webapp #gemini"],
    ["Fix it #webapp", "codex", "Fix it #webapp #codex"],
    ["Fix it #webapp #codex", "codex", "Fix it #webapp #codex"],
    ["Retyped   by hand #claude  #webapp", "codex", "Retyped   by hand #codex  #webapp"],
  ];
  for (const [name, tag, want] of rows) assert.equal(withTagOf(name, agents, tag), want, name);
});

Deno.test("a title is replaced with the tag run kept; composing escapes once and parsing unescapes once", () => {
  assert.equal(withTitle("Old title #webapp  #claude", "New title"), "New title #webapp  #claude");
  assert.equal(withTitle("#webapp", "Named"), "Named #webapp");
  assert.equal(withTitle("Old", "New"), "New");
  assert.equal(
    cardName("Fix the login redirect", ["webapp", "claude"]),
    "Fix the login redirect #webapp #claude",
  );
  assert.equal(cardName("", ["webapp"]), "#webapp");
  for (
    const title of ["Ends in a tag #webapp", "Ends in \\#webapp", "Ends in \\\\#x", "C# and #123", "Plain"]
  ) {
    const name = cardName(title, ["claude"]);
    assert.deepEqual(parseCard(name), { title, tags: ["claude"] }, name);
    const renamed = withTitle(name, title);
    assert.equal(renamed, name, "renaming to the same title changes nothing");
    assert.equal(parseCard(withTitle(withTitle(name, "x"), title)).title, title);
  }
  assert.equal(cardName("Ends in a tag #webapp", []), "Ends in a tag \\#webapp");
  assert.throws(() => cardName("x", ["not a tag"]), /cannot be a card tag/);
  assert.throws(() => withTag("x", "123"), /cannot be a card tag/);
});

Deno.test("hasTag looks at the trailing run only, in any case", () => {
  assert.equal(hasTag("Fix #dropped it", "dropped"), false);
  assert.equal(hasTag("Fix it #DROPPED", "dropped"), true);
});

Deno.test("a project becomes a tag by the slug rule; nothing left means no tag", () => {
  const rows: [string, string | null][] = [
    ["webapp", "webapp"],
    ["My Web App", "my-web-app"],
    ["  --weird__name!!  ", "weird__name"],
    ["Café Müller", "cafe-muller"],
    ["asm.v2 (fork)", "asm-v2-fork"],
    ["2024", "p-2024"],
    ["✨", null],
    ["", null],
  ];
  for (const [project, want] of rows) assert.equal(projectTag(project), want, project);
});

Deno.test("a 100 KB line is read and rewritten in linear time", () => {
  const long = `${"a".repeat(30_000)}${" ".repeat(30_000)}b ${"#t ".repeat(15_000)}#webapp`;
  const started = performance.now();
  const { title, tags } = parseCard(long);
  assert.equal(tags.length, 15_001);
  assert.equal(title, `${"a".repeat(30_000)}${" ".repeat(30_000)}b`);
  assert.ok(withoutTag(withTag(long, "dropped"), "dropped") === long);
  assert.ok(performance.now() - started < 1_000);
});
