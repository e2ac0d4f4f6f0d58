/**
 * The board file's watch: a change someone else made to the file wakes the reconciler, so a card typed or moved
 * by hand is acted on in seconds, not at the next 20 s tick.
 *
 * It watches the file's FOLDER, not the file: editors save by writing a new file and renaming it over the old
 * one, and a watch on the old file's inode would go quiet after the first save. Events of one save come in a
 * burst (create, modify, rename), so they settle for a moment and then count once. asm's own writes wake
 * nothing: after the burst the file's stamp is compared with the stamp asm last wrote; a change asm made itself
 * (or no change at all: a chmod, a save of the same bytes) is not a reason for a pass.
 * @module
 */
import { dirname } from "node:path";
import { errorText, type Log } from "../lang/mod.ts";
import type { MarkdownOutliner } from "./markdown.ts";

/** How long a burst of events settles before it counts (ms). */
export const SETTLE_MS = 300;

/** A running watch. */
export interface BoardWatch {
  /** Stops it: no wake after this resolves. */
  close(): Promise<void>;
}

/** Options of {@link watchBoard}. */
export interface WatchOptions {
  /** How long a burst settles (default {@link SETTLE_MS}). */
  settleMs?: number;
  /** Where a watch that stops on its own says so. */
  log?: Log;
}

/** Watches `board`'s file; `wake` runs once per settled change that asm did not write (the memo dropped first). */
export function watchBoard(
  board: Pick<MarkdownOutliner, "path" | "peek" | "lastWritten" | "forget">,
  wake: () => void,
  options: WatchOptions = {},
): BoardWatch {
  const settleMs = options.settleMs ?? SETTLE_MS;
  const watcher = Deno.watchFs(dirname(board.path), { recursive: false });
  let lastSeen = board.peek();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const look = () => {
    const now = board.peek();
    if (now === lastSeen) return; // no change since the last look (a chmod, the same bytes saved again)
    lastSeen = now;
    if (now !== null && now === board.lastWritten()) return; // asm's own write
    board.forget();
    wake();
  };
  const settled = () => {
    timer = undefined;
    if (closed) return;
    try {
      look();
    } catch (err) {
      // a timer's throw would end the server: one line, and the next event looks again
      options.log?.({ what: "board watch failed", path: board.path, error: errorText(err) });
    }
  };

  const loop = (async () => {
    try {
      for await (const event of watcher) {
        if (closed) break;
        if (!event.paths.includes(board.path)) continue; // the editor's own temp files, other notes
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(settled, settleMs);
      }
    } catch (err) {
      if (!closed) options.log?.({ what: "board watch stopped", path: board.path, error: errorText(err) });
    }
  })();

  return {
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      try {
        watcher.close();
      } catch (err) {
        if (!(err instanceof Deno.errors.BadResource)) throw err; // closed already
      }
      await loop;
    },
  };
}
