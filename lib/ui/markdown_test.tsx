import assert from "node:assert/strict";
import { render } from "preact-render-to-string";
import { hasHit, Highlighted, Markdown } from "./markdown.tsx";

function md(text: string, highlight?: string, hitId?: boolean): string {
  return render(<Markdown text={text} highlight={highlight} hitId={hitId} />);
}

/** The HTML inside the `<div class="md">` wrapper. */
function inner(text: string): string {
  const html = md(text);
  assert.ok(html.startsWith('<div class="md">') && html.endsWith("</div>"), html);
  return html.slice('<div class="md">'.length, -"</div>".length);
}

Deno.test("html in the text shows as text, never as markup", () => {
  const html = md('<script>alert(1)</script> <img src=x onerror="alert(1)"> <b>bold?</b>');
  assert.ok(html.includes("&lt;script>alert(1)&lt;/script>"), html);
  assert.ok(!html.includes("<script") && !html.includes("<img") && !html.includes("<b>"), html);
  assert.ok(html.includes("&lt;img src=x onerror="), html);
});

Deno.test("a link whose URL is not http or https shows its text and no anchor", () => {
  for (
    const url of [
      "javascript:alert(1)",
      "JAVASCRIPT:alert(1)",
      " javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "file:///etc/passwd",
      "src/main.ts",
      "//evil.example/x",
    ]
  ) {
    const html = md(`[x](${url}) and ![pic](${url})`);
    assert.ok(!html.includes("<a"), `${url}: ${html}`);
    assert.ok(!html.includes("href"), `${url}: ${html}`);
    assert.ok(html.startsWith('<div class="md"><p>x and pic'), `${url}: ${html}`);
  }
});

Deno.test("an http(s) link opens apart and sends no referrer", () => {
  assert.equal(
    inner('[the **docs**](https://example.com/a_(b)?q=1&r=2 "title")'),
    '<p><a href="https://example.com/a_(b)?q=1&amp;r=2" rel="noopener noreferrer" target="_blank">the ' +
      "<strong>docs</strong></a></p>",
  );
  assert.equal(
    inner("[x](<http://example.com/a b>)"),
    '<p><a href="http://example.com/a b" rel="noopener noreferrer" target="_blank">x</a></p>',
  );
});

Deno.test("a bare or bracketed http(s) URL is a link without the sentence's punctuation", () => {
  assert.equal(
    inner("see https://example.com/path_x_y. (or <http://example.org/a>) and (https://x.org/a)."),
    '<p>see <a href="https://example.com/path_x_y" rel="noopener noreferrer" target="_blank">' +
      "https://example.com/path_x_y</a>. (or " +
      '<a href="http://example.org/a" rel="noopener noreferrer" target="_blank">http://example.org/a</a>) and (' +
      '<a href="https://x.org/a" rel="noopener noreferrer" target="_blank">https://x.org/a</a>).</p>',
  );
  assert.ok(!md("ftp://example.com and xhttp://example.com and `https://in.code`").includes("<a"));
});

Deno.test("an image is a link to its URL with its alt text, never an img", () => {
  assert.equal(
    inner("![a chart](https://example.com/c.png) ![](https://example.com/d.png)"),
    '<p><a href="https://example.com/c.png" rel="noopener noreferrer" target="_blank">a chart</a> ' +
      '<a href="https://example.com/d.png" rel="noopener noreferrer" target="_blank">https://example.com/d.png</a></p>',
  );
});

Deno.test("a fenced block keeps its text literal and names its language as a safe class", () => {
  assert.equal(
    inner("```ts\nconst b = <b>x</b>;\n  **not bold**\n```"),
    '<pre><code class="lang-ts">const b = &lt;b>x&lt;/b>;\n  **not bold**</code></pre>',
  );
  assert.equal(inner("~~~\n```\n~~~"), "<pre><code>```</code></pre>");
  assert.equal(inner('```x" onclick="y\nz\n```'), '<pre><code class="lang-x">z</code></pre>');
  assert.equal(inner('```x"><script>\nz\n```'), '<pre><code class="lang-xscript">z</code></pre>');
  assert.equal(
    inner("```\nnever closed\n\n# not a heading"),
    "<pre><code>never closed\n\n# not a heading</code></pre>",
  );
});

Deno.test("headings are h4 to h6, never the page's h1 or h2", () => {
  assert.equal(
    inner("# One\n## Two ##\n### Three\n#### Four\n###### Six\n#nospace"),
    "<h4>One</h4><h4>Two</h4><h5>Three</h5><h6>Four</h6><h6>Six</h6><p>#nospace</p>",
  );
});

Deno.test("inline code, bold, italic and strike; snake_case and lone stars stay text", () => {
  assert.equal(
    inner("`a <b>` **bold** *it* _it_ ~~gone~~ ***both*** **a *b* c** snake_case_name 2 * 3 * 4"),
    "<p><code>a &lt;b></code> <strong>bold</strong> <em>it</em> <em>it</em> <del>gone</del> " +
      "<strong><em>both</em></strong> <strong>a <em>b</em> c</strong> snake_case_name 2 * 3 * 4</p>",
  );
  assert.equal(inner("\\*not\\* \\`x\\`"), "<p>*not* `x`</p>");
});

Deno.test("unclosed emphasis, code and links render literally", () => {
  assert.equal(
    inner("*open and **open and `open and [open](x and ~~open"),
    "<p>*open and **open and `open and [open](x and ~~open</p>",
  );
  assert.equal(inner("**bold*"), "<p>*<em>bold</em></p>");
});

