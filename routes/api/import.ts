/**
 * `POST /api/import` starts a full import unless one is running (what `./asm import` asks a running server to
 * do); `GET /api/import` reports whether one runs, its progress (files, MB, rate, ETA) and the last report.
 * @module
 */
import { json, type Route } from "../../lib/server/mod.ts";

/** The import routes. */
export const importRoutes: Route[] = [
  {
    method: "POST",
    pattern: "/api/import",
    handle(_req, ctx) {
      const runner = ctx.state.imports;
      const started = runner.start();
      return json({ started, ...runner.status() }, started ? 202 : 200);
    },
  },
  {
    method: "GET",
    pattern: "/api/import",
    handle(_req, ctx) {
      return json(ctx.state.imports.status());
    },
  },
];
