/**
 * `GET /api/sessions`: the list, one row per session, newest first, with project, context, closeout and agent
 * (the fields of `./asm sessions --json`). Hidden rows only with `?all=1`; each row says whether it is hidden and
 * why (one rule: lib/ledger/hidden.ts), and `hidden` counts what the default list hides, by reason (the page's
 * "N hidden" after it fetched the rows again: rows read whole may have left for the hidden). The body is kept
 * until the ledger's next write: with ten thousand rows, building it is most of the answer's cost, and between
 * writes it cannot change.
 * @module
 */
import { hiddenCounts, sessionViews } from "../../lib/ledger/mod.ts";
import type { Route, ServerContext } from "../../lib/server/mod.ts";

/** The list's JSON body, built anew only after the ledger changed (kept in the server's state). */
function sessionsBody(ctx: ServerContext, all: boolean): string {
  const version = ctx.ledger.version();
  const hit = ctx.state.sessionsBodies.get(all);
  if (hit && hit.version === version) return hit.body;
  const body = JSON.stringify({
    sessions: sessionViews(ctx.ledger, { all }),
    hidden: hiddenCounts(ctx.ledger),
  });
  ctx.state.sessionsBodies.set(all, { version, body });
  return body;
}

/** The sessions route. */
export const sessionsRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/sessions",
  handle(req, ctx) {
    const all = new URL(req.url).searchParams.get("all") === "1";
    return new Response(sessionsBody(ctx, all), {
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    });
  },
}];