Deno.test("paragraphs split on blank lines and keep single newlines as line breaks", () => {
  assert.equal(inner("one\ntwo\r\n\r\n\nthree"), "<p>one<br/>two</p><p>three</p>");
});

Deno.test("a list nests one level by indentation, and an ordered list keeps its start", () => {
  assert.equal(
    inner("- a\n- b\n  - c\n  * d\n- e\ncontinued"),
    "<ul><li>a</li><li>b<ul><li>c</li><li>d</li></ul></li><li>e<br/>continued</li></ul>",
  );
  assert.equal(
    inner("3. three\n4. four\n  - under an ordered item, two spaces in"),
    '<ol start="3"><li>three</li><li>four<ul><li>under an ordered item, two spaces in</li></ul></li></ol>',
  );
  assert.equal(inner("- a\n\n- b"), "<ul><li><p>a</p></li><li><p>b</p></li></ul>");
  assert.equal(
    inner("text\n- item\n\nin 1986. we\n1986. was"),
    "<p>text</p><ul><li>item</li></ul><p>in 1986. we<br/>1986. was</p>",
  );
});

Deno.test("a blockquote holds blocks, and a rule is a rule", () => {
  assert.equal(
    inner("> quoted *text*\nlazy line\n> - item\n\n---\n* * *"),
    "<blockquote><p>quoted <em>text</em><br/>lazy line</p><ul><li>item</li></ul></blockquote><hr/><hr/>",
  );
});

Deno.test("a GFM table has a head, rows and alignment, and pads short rows", () => {
  assert.equal(
    inner("| Name | Count | Note |\n|:-----|------:|:----:|\n| `a\\|b` | 2 | **ok** |\n| c |"),
    '<table><thead><tr><th>Name</th><th class="ar">Count</th><th class="ac">Note</th></tr></thead>' +
      '<tbody><tr><td><code>a|b</code></td><td class="ar">2</td><td class="ac"><strong>ok</strong></td></tr>' +
      '<tr><td>c</td><td class="ar"></td><td class="ac"></td></tr></tbody></table>',
  );
  assert.equal(inner("a | b\nnot a separator"), "<p>a | b<br/>not a separator</p>");
});

Deno.test("hostile 200 KB lines render: no backtracking, no deep recursion", () => {
  const n = 200_000;
  const lines = [
    "*[`".repeat(n / 3),
    "`*[x".repeat(n / 4),
    "[](".repeat(n / 3),
    "[a](x '".repeat(n / 7),
    "**a".repeat(n / 3),
    "*a _b ".repeat(n / 12) + "c_ d*".repeat(n / 10),
    "<http://".repeat(n / 8),
    ">".repeat(n),
    "#" + " ".repeat(n) + "x",
    Array.from({ length: 600 }, (_, k) => "`".repeat(k + 1) + "a").join(""),
  ];
  for (const line of lines) {
    const html = md(`text ${line}`, "a", true);
    assert.ok(html.startsWith('<div class="md">') && html.length > line.length / 2, line.slice(0, 20));
    assert.ok(html.split('id="hit"').length <= 2, "one id at most");
  }
});

Deno.test("the highlight marks every occurrence in shown text, with one id=hit, never in an href", () => {
  const html = md("Foo and `foo` and [foo](https://foo.example/) and **FOO**\n\n```\nfoo\n```", "foo", true);
  assert.equal(html.split("<mark").length - 1, 5, html);
  assert.equal(html.split('id="hit"').length - 1, 1, html);
  assert.ok(
    html.startsWith('<div class="md"><p><mark id="hit">Foo</mark> and <code><mark>foo</mark></code>'),
    html,
  );
  assert.ok(html.includes('href="https://foo.example/"'), html);
  assert.ok(!md("Foo foo", "foo").includes('id="hit"'), "no id unless asked for");
  assert.ok(!md("Foo", "").includes("<mark"), "an empty term marks nothing");
});

Deno.test("Highlighted marks plain text literally, not as a pattern", () => {
  assert.equal(
    render(<Highlighted text="a.b a+b A.B <x>" highlight="a.b" hitId />),
    '<mark id="hit">a.b</mark> a+b <mark>A.B</mark> &lt;x>',
  );
  assert.equal(render(<Highlighted text="(x) [y]" highlight="(x)" />), "<mark>(x)</mark> [y]");
  assert.equal(render(<Highlighted text="plain" highlight={null} />), "plain");
  assert.equal(hasHit("Straße", "STRASSE"), false);
  assert.equal(hasHit("Ünïcode", "üNÏ"), true);
  assert.equal(hasHit("x", null), false);
});

Deno.test("hostile tables and link titles stay bounded: a 2,000-column head is no table, an unclosed title no link", () => {
  const wide = "|a".repeat(2000) + "|\n" + "|-".repeat(2000) + "|\n" + "|\n".repeat(3000);
  const html = render(<Markdown text={wide} />);
  assert.ok(html.length < 200_000, `the wide table drew ${html.length} characters`);
  assert.doesNotMatch(html, /<table/);
  const long = "|a|b|\n|-|-|\n" + "|x|y|\n".repeat(5000);
  const rows = (render(<Markdown text={long} />).match(/<tr/g) ?? []).length;
  assert.equal(rows, 1001, "a head and 1,000 rows; the rest reads as text");
  const titles = render(<Markdown text={"[a](x (".repeat(9000)} />);
  assert.doesNotMatch(titles, /<a /);
});
