/**
 * Line diffs for the transcript's edits: `lineDiff` compares two texts (pure), `Diff` draws it with the unchanged
 * stretches folded, and `Patch` draws a patch an agent already wrote (unified diff or apply_patch's
 * `*** Begin Patch`). Every line is text for Preact to escape. Browser-safe: it imports only from preact; the CSS is
 * `TRANSCRIPT_CSS` in markdown.tsx.
 * @module
 */
import type { VNode } from "preact";

/** One line of a line diff: kept (" "), removed ("-") or added ("+"). */
export interface DiffLine {
  op: " " | "-" | "+";
  text: string;
}

/** The most cells the LCS table may have (2,000 × 2,000 lines, 8 MB): past it a diff is all "-" then all "+". */
const MAX_CELLS = 2_000 * 2_000;
/** Unchanged lines kept either side of a change. */
const CONTEXT = 3;

/** A text's lines; a final newline ends the last line rather than starting an empty one. */
function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The changed middle by longest common subsequence, or all removals then all additions when it is too big. */
function middleDiff(a: string[], b: string[], out: DiffLine[]): void {
  const m = a.length;
  const n = b.length;
  if (m * n > MAX_CELLS) {
    for (const text of a) out.push({ op: "-", text });
    for (const text of b) out.push({ op: "+", text });
    return;
  }
  // lines as numbers: the table compares each pair once, and numbers compare in constant time
  const ids = new Map<string, number>();
  const idOf = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, id = ids.size);
    return id;
  };
  const x = a.map(idOf);
  const y = b.map(idOf);
  // lcs[i * w + j]: the longest common subsequence of a[i..] and b[j..]; it never exceeds min(m, n) <= 2,000,
  // so 16 bits hold it
  const w = n + 1;
  const lcs = new Uint16Array((m + 1) * w);
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      lcs[i * w + j] = x[i] === y[j]
        ? lcs[(i + 1) * w + j + 1] + 1
        : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  while (i < m && j < n) {
    if (x[i] === y[j]) {
      out.push({ op: " ", text: a[i++] });
      j++;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) out.push({ op: "-", text: a[i++] }); // removals first
    else out.push({ op: "+", text: b[j++] });
  }
  while (i < m) out.push({ op: "-", text: a[i++] });
  while (j < n) out.push({ op: "+", text: b[j++] });
}

/**
 * The line diff from `before` to `after`: the common first and last lines are kept as they are, and the middle
 * is a longest-common-subsequence diff, removals before additions at each change. A middle past 2,000 × 2,000
 * lines is all removals then all additions, so a huge rewrite costs no more than its length.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = linesOf(before);
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  const out: DiffLine[] = [];
  for (let k = 0; k < head; k++) out.push({ op: " ", text: a[k] });
  middleDiff(a.slice(head, a.length - tail), b.slice(head, b.length - tail), out);
  for (let k = a.length - tail; k < a.length; k++) out.push({ op: " ", text: a[k] });
  return out;
}

const CLASS = { " ": "ctx", "-": "del", "+": "add" } as const;

/**
 * `before` against `after` as a `<pre class="diff">`, a span a line ("- ", "+ ", "  " before the text), with
 * three unchanged lines kept around each change and "… N unchanged lines" for the rest.
 */
export function Diff(props: { before: string; after: string }): VNode {
  const lines = lineDiff(props.before, props.after);
  const keep = new Uint8Array(lines.length);
  lines.forEach((line, k) => {
    if (line.op !== " ") keep.fill(1, Math.max(0, k - CONTEXT), k + CONTEXT + 1);
  });
  const rows: VNode[] = [];
  for (let k = 0; k < lines.length;) {
    let run = k;
    while (run < lines.length && !keep[run]) run++;
    // a fold of one line would take the room of the line itself: fold two or more only
    if (run - k >= 2) {
      rows.push(<span class="skip">{`… ${run - k} unchanged lines`}</span>);
      k = run;
      continue;
    }
    const line = lines[k++];
    rows.push(<span class={CLASS[line.op]}>{`${line.op} ${line.text}`}</span>);
  }
  return <pre class="diff">{rows}</pre>;
}

/**
 * The class of a patch's line by its first character: "+" add, "-" del, "@" or "***" hunk (apply_patch's
 * `*** Update File:` and the like), anything else ctx. A unified diff's `diff --git` line and its `--- a/x`,
 * `+++ b/x` file header (the pair right before an `@@`) are hunk too: they name files, they remove and add nothing.
 */
function patchClass(lines: string[], k: number): "add" | "del" | "hunk" | "ctx" {
  const line = lines[k];
  if (line.startsWith("***") || line.startsWith("@") || line.startsWith("diff --git ")) return "hunk";
  if (line.startsWith("--- ") && lines[k + 1]?.startsWith("+++ ") && lines[k + 2]?.startsWith("@@")) {
    return "hunk";
  }
  if (line.startsWith("+++ ") && lines[k - 1]?.startsWith("--- ") && lines[k + 1]?.startsWith("@@")) {
    return "hunk";
  }
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "ctx";
}

/** An already-written patch (unified diff or `*** Begin Patch`) as a `<pre class="diff">`, a span a line. */
export function Patch(props: { patch: string }): VNode {
  const lines = linesOf(props.patch);
  // an empty line still takes a line's height: a block span with no text would collapse to nothing
  return (
    <pre class="diff">{lines.map((line, k) => <span key={k} class={patchClass(lines, k)}>{line || " "}</span>)}</pre>
  );
}
