import assert from "node:assert/strict";
import { escapeText, plainOf, richWithPlain } from "./rich_text.ts";

const TITLES = [
  "Fix the login redirect",
  "A & B",
  "a < b > c",
  "A &amp; B",
  "&lt;b&gt; is not bold",
  "**bold** and *it* and ~~gone~~ and `code`",
  "[x](y) and [2026-12-01]",
  "# not a heading",
  "- not a bullet",
  "> not a quote",
  " leading space",
  "snake_case_name",
  "emoji 🚀 and ünïcode",
  "&#42; a reference typed by hand",
  "&",
  "",
];

Deno.test("escape once in, unescape once out: every title reads back as typed", () => {
  for (const title of TITLES) {
    const rich = escapeText(title);
    assert.equal(plainOf(rich), title, `${JSON.stringify(title)} -> ${rich}`);
    assert.doesNotMatch(rich, /[*_~`[\]<>]/, `no markup character survives escaping: ${rich}`);
    if (/&(amp|lt|#42);/.test(title)) {
      assert.notEqual(
        plainOf(plainOf(rich)),
        title,
        `unescaping twice would change ${JSON.stringify(title)}`,
      );
    }
  }
});

Deno.test("unescape once: markup dropped, references decoded once, unknown ones kept", () => {
  assert.equal(
    plainOf('<b>Fix</b> the <a href="https://e.x/?a=1&amp;b=2">login</a> #webapp'),
    "Fix the login #webapp",
  );
  assert.equal(plainOf("A &amp;amp; B"), "A &amp; B");
  assert.equal(plainOf("&lt;b&gt;"), "<b>");
  assert.equal(plainOf("&#42;&#x2A;&nbsp;&bogus; & x"), "**\u00a0&bogus; & x");
  assert.equal(plainOf("a <3 b"), "a <3 b", "a < that starts no tag is text");
});

Deno.test("a tag rewritten in a name asm did not type keeps the person's bold, link and colour", () => {
  const rich =
    '<b>Fix</b> the <a href="https://e.x/">login</a> <span class="colored c-red">now</span> #webapp';
  const tagged = richWithPlain(rich, "Fix the login now #webapp #claude");
  assert.equal(
    tagged,
    '<b>Fix</b> the <a href="https://e.x/">login</a> <span class="colored c-red">now</span> #webapp #claude',
  );
  const swapped = richWithPlain(tagged, "Fix the login now #webapp #codex");
  assert.equal(plainOf(swapped), "Fix the login now #webapp #codex");
  assert.ok(swapped.startsWith('<b>Fix</b> the <a href="https://e.x/">login</a>'), swapped);
  const dropped = richWithPlain(swapped, "Fix the login now #webapp #codex #dropped");
  const untagged = richWithPlain(dropped, "Fix the login now #webapp #codex");
  assert.equal(untagged, swapped, "a tag added and taken away leaves the name as it was");
});

Deno.test("the replaced span takes the formatting it replaces; an insertion at a closing tag goes after it", () => {
  assert.equal(richWithPlain("<b>Fix #claude</b>", "Fix #codex"), "<b>Fix #codex</b>");
  assert.equal(richWithPlain("Fix <b>Old</b> #x", "Fix New #x"), "Fix <b>New</b> #x");
  assert.equal(richWithPlain("<b>Fix</b>", "Fix #claude"), "<b>Fix</b> #claude");
  assert.equal(richWithPlain("Fix <b>login</b>", "Fix the login"), "Fix the <b>login</b>");
  assert.equal(richWithPlain("<b>Old</b> #x", "New title #x"), "<b>New title</b> #x");
  assert.equal(
    richWithPlain("<i>gone</i> #x", "#x"),
    "&#35;x",
    "an emptied pair is dropped; the leading # escaped",
  );
});

Deno.test("an element the service does not document for names (a date) is written back as its text", () => {
  const rich = 'Ship by <time startYear="2026" startMonth="12" startDay="4">Fri, Dec 4, 2026</time> #x';
  assert.equal(
    richWithPlain(rich, "Ship by Fri, Dec 4, 2026 #x #claude"),
    "Ship by Fri, Dec 4, 2026 #x #claude",
  );
  assert.equal(
    richWithPlain('<mark class="colored c-red">hot</mark> #x', "hot #x #codex"),
    '<mark class="colored c-red">hot</mark> #x #codex',
  );
});

Deno.test("only the exact markup forms the service keeps are echoed; any other tag is written as its text", () => {
  assert.equal(richWithPlain("<B>hi</B> x", "hi x #c"), "hi x #c");
  assert.equal(
    richWithPlain('<a href="u" target="_blank">hi</a> x', "hi x #c"),
    "hi x #c",
    "its close dropped too",
  );
  assert.equal(richWithPlain('<a href="u">hi</a> x', "hi x #c"), '<a href="u">hi</a> x #c');
});

Deno.test("text kept from the stored name is escaped again, so stored asterisks never turn into markup", () => {
  // the service may store `&#42;` as a bare `*`: writing it back as it is stored would make it bold
  assert.equal(
    richWithPlain("**stars** &amp; more", "**stars** & more #claude"),
    "&#42;&#42;stars&#42;&#42; &amp; more #claude",
  );
  assert.equal(richWithPlain("plain", "plain"), "plain");
});
