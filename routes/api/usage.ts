/**
 * `GET /api/usage`: every agent's real plan usage, one reading each (`lib/usage` UsageReading), in agents.toml
 * order: `{"at": "<ISO>", "readings": [...]}`. The server's one cache (its state) asks each endpoint at most once
 * a minute however often the page polls, and not at all while nobody looks.
 * @module
 */
import { loadAgents, usageAgents } from "../../lib/agents/mod.ts";
import { isoAt } from "../../lib/ledger/mod.ts";
import { json, type Route } from "../../lib/server/mod.ts";

/** The usage route. */
export const usageRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/usage",
  async handle(_req, ctx) {
    const agents = usageAgents(loadAgents({ asmHome: ctx.asmHome, env: ctx.env }));
    return json({ at: isoAt(), readings: await ctx.state.usage.readAll(agents, ctx.env) });
  },
}];
