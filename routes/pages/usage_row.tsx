/**
 * The usage row every tab carries at its top: the agents' plan usage as the server has it ready, rendered with
 * the page (it waits at most 300 ms for it; the row fetches what was not ready).
 * @module
 */
import type { ServerContext } from "../../lib/server/mod.ts";
import { loadAgents, usageAgents } from "../../lib/agents/mod.ts";
import { Island } from "../../lib/ui/mod.ts";
import type { UsageReading } from "../../lib/usage/mod.ts";
import { UsageRow } from "../../islands/usage_row.tsx";

/** How long a page waits for plan usage before it renders without it (the row then fetches it). */
const USAGE_BUDGET_MS = 300;

async function usageIfReady(ctx: ServerContext): Promise<UsageReading[] | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), USAGE_BUDGET_MS)));
  const agents = usageAgents(loadAgents({ asmHome: ctx.asmHome, env: ctx.env }));
  const readings = ctx.state.usage.readAll(agents, ctx.env).catch(() => null);
  try {
    return await Promise.race([readings, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The usage row's island for a page. */
export async function usageRowIsland(ctx: ServerContext) {
  return (
    <Island
      name="UsageRow"
      component={UsageRow}
      props={{ readings: await usageIfReady(ctx), now: Date.now() }}
    />
  );
}
