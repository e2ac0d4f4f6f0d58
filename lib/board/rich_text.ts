/**
 * Escape once in, unescape once out: a remote outliner's names are rich text (Workflowy: inline HTML, and the
 * service parses markdown-ish formatting in what it is sent), while the card grammar, the planner and the page
 * work on the plain text a person reads. Pure.
 *
 * - **Out** ({@link plainOf}): markup dropped, character references decoded, once. `A &amp;amp; B` reads
 *   `A &amp; B`, which is what the person sees in their outliner.
 * - **In** ({@link escapeText}): every character the service would read as markup written as a character
 *   reference: `&`, `<`, `>` as named ones, and the markdown-ish characters (`*`, `_`, `~`, `` ` ``, `[`, `]`,
 *   a leading `#`, `-` or space) as numeric ones, so `**bold**` typed as a card title stays two asterisks. The
 *   references are decoded by the service exactly once, before or after it stores the name; either way
 *   {@link plainOf} of what it stores is the text asm meant.
 * - **Rewriting a name asm did not type** ({@link richWithPlain}): asm changes a tag or a title in plain text;
 *   the rich name is rewritten so its plain text is the new one, keeping every piece of markup (a bold word, a
 *   link, a colour) outside the changed span. The changed span takes the formatting of the text it replaces; a
 *   pure insertion (a tag added at the end) is written outside any formatting that closes there. Text that is
 *   kept is written escaped again, never sent back as the service stored it (a stored `*` must not become markup
 *   on the next write).
 * @module
 */

/** A piece of a rich name: markup, kept as the service wrote it, or one plain character. */
type Atom = { markup: string } | { char: string };

/** Named references the decoder knows; any other `&...;` is literal text. */
const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

const TAG = /^<\/?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?>/;
const REFERENCE = /^&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z]{2,8}));/;

/** The characters of `text` with references decoded (an `&` that starts none is itself). */
function decodeInto(text: string, out: Atom[]): void {
  let i = 0;
  while (i < text.length) {
    if (text[i] === "&") {
      const m = text.slice(i).match(REFERENCE);
      const code = m ? (m[1] ? Number(m[1]) : m[2] ? parseInt(m[2], 16) : null) : null;
      const decoded = m
        ? (m[3] ? NAMED[m[3]] : code !== null && code <= 0x10ffff ? String.fromCodePoint(code) : undefined)
        : undefined;
      if (m && decoded !== undefined) {
        for (const char of decoded) out.push({ char });
        i += m[0].length;
        continue;
      }
    }
    const char = String.fromCodePoint(text.codePointAt(i)!);
    out.push({ char });
    i += char.length;
  }
}

/** A rich name as atoms: every tag is markup; text between tags is decoded once. */
function atomsOf(rich: string): Atom[] {
  const out: Atom[] = [];
  let text = "";
  let i = 0;
  while (i < rich.length) {
    if (rich[i] === "<") {
      const m = rich.slice(i).match(TAG);
      if (m) {
        decodeInto(text, out);
        text = "";
        out.push({ markup: m[0] });
        i += m[0].length;
        continue;
      }
    }
    text += rich[i];
    i++;
  }
  decodeInto(text, out);
  return out;
}

/** Unescape once: the plain text a person reads in a rich name. */
export function plainOf(rich: string): string {
  return atomsOf(rich).map((a) => ("char" in a ? a.char : "")).join("");
}

/** References for the characters the service would read as markup anywhere in a name. */
const ALWAYS: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "*": "&#42;",
  "_": "&#95;",
  "~": "&#126;",
  "`": "&#96;",
  "[": "&#91;",
  "]": "&#93;",
};

/** References for the characters that are markup only at a name's start (a heading, a bullet, a quote). */
const LEADING: Record<string, string> = { "#": "&#35;", "-": "&#45;", " ": "&#32;" };

/**
 * Escape once: `text` as a rich name whose plain text is exactly `text`. `atStart` says whether it begins the
 * name (where `#`, `-` and a space are markup too). Line breaks are the caller's: a name is one line.
 */
