/**
 * The pass's retry around a board that keeps changing: read fresh, plan and write, and when a write is refused
 * because the board changed ({@link BoardChanged}), do it all again from a fresh read. An editor autosaving every
 * few seconds can refuse every try; after a bounded number in a row the pass gives up with one sentence
 * ({@link BoardBusy}) for the page and the log, and the next pass tries again.
 * @module
 */
import { BoardChanged, type BoardRead, type Outliner } from "./protocol.ts";

/** How many tries a pass makes by default. */
export const DEFAULT_TRIES = 4;

/** The board changed under every try of a pass: the pass gave up; the message is the sentence to show. */
export class BoardBusy extends Error {
  override name = "BoardBusy";
}

/** Options of {@link withFreshBoard}. */
export interface FreshBoardOptions {
  /** Tries in all, the first included (default {@link DEFAULT_TRIES}). */
  tries?: number;
  /** The read the first try is made on (a pass's first read may be the memo); later tries read fresh. */
  first?: BoardRead;
  /** What happens next, ending the give-up sentence (default: the next pass tries again). */
  next?: string;
}

/**
 * Runs `attempt` on a fresh read of the board (the first on `first` when given), again on a fresh read each time
 * it throws {@link BoardChanged}, at most `tries` times in all; then throws {@link BoardBusy}. Any other error is
 * thrown at once.
 */
export async function withFreshBoard<T>(
  outliner: Outliner,
  attempt: (board: BoardRead) => Promise<T>,
  options: FreshBoardOptions = {},
): Promise<T> {
  const tries = Math.max(1, options.tries ?? DEFAULT_TRIES);
  for (let done = 1;; done++) {
    const board = done === 1 && options.first ? options.first : await outliner.read({ fresh: true });
    try {
      return await attempt(board);
    } catch (err) {
      if (!(err instanceof BoardChanged)) throw err;
      if (done >= tries) {
        throw new BoardBusy(
          `the board at ${outliner.location} changed ${tries} times in a row while asm was writing to it ` +
            `(someone editing it by hand, or an editor saving it every few seconds?); asm stopped where it was, and ` +
            (options.next ?? "the next pass tries again"),
          { cause: err },
        );
      }
    }
  }
}
