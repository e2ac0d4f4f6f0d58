/**
 * The `markdown` backend: the board is one Markdown file a person also edits by hand, in any editor or an
 * Obsidian vault (the format: README "The board file", the reader: `markdown_parse.ts`).
 *
 * How a hand edit is never lost: every read carries a stamp (a hash of the file's bytes and the list ids), and
 * every write first re-reads the file and compares it with the stamp it was planned from (a mismatch:
 * {@link BoardChanged}, nothing written), edits only the card's lines, writes the whole file to a temporary file
 * beside it, and compares ONCE MORE right before the rename, so a save that landed while the new bytes were
 * being written is not replaced either. The second comparison and the rename are synchronous, back to back:
 * nothing in this process runs between them. What remains is the few microseconds between the two system calls,
 * which only the kernel could close (`renameat2` with `RENAME_EXCHANGE`, out of Deno's reach).
 *
 * A file that cannot be read right (invalid UTF-8, a list id missing, a card id twice, too large, a link or a
 * FIFO where the board should be) is {@link BoardUnusable}: a sentence, and never a write from that read.
 *
 * Reads are memoised for 60 s (the clock is injected); every write busts the memo; a `fresh` read bypasses it.
 * @module
 */
import { createHash } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import type { Clock } from "../lang/mod.ts";
import {
  BoardChanged,
  type BoardRead,
  BoardUnusable,
  type Card,
  LIST_ROLES,
  type ListIds,
  type ListRole,
  type Outliner,
  type Written,
} from "./protocol.ts";
import { defaultBoard, type FoundCard, parseBoard, type ParsedBoard } from "./markdown_parse.ts";
import { createCard, identifyCards, moveCard, newCardId, oneLine, renameCard } from "./markdown_edit.ts";
import { type BoardIo, REAL_BOARD_IO } from "./markdown_io.ts";

/** How long a read is reused. */
export const MEMO_MS = 60_000;
/** The largest board file asm reads. */
export const MAX_BOARD_BYTES = 8 << 20;

/** Options of {@link markdownOutliner}. */
export interface MarkdownOptions {
  /** The three lists' ids (config). */
  lists: ListIds;
  /** Epoch ms; `Date.now` unless a test pins it. */
  clock?: Clock;
  /** The file operations; the real ones unless a test hands in its own. */
  io?: BoardIo;
  /** How long a read is reused (default {@link MEMO_MS}). */
  memoMs?: number;
  /** The largest file read (default {@link MAX_BOARD_BYTES}). */
  maxBytes?: number;
  /** Six hex characters for a new card id (random unless a test pins it). */
  randomHex?: () => string;
}

/** The Markdown board: the protocol, and what the file watch needs. */
export interface MarkdownOutliner extends Outliner {
  /** The board file's real path (the same as `location`). */
  readonly path: string;
  /** Drops the memo: the next read reads the file (the watch calls it when someone else changed the file). */
  forget(): void;
  /** The stamp of the file as asm last wrote it, or null before its first write. */
  lastWritten(): string | null;
  /** The stamp of the file as it is now (no memo, no parse), or null when it is missing or cannot be read. */
  peek(): string | null;
}

/**
 * Where a Markdown board is, for the real-list guard and for every read and write: the configured path resolved
 * once through its links (a board linked into an Obsidian vault is its target). A file not there yet: its
 * folder's real path and its name.
 */
export function boardLocation(path: string): string {
  const absolute = resolve(path);
  try {
    return Deno.realPathSync(absolute);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  // nothing there yet (or a link to nothing: its own path, which the no-follow read refuses with a sentence)
  try {
    return join(Deno.realPathSync(dirname(absolute)), basename(absolute));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return absolute;
    throw err;
  }
}

/** One read: the bytes' stamp, the file as parsed, when. */
interface Snapshot {
  stamp: string;
  parsed: ParsedBoard;
  readAt: number;
}

const DECODER = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const ENCODER = new TextEncoder();

/** The first line (1-based) that is not valid UTF-8. */
function badLine(bytes: Uint8Array): number {
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      try {
        DECODER.decode(bytes.subarray(start, i));
      } catch {
        return line;
      }
      line++;
      start = i + 1;
    }
  }
  return line;
}

