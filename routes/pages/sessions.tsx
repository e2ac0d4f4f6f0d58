/**
 * `GET /`: the Sessions page, server-rendered from the ledger; the table is an island the poll keeps true.
 * `?all=1` shows hidden rows too.
 * @module
 */
import type { Route } from "../../lib/server/router.ts";
import { islandBundle } from "../../lib/ui/bundle.ts";
import { pageResponse } from "../../lib/ui/document.tsx";
import { Island } from "../../lib/ui/island.tsx";
import { sessionView } from "../../lib/ui/session_view.ts";
import { SessionsTable } from "../../islands/sessions_table.tsx";

/** How often the page polls /api/live; a test may shorten it with `?poll_ms=`. */
const POLL_MS = 5000;

/** The Sessions page. */
export const sessionsPageRoutes: Route[] = [{
  method: "GET",
  pattern: "/",
  async handle(req, ctx) {
    const url = new URL(req.url);
    const all = url.searchParams.get("all") === "1";
    const pollMs = Math.max(200, Number(url.searchParams.get("poll_ms")) || POLL_MS);
    const now = Date.now();
    const rows = ctx.ledger.listSessions({ all }).map((row) => sessionView(row, now));
    const bundle = await islandBundle();
    return pageResponse({
      title: "asm: sessions",
      current: "sessions",
      bundleUrl: bundle.url,
      pollMs,
      children: rows.length
        ? <Island name="SessionsTable" component={SessionsTable} props={{ rows }} />
        : (
          <p class="empty">
            No sessions yet. Sessions appear here as soon as an agent with asm's hook starts (./asm install).
          </p>
        ),
    }, ctx.token);
  },
}];
