/**
 * An assistant's Markdown as Preact elements, never as HTML: the text is parsed here into blocks and inline runs,
 * and every character reaches the page through Preact's escaping, so a `<script>` an agent quotes (or is tricked
 * into writing) shows as text. A link keeps its href only for http and https. Written for hostile input: every
 * scan is linear or bounded (no regex that can backtrack), and nesting is capped.
 *
 * Also the search highlight shared with the transcript's plain texts (`Highlighted`), and the CSS the transcript's
 * Markdown and diffs need (`TRANSCRIPT_CSS`). Pure and browser-safe: it imports only from preact.
 * @module
 */
import type { VNode } from "preact";

type Node = VNode | string;

/** How deep quotes and lists nest before their markers read as text: a cap on recursion, not a style. */
const MAX_BLOCK_DEPTH = 6;
/** The same cap for emphasis and links. */
const MAX_INLINE_DEPTH = 16;
/** The most a link's title may run before its closing quote. */
const MAX_TITLE = 1_024;

/**
 * The CSS for `Markdown`, `Highlighted` and the diffs (`Diff`, `Patch` in diff.tsx). It leans on the page's
 * variables (--line, --chip, --muted, --accent) with currentColor fallbacks, so it reads in light and dark.
 */
export const TRANSCRIPT_CSS = `
.md { overflow-wrap: anywhere; }
.md > :first-child { margin-top: 0; } .md > :last-child { margin-bottom: 0; }
.md p, .md ul, .md ol, .md blockquote, .md table, .md pre { margin: 0 0 .6em; }
.md h4, .md h5, .md h6 { margin: .8em 0 .3em; font-size: 1em; } .md h4 { font-size: 1.08em; }
.md h6 { color: var(--muted, inherit); }
.md ul, .md ol { padding-left: 1.5em; } .md li > ul, .md li > ol, .md li > p { margin: 0; }
.md blockquote { margin-left: 0; padding-left: .8em; color: var(--muted, inherit);
  border-left: 3px solid var(--line, color-mix(in srgb, currentColor 25%, transparent)); }
.md code { font: .92em/1.4 ui-monospace, monospace; padding: 0 .25em; border-radius: 3px;
  background: var(--chip, color-mix(in srgb, currentColor 10%, transparent)); }
.md pre { padding: 6px 8px; border-radius: 6px; overflow-x: auto;
  background: var(--chip, color-mix(in srgb, currentColor 10%, transparent)); }
.md pre code { padding: 0; background: none; }
.md table { display: block; overflow-x: auto; border-collapse: collapse; }
.md th, .md td { padding: 2px 8px; text-align: left;
  border: 1px solid var(--line, color-mix(in srgb, currentColor 25%, transparent)); }
.md th.ac, .md td.ac { text-align: center; } .md th.ar, .md td.ar { text-align: right; }
.md hr { border: 0; border-top: 1px solid var(--line, color-mix(in srgb, currentColor 25%, transparent)); }
mark { color: inherit; border-radius: 2px; background: color-mix(in srgb, #f2c200 45%, transparent); }
pre.diff { font: 12px/1.45 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.diff > span { display: block; }
pre.diff .add { background: color-mix(in srgb, #2da44e 20%, transparent); }
pre.diff .del { background: color-mix(in srgb, #cf222e 20%, transparent); }
pre.diff .hunk { color: var(--accent, currentColor); font-weight: 600; }
pre.diff .ctx { opacity: .85; } pre.diff .skip { color: var(--muted, inherit); font-style: italic; }
`;

// ---------------------------------------------------------------------------------------------------------------
// The highlight

/** What one render shares while it walks the text: the search pattern and whether the id is still to be given. */
interface Ctx {
  pattern: RegExp | null;
  hitPending: boolean;
}

