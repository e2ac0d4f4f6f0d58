/**
 * The Markdown board's writes as edits of its lines: pure, no I/O. Each edit touches only the lines of the card
 * it changes (a rename or an id: the card's own line; a create: the new lines; a move: the card's lines, taken
 * out and put back elsewhere) and puts every other line back as it was, ending included.
 * @module
 */
import type { ListIds, ListRole, Position } from "./protocol.ts";
import { type FoundCard, joinLines, type Line, parseBoard, type ParsedBoard } from "./markdown_parse.ts";

/**
 * A card's name made safe for one line: a line break would start a line of its own (a heading, another card),
 * so each becomes a space; blanks at either end would not survive a read, so they go.
 */
export function oneLine(name: string): string {
  return name.replace(/\r\n|\r|\n/g, " ").trim();
}

/** The prompt as child lines: a child holding line breaks is several children. */
export function promptLines(children: readonly string[]): string[] {
  return children.flatMap((child) => child.split(/\r\n|\r|\n/));
}

/** A new id `c-` + 6 hex characters, none of `taken` (every block id in the file); added to `taken`. */
export function newCardId(taken: Set<string>, random: () => string = randomHex): string {
  for (let i = 0; i < 1000; i++) {
    const id = `c-${random()}`;
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
  throw new Error("no free card id after 1000 tries; the id source is broken");
}

function randomHex(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(3));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Where a card goes in `role`'s list: before its first card, after its last, or under its heading. */
function insertionLine(board: ParsedBoard, role: ListRole, position: Position): number {
  const list = board.lists[role];
  if (list.cards.length === 0) return list.heading + 1;
  return position === "top" ? list.cards[0].line : list.cards[list.cards.length - 1].end;
}

/**
 * `block` put in before line `at`. Every line of it ends in the file's ending, except at the very end of a file
 * that has no final line break: there the break goes before the block and the file still ends without one.
 */
function insertLines(board: ParsedBoard, lines: Line[], at: number, block: Line[]): Line[] {
  const placed = block.map((l) => l.eol === "" ? { text: l.text, eol: board.eol } : l);
  const out = lines.slice();
  if (at > 0 && at === out.length && out[at - 1].eol === "") {
    out[at - 1] = { text: out[at - 1].text, eol: board.eol };
    placed[placed.length - 1] = { text: placed[placed.length - 1].text, eol: "" };
  }
  out.splice(at, 0, ...placed);
  return out;
}

/** The file's text with the card's name replaced (its bullet, id and trailing blanks kept). */
export function renameCard(board: ParsedBoard, card: FoundCard, name: string): string {
  const lines = board.lines.slice();
  const line = lines[card.line];
  lines[card.line] = {
    text: line.text.slice(0, card.nameStart) + oneLine(name) + line.text.slice(card.nameEnd),
    eol: line.eol,
  };
  return joinLines(lines);
}

/** The file's text with a new card: `- NAME ^id`, its prompt lines as child items in the file's own indentation. */
export function createCard(
  board: ParsedBoard,
  list: ListRole,
  card: { id: string; name: string; children: readonly string[]; position: Position },
): string {
  const block: Line[] = [{ text: `- ${oneLine(card.name)} ^${card.id}`, eol: "" }];
  for (const child of promptLines(card.children)) {
    // an empty prompt line is a bare bullet: a blank line would end the card
    block.push({ text: child === "" ? `${board.childIndent}-` : `${board.childIndent}- ${child}`, eol: "" });
  }
  return joinLines(insertLines(board, board.lines, insertionLine(board, list, card.position), block));
}

/**
 * The file's text with the card's lines (the card and its children, as they are) taken out and put at the top
 * or bottom of `list`. `ids` and `where` re-read the file without the card, to find where the list is then.
 */
export function moveCard(
  board: ParsedBoard,
  card: FoundCard,
  target: { list: ListRole; position: Position },
  ids: ListIds,
  where: string,
): string {
  const block = board.lines.slice(card.line, card.end);
  const rest = board.lines.slice(0, card.line).concat(board.lines.slice(card.end));
  const without = parseBoard(joinLines(rest), ids, where);
  // the same lines, so the same ending and indentation as the whole file
  const withStyle = { ...without, eol: board.eol, childIndent: board.childIndent };
  return joinLines(
    insertLines(withStyle, without.lines, insertionLine(without, target.list, target.position), block),
  );
}

/** The file's text with an id (` ^id`) after the name of each card that has none; the ids given, in order. */
export function identifyCards(
  board: ParsedBoard,
  order: readonly ListRole[],
  newId: () => string,
): { text: string; given: { list: ListRole; index: number; id: string }[] } {
  const lines = board.lines.slice();
  const given: { list: ListRole; index: number; id: string }[] = [];
  for (const list of order) {
    board.lists[list].cards.forEach((card, index) => {
      if (card.id !== null) return;
      const id = newId();
      const line = lines[card.line];
      lines[card.line] = {
        text: `${line.text.slice(0, card.nameEnd)} ^${id}${line.text.slice(card.nameEnd)}`,
        eol: line.eol,
      };
      given.push({ list, index, id });
    });
  }
  return { text: joinLines(lines), given };
}
