/**
 * The Markdown board file read into lines, lists and cards, with where each card is: pure, no I/O. The format
 * (README "The board file") in short:
 *
 * - A list is a level-2 ATX heading whose text ends in `^id`, the id one of the three configured ones. Its
 *   section runs to the next heading of any level: what follows another heading is that heading's, never cards.
 * - A card is a top-level list item (`- `, `* ` or `+ ` at column 0) inside a list's section, whose line ends
 *   in an optional block id (`^id`, `[A-Za-z0-9-]+`, after whitespace). An item with neither text nor id is not
 *   a card (someone is typing it).
 * - The card's children are the indented lines after it (blank lines inside them too, when an indented line
 *   follows). Each is a prompt line: one level of indentation (the first child's) and a bullet stripped.
 * - Front matter (a `---` block closed by `---` or `...` at the top) and fenced code blocks hold no headings and
 *   no cards.
 *
 * Every line keeps its own ending (`\n`, `\r\n`, or none at the very end), so the edits in `markdown_edit.ts`
 * put back every line they do not touch byte for byte.
 * @module
 */
import { BoardUnusable, LIST_ROLES, type ListIds, type ListRole } from "./protocol.ts";

/** One line of the file: its text and its ending. */
export interface Line {
  text: string;
  eol: "" | "\n" | "\r\n";
}

/** A card as found in the file. */
export interface FoundCard {
  id: string | null;
  name: string;
  children: string[];
  /** The card's line (0-based). */
  line: number;
  /** The line after its last child (exclusive). */
  end: number;
  /** Where its name is on its line: [nameStart, nameEnd). */
  nameStart: number;
  nameEnd: number;
}

/** A list as found in the file. */
export interface FoundList {
  role: ListRole;
  id: string;
  /** Its heading's line (0-based). */
  heading: number;
  cards: FoundCard[];
}

/** The whole file, read. */
export interface ParsedBoard {
  lines: Line[];
  lists: Record<ListRole, FoundList>;
  /** The file's line ending (its first one; `\n` when it has none): what inserted lines end with. */
  eol: "\n" | "\r\n";
  /** How the file indents a card's children (the first child's indentation; two spaces when there is none). */
  childIndent: string;
  /** Every `^id` anywhere in the file (cards, lists, notes): a new id is none of these. */
  blockIds: Set<string>;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ITEM = /^[-*+][ \t]/;
const EMPTY_ITEM = /^[-*+][ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const ID_AT_END = /(?:^|[ \t])\^([A-Za-z0-9-]+)$/;
const CHILD_BULLET = /^[-*+](?:[ \t]|$)/;

/** The file's text cut into lines, each with its own ending. */
export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) {
      lines.push({ text: text.slice(at), eol: "" });
      break;
    }
    const crlf = nl > at && text[nl - 1] === "\r";
    lines.push({ text: text.slice(at, crlf ? nl - 1 : nl), eol: crlf ? "\r\n" : "\n" });
    at = nl + 1;
  }
  return lines;
}

/** The lines put back together. */
export function joinLines(lines: readonly Line[]): string {
  let out = "";
  for (const line of lines) out += line.text + line.eol;
  return out;
}

/** `text` without the spaces and tabs at its end (a loop: a regex anchored at the end is quadratic on a long
 * run of blanks in the middle of a 100 KB line). */
export function trimBlankEnd(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  return text.slice(0, end);
}

