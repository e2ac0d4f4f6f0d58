/**
 * `GET /api/live`: the 5-second payload (lib/liveness/live_payload.ts): live ids, status, activity word, reason and
 * freshness, context tokens, the board's digest (what the server believes of the board: no outliner read), and a
 * revision that moves only when a displayed fact changed. `?all=1` includes the
 * hidden rows (sub-agents, headless runs, harness folders), with their own revision (one per server and variant,
 * in the server's state, so two pages polling the same server read the same revisions).
 * @module
 */
import { isoAt, listDigest, liveRows } from "../../lib/ledger/mod.ts";
import { livePayload, pendingLaunchViews } from "../../lib/liveness/mod.ts";
import { json, type Route } from "../../lib/server/mod.ts";

/** The live route. */
export const liveRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/live",
  handle(req, ctx) {
    const all = new URL(req.url).searchParams.get("all") === "1";
    const counter = ctx.state.liveRevisions[all ? "all" : "visible"];
    return json(
      livePayload(
        liveRows(ctx.ledger, { all }),
        isoAt(),
        counter,
        pendingLaunchViews(ctx.ledger),
        ctx.state.board.digest(),
        listDigest(ctx.ledger),
        ctx.state.panes,
      ),
    );
  },
}];