function decode(bytes: Uint8Array, where: string): string {
  try {
    return DECODER.decode(bytes);
  } catch {
    throw new BoardUnusable(
      `${where} is not valid UTF-8 text (line ${badLine(bytes)}); asm reads and writes the board only as ` +
        `UTF-8 and leaves this file as it is: save it as UTF-8`,
    );
  }
}

/** The three list ids must be block ids (`[A-Za-z0-9-]+`) and differ: a heading could not carry one otherwise. */
function checkListIds(ids: ListIds): void {
  for (const role of LIST_ROLES) {
    if (!/^[A-Za-z0-9-]+$/.test(ids[role])) {
      throw new BoardUnusable(
        `the ${role} list's id "${ids[role]}" cannot end a Markdown heading: use letters, digits and - only`,
      );
    }
  }
  if (new Set(LIST_ROLES.map((role) => ids[role])).size !== LIST_ROLES.length) {
    throw new BoardUnusable("the three lists need three different ids");
  }
}

/**
 * The Markdown board at `path` (resolved once with {@link boardLocation}). Throws {@link BoardUnusable} when the
 * list ids cannot be Markdown block ids.
 */
export function markdownOutliner(path: string, options: MarkdownOptions): MarkdownOutliner {
  const location = boardLocation(path);
  const io = options.io ?? REAL_BOARD_IO;
  const clock = options.clock ?? Date.now;
  const memoMs = options.memoMs ?? MEMO_MS;
  const maxBytes = options.maxBytes ?? MAX_BOARD_BYTES;
  const ids = options.lists;
  checkListIds(ids);
  const salt = LIST_ROLES.map((role) => ids[role]).join("\u0000");
  let memo: Snapshot | null = null;
  let seen = false;
  let written: string | null = null;

  // the list ids are in it too: a stamp from a board read under other ids never passes for this one
  const stampOf = (bytes: Uint8Array) =>
    createHash("sha256").update(salt).update("\u0000").update(bytes).digest("hex");

  const createDefault = () => {
    try {
      io.writeAtomic(location, ENCODER.encode(defaultBoard(ids)), { mode: 0o600, exclusive: true });
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) return; // someone made it meanwhile: read theirs
      if (err instanceof Deno.errors.NotFound) {
        throw new BoardUnusable(
          `the folder of ${location} does not exist; asm does not create it: make it first`,
        );
      }
      throw err;
    }
  };

  /**
   * The file's bytes now; a board that does not exist yet is created (once: see below), or with `create` false
   * read as the default board's bytes, nothing written (the dry run).
   */
  const readBytes = (create = true): Uint8Array => {
    let bytes = io.read(location, maxBytes);
    if (bytes === null && !create && !seen) return ENCODER.encode(defaultBoard(ids));
    if (bytes === null) {
      // a board asm has read and now finds gone is not made anew: an editor may be between its delete and its
      // write, and a default board written there could replace what it is about to save
      if (seen) {
        throw new BoardUnusable(
          `${location} is gone; asm does not make a new board while it runs: put the file back, or restart asm ` +
            `to start an empty board there`,
        );
      }
      createDefault();
      bytes = io.read(location, maxBytes);
      if (bytes === null) throw new BoardUnusable(`${location} vanished right after asm created it`);
    }
    seen = true;
    return bytes;
  };

  const snapshot = (bytes: Uint8Array): Snapshot => ({
    stamp: stampOf(bytes),
    parsed: parseBoard(decode(bytes, location), ids, location),
    readAt: clock(),
  });

  const view = (snap: Snapshot): BoardRead => ({
    lists: Object.fromEntries(
      LIST_ROLES.map((role) => [
        role,
        snap.parsed.lists[role].cards.map((c): Card => ({
          id: c.id,
          name: c.name,
          children: [...c.children],
        })),
      ]),
    ) as Record<ListRole, Card[]>,
    stamp: snap.stamp,
    readAt: snap.readAt,
  });

  const changed = (when: string) => new BoardChanged(`${location} changed ${when}; nothing was written`);

  /**
   * One write: re-read, compare, edit, write beside, compare again, rename. `edit` returns the new text, or
   * null when there is nothing to write (the stamp stays).
   */
  const write = (basedOn: string, edit: (parsed: ParsedBoard) => string | null): string => {
    memo = null; // busted on every write, a refused one too (the file changed under it)
    const now = snapshot(readBytes()); // a file that cannot be read right is refused before anything else
    if (now.stamp !== basedOn) throw changed("since the read this write was planned from");
    const text = edit(now.parsed);
    if (text === null) return basedOn;
    const next = ENCODER.encode(text);
    io.writeAtomic(location, next, {
      mode: io.stat(location)?.mode ?? 0o600,
      beforeRename: () => {
        // the second look: a save that landed while the temp file was written must not be replaced
        const again = io.read(location, maxBytes);
        if (again === null || stampOf(again) !== basedOn) throw changed("while asm was writing it");
      },
    });
    written = stampOf(next);
    return written;
  };

  const find = (parsed: ParsedBoard, cardId: string): { list: ListRole; index: number; card: FoundCard } => {
    for (const list of LIST_ROLES) {
      const index = parsed.lists[list].cards.findIndex((c) => c.id === cardId);
      if (index >= 0) return { list, index, card: parsed.lists[list].cards[index] };
    }
    throw new BoardChanged(`no card ^${cardId} in the lists of ${location} any more; nothing was written`);
  };

  /** The sync body run as the protocol's promise (a throw becomes a rejection). */
  const settle = <T>(body: () => T): Promise<T> => {
    try {
      return Promise.resolve(body());
    } catch (err) {
      return Promise.reject(err);
    }
  };

  const newId = (parsed: ParsedBoard) => newCardId(parsed.blockIds, options.randomHex);

  return {
    backend: "markdown",
    location,
    path: location,
    forget() {
      memo = null;
    },
    lastWritten: () => written,
    peek() {
      try {
        const bytes = io.read(location, maxBytes);
        return bytes === null ? null : stampOf(bytes);
      } catch (err) {
        if (err instanceof BoardUnusable) return null;
        throw err;
      }
    },
    read(readOptions = {}) {
      return settle(() => {
        const age = memo ? clock() - memo.readAt : Infinity;
        if (!readOptions.fresh && memo && age >= 0 && age < memoMs) return view(memo);
        memo = null;
        const bytes = readBytes(readOptions.create ?? true);
        // a board read without making it is not remembered: the next read finds the file absent and makes it
        if (readOptions.create === false && !seen) return view(snapshot(bytes));
        memo = snapshot(bytes);
        return view(memo);
      });
    },
    create(list, card, position, basedOn) {
      return settle((): Written & { id: string } => {
        let id = "";
        const stamp = write(basedOn, (parsed) => {
          id = newId(parsed);
          return createCard(parsed, list, { id, name: card.name, children: card.children, position });
        });
        return { id, stamp };
      });
    },
    rename(cardId, name, basedOn) {
      return settle((): Written => ({
        stamp: write(basedOn, (parsed) => {
          const { card } = find(parsed, cardId);
          return card.name === oneLine(name) ? null : renameCard(parsed, card, name);
        }),
      }));
    },
    move(cardId, list, position, basedOn) {
      return settle((): Written => ({
        stamp: write(basedOn, (parsed) => {
          const at = find(parsed, cardId);
          const cards = parsed.lists[list].cards;
          const already = at.list === list && at.index === (position === "top" ? 0 : cards.length - 1);
          return already ? null : moveCard(parsed, at.card, { list, position }, ids, location);
        }),
      }));
    },
    identify(basedOn) {
      return settle(() => {
        let given: { list: ListRole; index: number; id: string }[] = [];
        const stamp = write(basedOn, (parsed) => {
          const result = identifyCards(parsed, LIST_ROLES, () => newId(parsed));
          given = result.given;
          return given.length === 0 ? null : result.text;
        });
        return { stamp, given };
      });
    },
  };
}
