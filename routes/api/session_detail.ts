/**
 * `GET /api/sessions/:id`: one session with its runs, its launches and its conversation (lib/history/detail.ts).
 * @module
 */
import { json, jsonError, type Route } from "../../lib/server/mod.ts";
import { sessionDetail } from "../../lib/history/mod.ts";

/** The detail route. */
export const sessionDetailRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/sessions/:id",
  heavy: true,
  async handle(_req, ctx, params) {
    const detail = await sessionDetail(ctx, params.id);
    return detail ? json(detail) : jsonError(404, `asm has no session ${params.id}`);
  },
}];
