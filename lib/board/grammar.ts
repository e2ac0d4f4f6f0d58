/**
 * The card grammar: a card's one line is `TITLE #project #agent #dropped`. Pure: strings in, strings out.
 *
 * A card's tags are the TRAILING run of `#word` tokens, each after whitespace (or at the very start): in
 * `Fix C# parsing #123 in the title #webapp` only `webapp` is a tag, because `title` ends the run. A word is
 * letters, digits, `_`, `-` and `/` with at least one character that is not a digit (Obsidian's rule), so an
 * issue number at the end of a title (`Fix issue #123`) stays in the title.
 *
 * Every rewrite touches only the trailing tag run: the title, the spacing inside it, the separators before the
 * other tags and any trailing whitespace are kept exactly, so a title retyped by hand survives a tag change.
 * Tags match without regard to case (as Obsidian's do) and are kept as written. A card's id (`^id` in a Markdown
 * file) is the backend's business: the names here never carry one.
 *
 * A title whose own last word looks like a tag would be read back as a tag, so composing a name escapes it once
 * (`\#word`, which Markdown and Obsidian show as `#word`, not a tag) and parsing unescapes it once: the title
 * read back is exactly the title written, however many times the pair runs.
 * @module
 */

/** The tag a card wears while its session is gone (rule 3 of the planner). */
export const DROPPED_TAG = "dropped";

/** A card's line, read: its title (unescaped once) and its tags in order, as written (without `#`). */
export interface CardLine {
  title: string;
  tags: string[];
}

/** A tag's word: letters, digits, `_`, `-`, `/`, at least one of them not a digit. */
const TAG_WORD = /^(?=[\p{L}\p{N}_/-]*[\p{L}_/-])[\p{L}\p{N}_/-]+$/u;
/** The last word of a title that would read as a tag, escaped or not (`#word`, `\#word`, `\\#word`, ...). */
const TAG_LIKE_LAST = /(^|\s)(\\*)#((?=[\p{L}\p{N}_/-]*[\p{L}_/-])[\p{L}\p{N}_/-]+)$/u;

/** One tag of the trailing run: the whitespace before it (empty only at the start of the line) and its word. */
interface RunTag {
  sep: string;
  word: string;
}

/** A card's line cut in three: everything before the tag run, the run, and the whitespace after it. */
interface Split {
  head: string;
  run: RunTag[];
  tail: string;
}

function isSpace(ch: string): boolean {
  return ch === " " || ch === "\t";
}

/** True when `word` (without `#`) is a valid tag. */
export function isTagWord(word: string): boolean {
  return TAG_WORD.test(word);
}

function split(name: string): Split {
  let end = name.length;
  while (end > 0 && isSpace(name[end - 1])) end--;
  const tail = name.slice(end);
  const run: RunTag[] = [];
  let pos = end;
  while (pos > 0) {
    let start = pos;
    while (start > 0 && !isSpace(name[start - 1])) start--;
    const token = name.slice(start, pos);
    if (!token.startsWith("#") || !isTagWord(token.slice(1))) break;
    let sepStart = start;
    while (sepStart > 0 && isSpace(name[sepStart - 1])) sepStart--;
    run.push({ sep: name.slice(sepStart, start), word: token.slice(1) });
    pos = sepStart;
  }
  return { head: name.slice(0, pos), run: run.reverse(), tail };
}

function join(parts: Split): string {
  return parts.head + parts.run.map((t) => `${t.sep}#${t.word}`).join("") + parts.tail;
}

/** `\#word` at the end of a title becomes `#word` (one backslash less): the one unescape on the way out. */
function unescapeTitle(head: string): string {
  const title = head.trim();
  const m = title.match(TAG_LIKE_LAST);
  if (!m || m[2].length === 0) return title;
  const at = title.length - m[0].length + m[1].length;
  return title.slice(0, at) + m[2].slice(1) + title.slice(at + m[2].length);
}

/** A title whose last word reads as a tag gets one more backslash before its `#`: the one escape on the way in. */
function escapeTitle(title: string): string {
  const m = title.match(TAG_LIKE_LAST);
  if (!m) return title;
  const at = title.length - m[0].length + m[1].length;
  return `${title.slice(0, at)}\\${title.slice(at)}`;
}

