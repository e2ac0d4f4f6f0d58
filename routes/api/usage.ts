/**
 * `GET /api/usage`: every agent's real plan usage, one reading each (`lib/usage` UsageReading), in agents.toml
 * order: `{"at": "<ISO>", "readings": [...]}`. Each server has its own cache, so the endpoints are asked at most
 * once a minute however often the page polls, and not at all while nobody looks.
 * @module
 */
import { adapterOf, loadAgents } from "../../lib/agents/registry.ts";
import { isoAt } from "../../lib/ledger/mod.ts";
import { json, type Route, type ServerContext } from "../../lib/server/router.ts";
import { UsageCache, type UsageReading } from "../../lib/usage/mod.ts";

const caches = new WeakMap<ServerContext, UsageCache>();

/** The usage cache of one server (made on first use, logging to its server.log). */
export function usageCacheOf(ctx: ServerContext): UsageCache {
  let cache = caches.get(ctx);
  if (cache === undefined) {
    cache = new UsageCache({ log: ctx.log });
    caches.set(ctx, cache);
  }
  return cache;
}

/** Every agent's reading now. */
export function usageReadings(ctx: ServerContext): Promise<UsageReading[]> {
  const cache = usageCacheOf(ctx);
  return Promise.all(
    loadAgents({ asmHome: ctx.asmHome, env: ctx.env }).map((agent) =>
      cache.read({
        name: agent.name,
        display: agent.display,
        command: agent.command,
        baseUrl: agent.usage_base_url,
        source: adapterOf(agent).usage ?? null,
      }, ctx.env)
    ),
  );
}

/** The usage route. */
export const usageRoutes: Route[] = [{
  method: "GET",
  pattern: "/api/usage",
  async handle(_req, ctx) {
    return json({ at: isoAt(), readings: await usageReadings(ctx) });
  },
}];
