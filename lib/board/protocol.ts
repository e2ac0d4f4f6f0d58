/**
 * The outliner protocol: the three lists of the board (SPRINT PLAN, IN PROCESS, COMPLETE) as any outliner holds
 * them, addressed by id, never by name. A backend (`markdown.ts`, the default; `workflowy.ts`) implements it;
 * everything above (the planner, the sweep, the buttons) codes against it only.
 *
 * Two rules hold it together:
 * - **Ids, never names.** A list is its configured id; a card is its id. A card typed by hand in a Markdown file
 *   has none until a pass gives it one (`identify`), changing nothing else on its line.
 * - **A write never loses a hand edit.** Every read returns a `stamp` of exactly what it saw; every write names
 *   the stamp it was planned from and is refused with {@link BoardChanged} when the board changed since (the
 *   backend re-reads before it writes). The pass then abandons its plan and plans again from a fresh read. A
 *   successful write returns the new stamp, so one pass can make several writes in order.
 *
 * Reads are memoised for 60 s and every write busts the memo.
 * @module
 */

/** The three lists, by the role they play. */
export type ListRole = "plan" | "process" | "complete";

/** The roles in board order. */
export const LIST_ROLES: readonly ListRole[] = ["plan", "process", "complete"];

/** Where a card goes in a list. */
export type Position = "top" | "bottom";

/** The configured ids of the three lists. */
export type ListIds = Record<ListRole, string>;

/** One card as the outliner holds it. */
export interface Card {
  /** Its id; null only for a card typed by hand that has none yet (the next pass gives it one). */
  id: string | null;
  /** Its one line, `TITLE #tag #tag` (the grammar is `grammar.ts`), as the outliner holds it (unescaped). */
  name: string;
  /** The prompt: the card's children, one line each, in order. */
  children: string[];
}

/** One read of the board. */
export interface BoardRead {
  /** Each list's cards, top first. */
  lists: Record<ListRole, Card[]>;
  /** Stands for exactly what this read saw: any change to the board gives another stamp. */
  stamp: string;
  /** When it was read (epoch ms): a memoised read is older than the request. */
  readAt: number;
}

/** What a write returns: the board's stamp after it (the next write of the same pass is based on it). */
export interface Written {
  stamp: string;
}

/** The protocol every backend implements. */
export interface Outliner {
  /** `markdown`, `workflowy`: the real-list guard is keyed on it and {@link location}. */
  readonly backend: string;
  /** Where the board is: a Markdown file's real path; a remote's account and list ids. */
  readonly location: string;
  /**
   * The three lists (a memo at most 60 s old unless `fresh`). Throws {@link BoardUnusable} for a misread. A board
   * that does not exist yet is made on a read, except with `create: false` (the dry run's read writes nothing):
   * then it reads as the three empty lists.
   */
  read(options?: { fresh?: boolean; create?: boolean }): Promise<BoardRead>;
  /** A new card at the top or bottom of a list, its prompt as children; returns its id. */
  create(
    list: ListRole,
    card: { name: string; children: string[] },
    position: Position,
    basedOn: string,
  ): Promise<Written & { id: string }>;
  /** A card's one line, replaced (only that line). */
  rename(cardId: string, name: string, basedOn: string): Promise<Written>;
  /** A card (with its children) moved to the top or bottom of a list. */
  move(cardId: string, list: ListRole, position: Position, basedOn: string): Promise<Written>;
  /**
   * A card's prompt read now, where a backend's reads may reuse prompts (a remote one); absent: the read's is
   * current.
   */
  prompt?(cardId: string): Promise<string[]>;
  /**
   * Gives every card of the three lists that has no id one, changing nothing else on its line. Returns the ids
   * given, by the card's position (list and index) in the read it was based on.
   */
  identify(basedOn: string): Promise<Written & { given: { list: ListRole; index: number; id: string }[] }>;
}

/** The board changed since the read a write was planned from: nothing was written; plan again. */
export class BoardChanged extends Error {
  override name = "BoardChanged";
}

/**
 * The board cannot be used as it is (a list id missing, a duplicated id, invalid text): nothing is ever written
 * from such a read. The message says what and where, in a sentence.
 */
export class BoardUnusable extends Error {
  override name = "BoardUnusable";
}