export function escapeText(text: string, atStart = true): string {
  let out = "";
  let first = atStart;
  for (const char of text) {
    out += ALWAYS[char] ?? (first ? LEADING[char] : undefined) ?? char;
    first = false;
  }
  return out;
}

/** Atoms back to a rich name: markup as it was, text escaped (the name's first character as a leading one). */
function serialize(atoms: Atom[]): string {
  let out = "";
  let started = false;
  // the elements kept open: a closing tag is echoed only when it closes one of them
  const open: string[] = [];
  for (const atom of atoms) {
    if ("markup" in atom) {
      if (!KEPT_MARKUP.test(atom.markup)) continue;
      const name = tagName(atom.markup);
      if (!CLOSING.test(atom.markup)) open.push(name);
      else if (open.lastIndexOf(name) >= 0) open.splice(open.lastIndexOf(name), 1);
      else continue;
      out += atom.markup;
      continue;
    }
    out += escapeText(atom.char, !started);
    started = true;
  }
  return out;
}

/**
 * The markup the service documents as a name's (bold, italic, strike, underline, code, a link, a colour), in the
 * exact forms it stores (lower case; a link's href, a colour's class, nothing else): kept when asm rewrites a
 * name. Any other element (a date's `<time>`) is written as its text: echoed back, the service
 * might store it as literal text, and a name showing `<time ...>` would be worse than a date shown as text.
 */
const KEPT_MARKUP =
  /^(?:<(?:b|i|s|u|code)>|<\/(?:b|i|s|u|code|a|span|mark)>|<a href="[^"<>]*">|<(?:span|mark) class="[^"<>]*">)$/;

const OPENING = /^<[A-Za-z]/;
const CLOSING = /^<\//;

/** `<b></b>`: a pair of tags left with nothing between them is dropped. */
function withoutEmptyPairs(atoms: Atom[]): Atom[] {
  const out: Atom[] = [];
  for (const atom of atoms) {
    const last = out[out.length - 1];
    if (
      "markup" in atom && CLOSING.test(atom.markup) && last && "markup" in last &&
      OPENING.test(last.markup) &&
      tagName(last.markup) === tagName(atom.markup)
    ) {
      out.pop();
      continue;
    }
    out.push(atom);
  }
  return out;
}

function tagName(markup: string): string {
  return markup.replace(/^<\/?/, "").match(/^[A-Za-z0-9]+/)?.[0].toLowerCase() ?? "";
}

/**
 * The rich name `rich` rewritten so that its plain text is `plain`: the common start and end of the two plain
 * texts keep their markup; the span between is replaced by `plain`'s, escaped, in the formatting of the text it
 * replaces (or, for a pure insertion, after the formatting that closes at that point).
 */
export function richWithPlain(rich: string, plain: string): string {
  const atoms = atomsOf(rich);
  const chars = atoms.filter((a): a is { char: string } => "char" in a).map((a) => a.char);
  const wanted = [...plain];
  if (chars.join("") === plain) return serialize(atoms);
  let head = 0;
  while (head < chars.length && head < wanted.length && chars[head] === wanted[head]) head++;
  let tail = 0;
  while (
    tail < chars.length - head && tail < wanted.length - head &&
    chars[chars.length - 1 - tail] === wanted[wanted.length - 1 - tail]
  ) tail++;
  const inserted: Atom[] = wanted.slice(head, wanted.length - tail).map((char) => ({ char }));
  const removedEnd = chars.length - tail;
  const out: Atom[] = [];
  let position = 0; // plain characters seen so far
  let placed = false;
  const place = () => {
    if (!placed) out.push(...inserted);
    placed = true;
  };
  for (const atom of atoms) {
    if ("markup" in atom) {
      // a pure insertion goes after the formatting that closes where it starts, before what opens there
      if (!placed && position === head && head === removedEnd && !CLOSING.test(atom.markup)) place();
      out.push(atom);
      continue;
    }
    if (position === head) place(); // the first replaced character (or the first one after an insertion)
    if (position < head || position >= removedEnd) out.push(atom);
    position++;
  }
  place();
  return serialize(withoutEmptyPairs(out));
}
