/**
 * `GET /api/projects`: one tile per project folder, with two counts: primary (sessions filed there; they sum to
 * the session count) and touched (sessions that worked there; a session touches several). Hidden rows count only
 * with `?all=1`, by the same rule as the list.
 * @module
 */
import { projectName } from "../../lib/derive/mod.ts";
import { projectCounts } from "../../lib/ledger/mod.ts";
import { json, type Route } from "../../lib/server/mod.ts";

/** The projects route. */
export const projectsRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/projects",
  handle(req, ctx) {
    const all = new URL(req.url).searchParams.get("all") === "1";
    const tiles = projectCounts(ctx.ledger, { all });
    return json({
      sessions: tiles.reduce((n, t) => n + t.primary, 0),
      projects: tiles.map((t) => ({ project: projectName(t.folder), ...t })),
    });
  },
}];
