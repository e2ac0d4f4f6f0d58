/**
 * `GET /api/health`: what to read first when something is wrong. With the token: the health model (each layer's
 * own report, `ok` only when every one is, each failing part's sentence in `problems`), then mode, port, counts,
 * the background tasks and the lock. Without it the server answers only `{ok, status, version}` before any route
 * runs (lib/server/security.ts).
 * @module
 */
import { healthOf, json, type Route } from "../../lib/server/mod.ts";

/** The health route. */
export const healthRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/health",
  async handle(_req, ctx) {
    const model = await healthOf(ctx);
    return json({
      ...model,
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