function patternOf(term: string | null | undefined): RegExp | null {
  if (!term) return null;
  // every syntax character escaped: a literal pattern cannot backtrack, and "u" folds case beyond ASCII
  return new RegExp(term.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"), "giu");
}

function contextOf(highlight: string | null | undefined, hitId: boolean | undefined): Ctx {
  return { pattern: patternOf(highlight), hitPending: hitId === true };
}

/** `text` with every occurrence of the term in a `<mark>`; the first one the whole render makes carries the id. */
function marked(text: string, ctx: Ctx): Node[] {
  const re = ctx.pattern;
  if (!re || text === "") return [text];
  const out: Node[] = [];
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(<mark id={ctx.hitPending ? "hit" : undefined}>{m[0]}</mark>);
    ctx.hitPending = false;
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Paragraph text: a single newline inside a paragraph is a line break (agents write them meaning one). */
function broken(text: string, ctx: Ctx): Node[] {
  const out: Node[] = [];
  const lines = text.split("\n");
  for (let k = 0; k < lines.length; k++) {
    if (k > 0) out.push(<br />);
    append(out, marked(lines[k], ctx));
  }
  return out;
}

/** Pushes one by one: a spread of a 100k-item array would overflow the call stack. */
function append(out: Node[], items: Node[]): void {
  for (const item of items) out.push(item);
}

/**
 * Whether `text` holds the search term as `Highlighted` matches it (case-insensitive, literal): lets the page give
 * `hitId` to the first message that will show a mark, so only one element carries id="hit".
 */
export function hasHit(text: string, highlight: string | null | undefined): boolean {
  const re = patternOf(highlight);
  if (!re) return false;
  re.lastIndex = 0;
  return re.test(text);
}

/**
 * Plain text (a prompt, a tool's output in a `<pre>`) with every case-insensitive occurrence of `highlight` in a
 * `<mark>`. With `hitId`, the first mark gets id="hit" so the page can scroll to it; ask for it on one element of
 * the page only.
 */
export function Highlighted(props: { text: string; highlight?: string | null; hitId?: boolean }): VNode {
  return <>{marked(props.text, contextOf(props.highlight, props.hitId))}</>;
}

// ---------------------------------------------------------------------------------------------------------------
// Blocks

type Align = "left" | "center" | "right" | null;

type Block =
  | { kind: "p"; text: string }
  | { kind: "h"; level: number; text: string }
  | { kind: "code"; lang: string; text: string }
  | { kind: "quote"; blocks: Block[] }
  | { kind: "list"; ordered: boolean; start: number; loose: boolean; items: Block[][] }
  | { kind: "hr" }
  | { kind: "table"; align: Align[]; head: string[]; rows: string[][] };

/** Leading whitespace: its width in columns (a tab to the next multiple of 4) and where the text starts. */
function indentOf(line: string): { width: number; index: number } {
  let width = 0;
  let index = 0;
  for (; index < line.length; index++) {
    const c = line[index];
    if (c === " ") width++;
    else if (c === "\t") width += 4 - (width % 4);
    else break;
  }
  return { width, index };
}

/** `line` without up to `cols` columns of leading whitespace. */
function dedent(line: string, cols: number): string {
  let width = 0;
  let index = 0;
  while (index < line.length && width < cols) {
    const c = line[index];
    if (c === " ") width++;
    else if (c === "\t") width += 4 - (width % 4);
    else break;
    index++;
  }
  return line.slice(index);
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

interface Fence {
  char: string;
  size: number;
  indent: number;
  lang: string;
}

function fenceOf(line: string): Fence | null {
  const { width, index } = indentOf(line);
  if (width > 3) return null;
  const char = line[index];
  if (char !== "`" && char !== "~") return null;
  let end = index;
  while (line[end] === char) end++;
  const size = end - index;
  if (size < 3) return null;
  const info = line.slice(end).trim();
  // a backtick in a backtick fence's info string means the line is inline code, not a fence
  if (char === "`" && info.includes("`")) return null;
  const word = info.split(/[ \t]/, 1)[0];
  // the language becomes a class name: letters, digits and _+- only, so it can say nothing else
  return { char, size, indent: width, lang: word.replace(/[^A-Za-z0-9_+-]/g, "").slice(0, 32) };
}

function closesFence(line: string, fence: Fence): boolean {
  const { width, index } = indentOf(line);
  if (width > 3) return false;
  let end = index;
  while (line[end] === fence.char) end++;
  return end - index >= fence.size && line.slice(end).trim() === "";
}

function headingOf(line: string): { level: number; text: string } | null {
  const { width, index } = indentOf(line);
  if (width > 3) return null;
  let end = index;
  while (line[end] === "#") end++;
  const level = end - index;
  if (level < 1 || level > 6) return null;
  if (end < line.length && line[end] !== " " && line[end] !== "\t") return null;
  let text = line.slice(end).trim();
  // a closing run of #s is decoration; trimmed by hand, since /\s+#+\s*$/ backtracks on long runs of spaces
  let j = text.length;
  while (j > 0 && text[j - 1] === "#") j--;
  if (j === 0) text = "";
  else if (j < text.length && (text[j - 1] === " " || text[j - 1] === "\t")) {
    text = text.slice(0, j).trimEnd();
  }
  return { level, text };
}

function isRule(line: string): boolean {
  const { width, index } = indentOf(line);
  if (width > 3) return false;
  const c = line[index];
  if (c !== "-" && c !== "*" && c !== "_") return false;
  let count = 0;
  for (let k = index; k < line.length; k++) {
    if (line[k] === c) count++;
    else if (line[k] !== " " && line[k] !== "\t") return false;
  }
  return count >= 3;
}

function isQuote(line: string): boolean {
  const { width, index } = indentOf(line);
  return width <= 3 && line[index] === ">";
}

function unquoted(line: string): string {
  const rest = line.slice(indentOf(line).index + 1);
  return rest[0] === " " || rest[0] === "\t" ? rest.slice(1) : rest;
}

interface Marker {
  ordered: boolean;
  start: number;
  /** the marker's own indent */
  indent: number;
  /** the column the item's content starts at: lines indented this far belong to the item */
  content: number;
  rest: string;
}

function markerOf(line: string): Marker | null {
  const { width, index } = indentOf(line);
  let k = index;
  let ordered = false;
  let start = 1;
  const c = line[k];
  if (c === "-" || c === "*" || c === "+") k++;
  else {
    while (k < line.length && k - index < 9 && line[k] >= "0" && line[k] <= "9") k++;
    if (k === index || (line[k] !== "." && line[k] !== ")")) return null;
    ordered = true;
    start = Number(line.slice(index, k));
    k++;
  }
  if (k < line.length && line[k] !== " " && line[k] !== "\t") return null;
  let spaces = 0;
  while (spaces < 5 && line[k + spaces] === " ") spaces++;
  const rest = line.slice(k).trim();
  // five spaces after the marker would be indented code in CommonMark: the content then starts after one
  const gap = spaces === 0 || spaces >= 5 || rest === "" ? 1 : spaces;
  return { ordered, start, indent: width, content: width + (k - index) + gap, rest };
}

/** A list item that may cut a paragraph short: not empty, and an ordered one only from 1 ("1986. was" is prose). */
function interrupts(line: string): boolean {
  const m = markerOf(line);
  return m !== null && m.indent <= 3 && m.rest !== "" && (!m.ordered || m.start === 1);
}

function startsBlock(line: string): boolean {
  return fenceOf(line) !== null || headingOf(line) !== null || isRule(line) || isQuote(line) ||
    interrupts(line);
}

/** A table row's cells: split on pipes that no backslash escapes; an escaped pipe is a pipe in the cell. */
function cellsOf(line: string): string[] {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  const cells: string[] = [];
  let from = 0;
  for (let k = 0; k < s.length; k++) {
    if (s[k] === "\\") k++;
    else if (s[k] === "|") {
      cells.push(s.slice(from, k));
      from = k + 1;
    }
  }
  cells.push(s.slice(from));
  return cells.map((cell) => cell.trim().replaceAll("\\|", "|"));
}

function alignsOf(line: string): Align[] | null {
  if (!line.includes("|") || !line.includes("-")) return null;
  const aligns: Align[] = [];
  for (const cell of cellsOf(line)) {
    const left = cell.startsWith(":");
    const right = cell.endsWith(":") && cell.length > 1;
    const dashes = cell.slice(left ? 1 : 0, right ? -1 : undefined);
    if (dashes === "" || dashes.replaceAll("-", "") !== "") return null;
    aligns.push(left && right ? "center" : right ? "right" : left ? "left" : null);
  }
  return aligns;
}

/** A table starts where a row with pipes sits on a separator row with as many cells. */
/**
 * A table's bounds: every row is padded to the head's width, so a hostile head of thousands of columns over
 * thousands of rows would cost columns x rows cells (the attacker audit drew 54 MB of HTML from 14 KB of text).
 * A wider head is not a table; rows past the bound are read as text.
 */
const MAX_TABLE_COLUMNS = 64;
const MAX_TABLE_ROWS = 1_000;

function tableAt(lines: string[], i: number): { head: string[]; align: Align[] } | null {
  if (i + 1 >= lines.length || !lines[i].includes("|")) return null;
  if (lines[i].split("|").length > MAX_TABLE_COLUMNS + 2) return null;
  const align = alignsOf(lines[i + 1]);
  if (!align) return null;
  const head = cellsOf(lines[i]);
  return head.length === align.length ? { head, align } : null;
}

function parseBlocks(lines: string[], depth: number): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = fenceOf(line);
    if (fence) {
      const body: string[] = [];
      for (i++; i < lines.length && !closesFence(lines[i], fence); i++) {
        body.push(dedent(lines[i], fence.indent));
      }
      i++; // the closing fence; a fence never closed runs to the end, as CommonMark has it
      blocks.push({ kind: "code", lang: fence.lang, text: body.join("\n") });
      continue;
    }
    const heading = headingOf(line);
    if (heading) {
      blocks.push({ kind: "h", ...heading });
      i++;
      continue;
    }
    // before lists: "* * *" is a rule, not an item
    if (isRule(line)) {
      blocks.push({ kind: "hr" });
      i++;
      continue;
    }
    if (depth < MAX_BLOCK_DEPTH && isQuote(line)) {
      const inner: string[] = [];
      while (i < lines.length) {
        const l = lines[i];
        if (isQuote(l)) inner.push(unquoted(l));
        // a lazy line: a paragraph inside the quote goes on without its ">"
        else if (!isBlank(l) && inner.length > 0 && !isBlank(inner[inner.length - 1]) && !startsBlock(l)) {
          inner.push(l);
        } else break;
        i++;
      }
      blocks.push({ kind: "quote", blocks: parseBlocks(inner, depth + 1) });
      continue;
    }
    const first = depth < MAX_BLOCK_DEPTH ? markerOf(line) : null;
    if (first && first.indent <= 3) {
      const list: Block & { kind: "list" } = {
        kind: "list",
        ordered: first.ordered,
        start: first.start,
        loose: false,
        items: [],
      };
      let m: Marker | null = first;
      while (m && m.ordered === list.ordered) {
        const body = [m.rest];
        i++;
        while (i < lines.length) {
          const l = lines[i];
          if (isBlank(l)) {
            let j = i + 1;
            while (j < lines.length && isBlank(lines[j])) j++;
            if (j < lines.length && indentOf(lines[j]).width >= m.content) {
              for (; i < j; i++) body.push("");
              list.loose = true;
              continue;
            }
            const next = j < lines.length ? markerOf(lines[j]) : null;
            if (next && next.ordered === list.ordered && next.indent < m.content) {
              list.loose = true;
              i = j;
            }
            break;
          }
          const width = indentOf(l).width;
          const nested = markerOf(l);
          // a marker indented past this item's marker nests, even short of the content column: agents put
          // "  - sub" under "1. item", which CommonMark would make a new list
          if (width >= m.content || (nested && width >= m.indent + 2)) body.push(dedent(l, m.content));
          else if (nested || startsBlock(l) || tableAt(lines, i)) break;
          else body.push(l.trim()); // a lazy continuation of the item's paragraph
          i++;
        }
        list.items.push(parseBlocks(body, depth + 1));
        m = i < lines.length && !isBlank(lines[i]) ? markerOf(lines[i]) : null;
        if (m && m.indent > 3) m = null;
      }
      blocks.push(list);
      continue;
    }
    const table = tableAt(lines, i);
    if (table) {
      const rows: string[][] = [];
      for (
        i += 2;
        i < lines.length && lines[i].includes("|") && !isBlank(lines[i]) && !startsBlock(lines[i]) &&
        rows.length < MAX_TABLE_ROWS;
        i++
      ) {
        const cells = cellsOf(lines[i]);
        rows.push(table.head.map((_, k) => cells[k] ?? ""));
      }
      blocks.push({ kind: "table", align: table.align, head: table.head, rows });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length) {
      const l = lines[i];
      if (isBlank(l) || (para.length > 0 && (startsBlock(l) || tableAt(lines, i)))) break;
      para.push(l.trim());
      i++;
    }
    blocks.push({ kind: "p", text: para.join("\n") });
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------------------------
// Inline runs

/** Facts about one inline text, found in linear passes before any element is made. */
interface Scan {
  text: string;
  /** per character: 1 when a backslash escapes it, 2 inside a code span */
  flags: Uint8Array;
  /** a code span's end (exclusive) by the index of its first backtick */
  codeEnd: Map<number, number>;
  /** the matching "]" by the index of its "[" */
  bracketEnd: Map<number, number>;
  /** where a run that can close single emphasis starts, by delimiter, ascending */
  single: Record<string, number[]>;
  /** runs that can close double emphasis (or ~~strike~~), by delimiter, ascending */
  double: Record<string, { starts: number[]; sizes: number[] }>;
}

function isSpace(c: string): boolean {
  return /\s/.test(c);
}

function isPunct(c: string): boolean {
  return /[\p{P}\p{S}]/u.test(c);
}

function isAsciiPunct(c: string): boolean {
  return /[!-/:-@[-`{-~]/.test(c);
}

function isWordChar(c: string): boolean {
  return /[\p{L}\p{N}]/u.test(c);
}

/** CommonMark's flanking rules, which keep `2 * 3 * 4` and `snake_case_name` from turning into emphasis. */
function flanking(text: string, start: number, end: number, c: string): { opens: boolean; closes: boolean } {
  const before = start > 0 ? text[start - 1] : " ";
  const after = end < text.length ? text[end] : " ";
  const left = !isSpace(after) && (!isPunct(after) || isSpace(before) || isPunct(before));
  const right = !isSpace(before) && (!isPunct(before) || isSpace(after) || isPunct(after));
  if (c === "_") {
    return { opens: left && (!right || isPunct(before)), closes: right && (!left || isPunct(after)) };
  }
  return { opens: left, closes: right };
}

function scanOf(text: string): Scan {
  const n = text.length;
  const flags = new Uint8Array(n);
  const codeEnd = new Map<number, number>();
  // every backtick run by its length: a code span's closer is then found in one forward sweep per length, where
  // searching the rest of the text from each opener would be quadratic on a line of lone backticks
  const ticks = new Map<number, number[]>();
  for (let i = 0; i < n;) {
    if (text[i] !== "`") {
      i++;
      continue;
    }
    let e = i;
    while (e < n && text[e] === "`") e++;
    const list = ticks.get(e - i);
    if (list) list.push(i);
    else ticks.set(e - i, [i]);
    i = e;
  }
  const cursor = new Map<number, number>();
  for (let i = 0; i < n;) {
    const c = text[i];
    if (c === "\\" && i + 1 < n && isAsciiPunct(text[i + 1])) {
      flags[i + 1] = 1;
      i += 2;
      continue;
    }
    if (c !== "`") {
      i++;
      continue;
    }
    let e = i;
    while (e < n && text[e] === "`") e++;
    const size = e - i;
    const list = ticks.get(size) ?? [];
    let k = cursor.get(size) ?? 0;
    while (k < list.length && list[k] < e) k++;
    cursor.set(size, k);
    if (k < list.length) {
      codeEnd.set(i, list[k] + size);
      flags.fill(2, i, list[k] + size);
      i = list[k] + size;
    } else i = e;
  }

  const bracketEnd = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < n; i++) {
    if (flags[i] !== 0) continue;
    if (text[i] === "[") open.push(i);
    else if (text[i] === "]" && open.length > 0) bracketEnd.set(open.pop()!, i);
  }

  const single: Record<string, number[]> = { "*": [], "_": [] };
  const double: Record<string, { starts: number[]; sizes: number[] }> = {
    "*": { starts: [], sizes: [] },
    "_": { starts: [], sizes: [] },
    "~": { starts: [], sizes: [] },
  };
  for (let i = 0; i < n;) {
    const c = text[i];
    if ((c !== "*" && c !== "_" && c !== "~") || flags[i] !== 0) {
      i++;
      continue;
    }
    let e = i;
    while (e < n && text[e] === c && flags[e] === 0) e++;
    const size = e - i;
    if (flanking(text, i, e, c).closes) {
      // "~~" strikes; a run of 3+ stars can close both: its first char the inner <em>, its last two the <strong>
      if (c === "~" ? size === 2 : size >= 2) {
        double[c].starts.push(i);
        double[c].sizes.push(size);
      }
      if (c !== "~" && size !== 2) single[c].push(i);
    }
    i = e;
  }
  return { text, flags, codeEnd, bracketEnd, single, double };
}

/** The first index of `sorted` holding a value >= `x`. */
function lowerBound(sorted: number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where single emphasis opened before `from` closes, before `end`; -1 when it does not. */
function singleCloser(starts: number[], from: number, end: number): number {
  const pos = starts[lowerBound(starts, from)];
  return pos !== undefined && pos + 1 <= end ? pos : -1;
}

/** Where double emphasis opened by a run of `openSize` closes: a run of 3+ closing a run of 3+ gives its tail. */
function doubleCloser(
  runs: { starts: number[]; sizes: number[] },
  from: number,
  end: number,
  openSize: number,
) {
  const k = lowerBound(runs.starts, from);
  if (k >= runs.starts.length) return -1;
  const size = runs.sizes[k];
  const pos = openSize >= 3 && size >= 3 ? runs.starts[k] + size - 2 : runs.starts[k];
  return pos + 2 <= end ? pos : -1;
}

/** The href a link may carry: http and https only, and only a URL the browser would parse the same way. */
function safeHref(url: string): string | null {
  const u = url.trim();
  if (!/^https?:\/\//i.test(u)) return null;
  try {
    const parsed = new URL(u);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? u : null;
  } catch (err) {
    if (err instanceof TypeError) return null;
    throw err;
  }
}

/** Appends a link to `url` labelled `label`, or the label alone when the URL may not be an href. */
function appendLink(out: Node[], url: string, label: Node[]): void {
  const href = safeHref(url);
  if (href) out.push(<a href={href} rel="noopener noreferrer" target="_blank">{label}</a>);
  else append(out, label);
}

/**
 * A link's `(destination "title")` from `p` (just past the "(") up to `end`: the URL and where the link ends.
 * Each scan stops at whitespace, at a quote's match or past 32 nested parentheses, so failed attempts on hostile
 * text cost a bounded amount each.
 */
function destinationAt(text: string, p: number, end: number): { url: string; after: number } | null {
  const skip = (k: number) => {
    while (k < end && (text[k] === " " || text[k] === "\t" || text[k] === "\n")) k++;
    return k;
  };
  p = skip(p);
  let url: string;
  if (text[p] === "<") {
    let q = p + 1;
    while (q < end && text[q] !== ">" && text[q] !== "<" && text[q] !== "\n") q++;
    if (text[q] !== ">" || q >= end) return null;
    url = text.slice(p + 1, q);
    p = q + 1;
  } else {
    let depth = 0;
    let q = p;
    for (; q < end; q++) {
      const c = text[q];
      if (c === " " || c === "\t" || c === "\n") break;
      if (c === "\\") q++;
      else if (c === "(") {
        if (++depth > 32) return null;
      } else if (c === ")") {
        if (depth === 0) break;
        depth--;
      }
    }
    url = text.slice(p, Math.min(q, end)).replace(/\\([!-/:-@[-`{-~])/g, "$1");
    p = q;
  }
  p = skip(p);
  const quote = text[p];
  if (quote === '"' || quote === "'" || quote === "(") {
    const close = quote === "(" ? ")" : quote;
    // bounded, as the destination is: an unclosed title must not scan to the end once per opener
    const limit = Math.min(end, p + 1 + MAX_TITLE);
    let q = p + 1;
    while (q < limit && text[q] !== close) q += text[q] === "\\" ? 2 : 1;
    if (q >= limit) return null;
    p = skip(q + 1);
  }
  return p < end && text[p] === ")" ? { url, after: p + 1 } : null;
}

/** Where a bare http(s) URL starting at `i` ends, without the sentence's trailing punctuation; -1 if none. */
function autolinkEnd(text: string, i: number, end: number): number {
  const head = text.slice(i, i + 8).toLowerCase();
  const prefix = head.startsWith("https://") ? 8 : head.startsWith("http://") ? 7 : 0;
  if (prefix === 0) return -1;
  let e = i + prefix;
  let opens = 0;
  let closes = 0;
  for (; e < end && text[e] !== "<" && !isSpace(text[e]); e++) {
    if (text[e] === "(") opens++;
    else if (text[e] === ")") closes++;
  }
  // "(see https://x.org/a)." — the ")" and "." belong to the sentence; a ")" the URL opened stays (GFM's rule)
  while (e > i + prefix) {
    const last = text[e - 1];
    if ("?!.,:;*_~'\"".includes(last)) e--;
    else if (last === ")" && closes > opens) {
      closes--;
      e--;
    } else break;
  }
  return e > i + prefix ? e : -1;
}

function codeSpan(text: string, from: number, to: number, ctx: Ctx): VNode {
  let size = 0;
  while (text[from + size] === "`") size++;
  let body = text.slice(from + size, to - size).replaceAll("\n", " ");
  // one space either side lets a span hold a backtick at its edge: "`` `x` ``"
  if (body.length > 2 && body.startsWith(" ") && body.endsWith(" ") && body.trim() !== "") {
    body = body.slice(1, -1);
  }
  return <code>{marked(body, ctx)}</code>;
}

/** The elements of `s.text` from `start` to `end`; `inLink` stops links (and autolinks) nesting in a link's text. */
function inline(s: Scan, ctx: Ctx, start: number, end: number, depth: number, inLink: boolean): Node[] {
  const { text, flags } = s;
  const out: Node[] = [];
  let buf = "";
  const flush = () => {
    if (buf) append(out, broken(buf, ctx));
    buf = "";
  };
  let i = start;
  while (i < end) {
    const c = text[i];
    if (c === "\\" && i + 1 < end && flags[i + 1] === 1) {
      buf += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      const close = s.codeEnd.get(i);
      if (close !== undefined && close <= end) {
        flush();
        out.push(codeSpan(text, i, close, ctx));
        i = close;
        continue;
      }
      // an unclosed run is literal, whole: "``x`" is not a span either
      let e = i;
      while (e < end && text[e] === "`") e++;
      buf += text.slice(i, e);
      i = e;
      continue;
    }
    const image = c === "!" && text[i + 1] === "[";
    if ((c === "[" || image) && !inLink && depth < MAX_INLINE_DEPTH && flags[image ? i + 1 : i] === 0) {
      const open = image ? i + 1 : i;
      const close = s.bracketEnd.get(open);
      const dest = close !== undefined && close + 1 < end && text[close + 1] === "("
        ? destinationAt(text, close + 2, end)
        : null;
      if (close !== undefined && dest) {
        flush();
        let label = inline(s, ctx, open + 1, close, depth + 1, true);
        // an image is a link to it: the page's CSP would block a remote <img>, and an alt text says what it is
        if (image && label.length === 0) label = marked(dest.url, ctx);
        appendLink(out, dest.url, label);
        i = dest.after;
        continue;
      }
    }
    if ((c === "*" || c === "_" || c === "~") && flags[i] === 0) {
      let e = i;
      while (e < end && text[e] === c && flags[e] === 0) e++;
      const size = e - i;
      if (depth < MAX_INLINE_DEPTH && flanking(text, i, e, c).opens) {
        if (c === "~") {
          const close = size === 2 ? doubleCloser(s.double[c], i + 3, end, 2) : -1;
          if (close >= 0) {
            flush();
            out.push(<del>{inline(s, ctx, i + 2, close, depth + 1, inLink)}</del>);
            i = close + 2;
            continue;
          }
        } else {
          const close = size >= 2 ? doubleCloser(s.double[c], i + 3, end, size) : -1;
          if (close >= 0) {
            flush();
            out.push(<strong>{inline(s, ctx, i + 2, close, depth + 1, inLink)}</strong>);
            i = close + 2;
            continue;
          }
          // the run's last char may still open single emphasis: "**a*" reads "*" and <em>a</em>
          const opener = e - 1;
          const closeOne = singleCloser(s.single[c], opener + 2, end);
          if (closeOne >= 0) {
            buf += text.slice(i, opener);
            flush();
            out.push(<em>{inline(s, ctx, opener + 1, closeOne, depth + 1, inLink)}</em>);
            i = closeOne + 1;
            continue;
          }
        }
      }
      buf += text.slice(i, e);
      i = e;
      continue;
    }
    if ((c === "h" || c === "H") && !inLink && !isWordChar(text[i - 1] ?? " ")) {
      const e = autolinkEnd(text, i, end);
      if (e > i) {
        flush();
        const url = text.slice(i, e);
        appendLink(out, url, marked(url, ctx));
        i = e;
        continue;
      }
    }
    if (c === "<" && !inLink && autolinkEnd(text, i + 1, end) > 0) {
      let e = i + 1;
      while (e < end && text[e] !== ">" && text[e] !== "<" && !isSpace(text[e])) e++;
      if (e < end && text[e] === ">") {
        flush();
        const url = text.slice(i + 1, e);
        appendLink(out, url, marked(url, ctx));
        i = e + 1;
        continue;
      }
    }
    buf += c;
    i++;
  }
  flush();
  return out;
}

function inlineOf(text: string, ctx: Ctx): Node[] {
  return inline(scanOf(text), ctx, 0, text.length, 0, false);
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering

const ALIGN_CLASS: Record<string, string> = { center: "ac", right: "ar" };

/** The page owns h1 to h3: "#" and "##" (the agents' sections) are h4, "###" h5, deeper h6. */
function headingTag(level: number): "h4" | "h5" | "h6" {
  return level <= 2 ? "h4" : level === 3 ? "h5" : "h6";
}

/** Blocks as elements, built eagerly in document order, so the first mark made is the first one shown. */
function renderBlocks(blocks: Block[], ctx: Ctx, tight: boolean): Node[] {
  const out: Node[] = [];
  for (const block of blocks) {
    switch (block.kind) {
      case "p":
        // a tight list's item is its text, without a <p> of its own
        if (tight) append(out, inlineOf(block.text, ctx));
        else out.push(<p>{inlineOf(block.text, ctx)}</p>);
        break;
      case "h": {
        const Tag = headingTag(block.level);
        out.push(<Tag>{inlineOf(block.text, ctx)}</Tag>);
        break;
      }
      case "code":
        out.push(
          <pre>
            <code class={block.lang ? `lang-${block.lang}` : undefined}>{marked(block.text, ctx)}</code>
          </pre>,
        );
        break;
      case "quote":
        out.push(<blockquote>{renderBlocks(block.blocks, ctx, false)}</blockquote>);
        break;
      case "list": {
        const items = block.items.map((item, k) => <li key={k}>{renderBlocks(item, ctx, !block.loose)}</li>);
        out.push(
          block.ordered
            ? <ol start={block.start === 1 ? undefined : block.start}>{items}</ol>
            : <ul>{items}</ul>,
        );
        break;
      }
      case "hr":
        out.push(<hr />);
        break;
      case "table": {
        const head = block.head.map((cell, k) => (
          <th key={k} class={ALIGN_CLASS[block.align[k] ?? ""]}>{inlineOf(cell, ctx)}</th>
        ));
        const rows = block.rows.map((row, r) => (
          <tr key={r}>
            {row.map((cell, k) => (
              <td key={k} class={ALIGN_CLASS[block.align[k] ?? ""]}>{inlineOf(cell, ctx)}</td>
            ))}
          </tr>
        ));
        out.push(
          <table>
            <thead>
              <tr>{head}</tr>
            </thead>
            {rows.length > 0 && <tbody>{rows}</tbody>}
          </table>,
        );
        break;
      }
    }
  }
  return out;
}

/**
 * An assistant's Markdown text as elements in a `<div class="md">`: paragraphs, headings (as h4 to h6), fenced
 * code, inline code, bold, italic, strike, lists (nested), quotes, rules, GFM tables, links and bare http(s)
 * URLs. Any HTML in the text shows as text; a link or image whose URL is not http(s) shows its text only; an
 * image is a link, never an `<img>`. With `highlight`, every case-insensitive occurrence in the shown text (not in
 * URLs) is marked; with `hitId` too, the first mark gets id="hit" (ask for it on one element of the page only).
 */
export function Markdown(props: { text: string; highlight?: string | null; hitId?: boolean }): VNode {
  const ctx = contextOf(props.highlight, props.hitId);
  const blocks = parseBlocks(props.text.replace(/\r\n?/g, "\n").split("\n"), 0);
  return <div class="md">{renderBlocks(blocks, ctx, false)}</div>;
}
