/**
 * `GET /api/heatmap`: turns typed per UTC day, per agent, across every year in the ledger (from the same byte
 * pass that derives everything else). Hidden rows count only with `?all=1`, by the same rule as the list.
 * @module
 */
import { heatmapSeries } from "../../lib/derive/mod.ts";
import { heatmapCells } from "../../lib/ledger/mod.ts";
import { json, type Route } from "../../lib/server/mod.ts";

/** The heat map route. */
export const heatmapRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/heatmap",
  handle(req, ctx) {
    const all = new URL(req.url).searchParams.get("all") === "1";
    return json(heatmapSeries(heatmapCells(ctx.ledger, { all })));
  },
}];
