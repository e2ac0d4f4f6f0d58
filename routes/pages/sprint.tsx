/**
 * The board on the front page (`GET /`, routes/pages/sessions.tsx): server-rendered from the same view
 * `GET /api/sprint` returns (lib/reconcile, `BoardRuntime.view`), then kept true in the browser by the board island
 * (islands/sprint_board.tsx). The front page is the board once a board exists: its tab reads "Board", the three
 * lanes come first, and the full session list is underneath (docs/decisions.md, "The board is the front page").
 * @module
 */
import type { ServerContext } from "../../lib/server/mod.ts";
import { Island } from "../../lib/ui/mod.ts";
import { SprintBoard } from "../../islands/sprint_board.tsx";

/**
 * True when this server has a board (a backend asm has, agents it could read): the front tab is then the board.
 * A board that is off still shows its one sentence on the front page, under a "Sessions" tab.
 */
export function boardIsOn(ctx: ServerContext): boolean {
  return ctx.state.board.deps !== null;
}

/**
 * The board island for the front page: the payload `GET /api/sprint` would answer now, and the live ids of the
 * page's own `/api/live` variant (the page fetches the board again when they change).
 */
export async function boardIsland(ctx: ServerContext, liveIds: readonly string[]) {
  const payload = await ctx.state.board.view(ctx.ledger);
  return <Island name="SprintBoard" component={SprintBoard} props={{ payload, liveIds: [...liveIds] }} />;
}
