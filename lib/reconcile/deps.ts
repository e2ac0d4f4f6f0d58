/**
 * What the sweep and the five buttons need, gathered in one value so the server, and a test with the memory
 * outliner, can each hand in their own: the outliner, the ledger (its links and session facts: lib/ledger
 * `links.ts`), the claims, the agents, the board lock and what the server believes of the board.
 * @module
 */
import type { BoardRead, Outliner } from "../board/mod.ts";
import type { Ledger } from "../ledger/mod.ts";
import type { Clock, Log } from "../lang/mod.ts";
import type { Claims } from "./claims.ts";
import type { BoardAgent, Link } from "./types.ts";

/** One board writer at a time in this server: a pass and a button never interleave their writes. */
export class BoardLock {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` after every earlier holder is done. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.catch(() => {});
    return result;
  }
}

/** What the server believes of the board: the last read or write, and the problem of the last pass (if any). */
export class BoardMemo {
  read: BoardRead | null = null;
  problem: string | null = null;
  /** Links as of the last pass or button. */
  links: Link[] = [];

  /** The board as just read or written. */
  believe(read: BoardRead, links: readonly Link[]): void {
    this.read = read;
    this.links = [...links];
  }
}

/** The sweep's and the buttons' dependencies. */
export interface BoardDeps {
  outliner: Outliner;
  /** The links (`sprint_links`) and the session facts; written here only after the board write succeeded. */
  ledger: Ledger;
  claims: Claims;
  agents: readonly BoardAgent[];
  lock: BoardLock;
  memo: BoardMemo;
  log: Log;
  /** The links' times (tests pin it). */
  now?: Clock;
  /** How many fresh reads a write makes before it gives up on a board that keeps changing (default 4). */
  tries?: number;
}
