/**
 * `GET /api/health`: what to read first when something is wrong: mode, port, counts, the background tasks.
 * @module
 */
import { json, type Route } from "../../lib/server/mod.ts";

/** The health route. */
export const healthRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/health",
  handle(_req, ctx) {
    return json({
      ok: true,
      mode: ctx.mode,
      port: ctx.port(),
      pid: Deno.pid,
      asm_home: ctx.asmHome,
      schema_version: ctx.ledger.schemaVersion(),
      counts: ctx.ledger.counts(),
      tasks: ctx.tasks(),
      lock: ctx.lock,
    });
  },
}];
