/**
 * `GET /api/live`: the 5-second payload (lib/liveness/live_payload.ts): live ids, status, activity word, reason and
 * freshness, context tokens, and a revision that moves only when a displayed fact changed. `?all=1` includes the
 * hidden rows (sub-agents, headless runs, harness folders), with their own revision.
 * @module
 */
import { isoAt, liveRows, pendingLaunches } from "../../lib/ledger/mod.ts";
import { livePayload, LiveRevision, type PendingLaunchView } from "../../lib/liveness/mod.ts";
import { json, type Route, type ServerContext } from "../../lib/server/router.ts";

// one counter per server and per variant, so two pages polling the same server read the same revisions
const revisions = new WeakMap<ServerContext, { visible: LiveRevision; all: LiveRevision }>();

function revisionsOf(ctx: ServerContext): { visible: LiveRevision; all: LiveRevision } {
  let r = revisions.get(ctx);
  if (!r) {
    r = { visible: new LiveRevision(), all: new LiveRevision() };
    revisions.set(ctx, r);
  }
  return r;
}

/** The launches still waiting for their session, as the page shows them. */
export function pendingLaunchViews(ctx: ServerContext): PendingLaunchView[] {
  return pendingLaunches(ctx.ledger).map((l) => ({
    token: l.token,
    agent: l.agent,
    folder: l.cwd,
    name: l.name,
    waiting_reason: l.waiting_reason,
    requested_at: l.requested_at,
  }));
}

/** The live route. */
export const liveRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/live",
  handle(req, ctx) {
    const all = new URL(req.url).searchParams.get("all") === "1";
    const counter = revisionsOf(ctx)[all ? "all" : "visible"];
    return json(livePayload(liveRows(ctx.ledger, { all }), isoAt(), counter, pendingLaunchViews(ctx)));
  },
}];