/** A card's line read as `{title, tags}`. */
export function parseCard(name: string): CardLine {
  const parts = split(name);
  return { title: unescapeTitle(parts.head), tags: parts.run.map((t) => t.word) };
}

/** True when the card wears `tag` (any case). */
export function hasTag(name: string, tag: string): boolean {
  const want = tag.toLowerCase();
  return split(name).run.some((t) => t.word.toLowerCase() === want);
}

function checkTag(tag: string): void {
  if (!isTagWord(tag)) throw new Error(`"${tag}" cannot be a card tag (letters, digits, _, - and / only)`);
}

/** A new card's line: the title (escaped once) and the tags after it, one space each. */
export function cardName(title: string, tags: readonly string[]): string {
  tags.forEach(checkTag);
  const head = escapeTitle(title.trim());
  const run = tags.map((word, i) => ({ sep: i === 0 && head === "" ? "" : " ", word }));
  return join({ head, run, tail: "" });
}

/** The card's line with `tag` added at the end of its tag run; unchanged when it already wears it. */
export function withTag(name: string, tag: string): string {
  checkTag(tag);
  if (hasTag(name, tag)) return name;
  const parts = split(name);
  const sep = parts.head === "" && parts.run.length === 0 ? "" : " ";
  parts.run.push({ sep, word: tag });
  return join(parts);
}

/** Removes the run's tags at `drop` (indexes), keeping the separator between the title and the run. */
function removeAt(parts: Split, drop: (t: RunTag, i: number) => boolean): Split {
  const run: RunTag[] = [];
  let pendingSep: string | null = null;
  parts.run.forEach((t, i) => {
    if (drop(t, i)) {
      // the first tag's separator is the title's own spacing: the tag after it inherits it
      if (run.length === 0 && pendingSep === null) pendingSep = t.sep;
      return;
    }
    run.push(pendingSep !== null && run.length === 0 ? { sep: pendingSep, word: t.word } : t);
    pendingSep = null;
  });
  return { ...parts, run };
}

/** The card's line without `tag` (every occurrence in the run, any case); unchanged when it does not wear it. */
export function withoutTag(name: string, tag: string): string {
  const want = tag.toLowerCase();
  if (!hasTag(name, tag)) return name;
  return join(removeAt(split(name), (t) => t.word.toLowerCase() === want));
}

/**
 * The card's line wearing exactly one tag of `family` (the agents' tags, say): `tag`. The first tag of the family
 * is replaced in place, any other one removed; with none, `tag` is added at the end of the run.
 */
export function withTagOf(name: string, family: readonly string[], tag: string): string {
  checkTag(tag);
  const members = new Set([...family, tag].map((t) => t.toLowerCase()));
  const parts = split(name);
  const first = parts.run.findIndex((t) => members.has(t.word.toLowerCase()));
  if (first < 0) return withTag(name, tag);
  const kept = removeAt(parts, (t, i) => i > first && members.has(t.word.toLowerCase()));
  if (parts.run[first].word.toLowerCase() !== tag.toLowerCase()) {
    kept.run = kept.run.map((t, i) => i === first ? { sep: t.sep, word: tag } : t);
  }
  return join(kept);
}

/** The card's line with its title replaced (escaped once); its tag run and trailing whitespace kept. */
export function withTitle(name: string, title: string): string {
  const parts = split(name);
  const head = escapeTitle(title.trim());
  const run = parts.run.slice();
  if (run.length > 0 && head !== "" && run[0].sep === "") run[0] = { sep: " ", word: run[0].word };
  if (run.length > 0 && head === "") run[0] = { sep: "", word: run[0].word };
  return join({ head, run, tail: parts.tail });
}

/**
 * A project's tag: the name folded to plain letters (accents dropped: `Café` -> `cafe`), lowercased, every run
 * of characters other than `a-z`, `0-9`, `_`, `-` made one `-`, and `-` trimmed from both ends. A slug of digits
 * only would not read as a tag, so it gets `p-` before it (`2024` -> `p-2024`). Nothing left (`"✨"`, `""`):
 * null, and the card has no project tag.
 */
export function projectTag(project: string): string | null {
  const slug = project.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "");
  if (slug === "") return null;
  return /^[0-9]+$/.test(slug) ? `p-${slug}` : slug;
}