/** The heading's text: after its `#`s, without the blanks around it or an optional closing run of `#`s. */
function headingText(text: string, marks: string): string {
  let inner = trimBlankEnd(text.slice(text.indexOf(marks) + marks.length)).replace(/^[ \t]+/, "");
  if (/^#+$/.test(inner)) return "";
  const closing = inner.match(/[ \t]#+$/);
  if (closing) inner = trimBlankEnd(inner.slice(0, inner.length - closing[0].length));
  return inner;
}

function isBlank(text: string): boolean {
  return text.trim() === "";
}

function isIndented(text: string): boolean {
  return text.startsWith(" ") || text.startsWith("\t");
}

/** The line after the card at `line`'s last child: indented lines, and blank ones that lead to one. */
function cardEnd(lines: readonly Line[], line: number): number {
  let end = line + 1;
  let at = end;
  while (at < lines.length) {
    const text = lines[at].text;
    if (isBlank(text)) {
      at++;
      continue;
    }
    if (!isIndented(text)) break;
    at++;
    end = at;
  }
  return end;
}

/** The prompt lines of a card's children: one level of indentation and a bullet stripped, text kept. */
function promptLines(lines: readonly Line[], from: number, to: number): string[] {
  const first = lines.slice(from, to).find((l) => !isBlank(l.text));
  const indent = first ? first.text.match(/^[ \t]*/)![0] : "";
  return lines.slice(from, to).map(({ text }) => {
    const unindented = text.startsWith(indent) ? text.slice(indent.length) : text.replace(/^[ \t]+/, "");
    const bullet = unindented.match(CHILD_BULLET);
    return bullet ? unindented.slice(bullet[0].length) : unindented;
  });
}

/** The card at `line` (the item's text after its bullet), or null when it is an empty item. */
function readCard(lines: readonly Line[], line: number): FoundCard | null {
  const text = lines[line].text;
  const bullet = text.match(/^[-*+][ \t]+/)![0];
  const content = trimBlankEnd(text.slice(bullet.length));
  const id = content.match(ID_AT_END);
  const name = id ? trimBlankEnd(content.slice(0, content.length - id[0].length)) : content;
  if (!id && name === "") return null;
  const end = cardEnd(lines, line);
  return {
    id: id ? id[1] : null,
    name,
    children: promptLines(lines, line + 1, end),
    line,
    end,
    nameStart: bullet.length,
    nameEnd: bullet.length + name.length,
  };
}

/** Where the front matter ends (the line after its closing `---`), or 0 when there is none. */
function frontMatterEnd(lines: readonly Line[]): number {
  if (lines.length === 0 || lines[0].text.replace(/^\uFEFF/, "").trimEnd() !== "---") return 0;
  for (let i = 1; i < lines.length; i++) {
    const t = lines[i].text.trimEnd();
    if (t === "---" || t === "...") return i + 1;
  }
  return 0; // never closed: a thematic break, not front matter
}

/**
 * Reads the board file's text. Throws {@link BoardUnusable} (a sentence naming `where` and the line numbers)
 * when a list id is missing or twice, or a card id is used twice.
 */
export function parseBoard(text: string, ids: ListIds, where: string): ParsedBoard {
  const lines = splitLines(text);
  const roleOf = new Map<string, ListRole>(LIST_ROLES.map((role) => [ids[role], role]));
  const found = new Map<ListRole, FoundList>();
  const seen = new Map<string, number>(); // id -> its line (1-based), cards and lists
  // every block id anywhere (cards, lists, notes, code): a new id is none of them, so it never shadows one
  const blockIds = new Set<string>();
  for (const line of lines) {
    const blockId = trimBlankEnd(line.text).match(ID_AT_END);
    if (blockId) blockIds.add(blockId[1]);
  }
  const claim = (id: string, line: number, what: string) => {
    const before = seen.get(id);
    if (before !== undefined) {
      throw new BoardUnusable(
        `${where}: the id ^${id} is on line ${before} and on line ${
          line + 1
        } (${what}); ids must be unique, ` +
          `so asm writes nothing to the board until one of them is changed or removed`,
      );
    }
    seen.set(id, line + 1);
  };
  let childIndent: string | null = null;
  let section: FoundList | null = null;
  let fence: string | null = null;
  let i = frontMatterEnd(lines);
  while (i < lines.length) {
    const text = i === 0 ? lines[i].text.replace(/^\uFEFF/, "") : lines[i].text;
    if (fence !== null) {
      const close = text.match(FENCE);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length && text.trim() === close[1]) {
        fence = null;
      }
      i++;
      continue;
    }
    const open = text.match(FENCE);
    if (open) {
      fence = open[1];
      i++;
      continue;
    }
    const heading = text.match(HEADING);
    if (heading) {
      section = null;
      const id = heading[1].length === 2 ? headingText(text, heading[1]).match(ID_AT_END)?.[1] : undefined;
      const role = id === undefined ? undefined : roleOf.get(id);
      if (id !== undefined && role !== undefined) {
        claim(id, i, "a list heading");
        section = { role, id, heading: i, cards: [] };
        found.set(role, section);
      }
      i++;
      continue;
    }
    if (section && ITEM.test(text) && !THEMATIC_BREAK.test(text) && !EMPTY_ITEM.test(text)) {
      const card = readCard(lines, i);
      if (card) {
        if (card.id !== null) claim(card.id, i, "a card");
        if (childIndent === null && card.end > i + 1) {
          const child = lines.slice(i + 1, card.end).find((l) => !isBlank(l.text))!;
          childIndent = child.text.match(/^[ \t]*/)![0];
        }
        section.cards.push(card);
        i = card.end;
        continue;
      }
    }
    i++;
  }
  for (const role of LIST_ROLES) {
    if (!found.has(role)) {
      throw new BoardUnusable(
        `${where} has no list with the id ^${ids[role]}: add a level-2 heading ending in it ` +
          `(for example "## ${DEFAULT_HEADINGS[role]} ^${
            ids[role]
          }"); asm writes nothing to the board until then`,
      );
    }
  }
  const firstEol = lines.find((l) => l.eol !== "")?.eol;
  return {
    lines,
    lists: Object.fromEntries(LIST_ROLES.map((role) => [role, found.get(role)!])) as Record<
      ListRole,
      FoundList
    >,
    eol: firstEol === "\r\n" ? "\r\n" : "\n",
    childIndent: childIndent ?? "  ",
    blockIds,
  };
}

/** The headings of a new board. */
export const DEFAULT_HEADINGS: Record<ListRole, string> = {
  plan: "SPRINT PLAN",
  process: "IN PROCESS",
  complete: "COMPLETE",
};

/** A new board: the three headings, nothing else. */
export function defaultBoard(ids: ListIds): string {
  return LIST_ROLES.map((role) => `## ${DEFAULT_HEADINGS[role]} ^${ids[role]}\n`).join("");
}
