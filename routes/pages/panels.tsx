/**
 * `GET /projects` and `GET /activity`: the derived panels, server-rendered (nothing on them changes on the
 * 5-second poll). Projects: tiles with primary and touched counts. Activity: turns per UTC day across years,
 * one heat map per agent.
 * @module
 */
import type { Route } from "../../lib/server/mod.ts";
import { islandBundle, pageResponse, yearGrid } from "../../lib/ui/mod.ts";
import { heatmapCells, projectCounts } from "../../lib/ledger/mod.ts";
import { boardIsOn } from "./sprint.tsx";
import { heatmapSeries, projectName } from "../../lib/derive/mod.ts";
import { loadAgents } from "../../lib/agents/mod.ts";

const CELL = 11;

function Year(
  { year, turns, max, agent }: { year: number; turns: Record<string, number>; max: number; agent: string },
) {
  const grid = yearGrid(year, turns, max);
  const total = grid.reduce((n, c) => n + c.turns, 0);
  const weeks = Math.max(...grid.map((c) => c.week)) + 1;
  return (
    <figure class="year" data-heat-for={`${agent}-${year}`}>
      <figcaption>
        {year}: {total} turns
      </figcaption>
      <svg width={weeks * CELL} height={7 * CELL} role="img" aria-label={`${agent} ${year}: ${total} turns`}>
        {grid.map((c) => (
          <rect
            key={c.day}
            x={c.week * CELL}
            y={c.weekday * CELL}
            width={CELL - 2}
            height={CELL - 2}
            class={`shade-${c.shade}`}
          >
            <title>{`${c.day}: ${c.turns} turns`}</title>
          </rect>
        ))}
      </svg>
    </figure>
  );
}

/** The two panel pages. */
export const panelRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/projects",
    async handle(req, ctx) {
      const all = new URL(req.url).searchParams.get("all") === "1";
      const tiles = projectCounts(ctx.ledger, { all }).sort((a, b) =>
        b.primary - a.primary || b.touched - a.touched
      );
      const total = tiles.reduce((n, t) => n + t.primary, 0);
      return pageResponse({
        title: "asm: projects",
        current: "projects",
        bundleUrl: (await islandBundle()).url,
        pollMs: 5000,
        board: boardIsOn(ctx),
        children: (
          <>
            <p class="lede">
              {tiles.length} projects, {total}{" "}
              sessions. Primary: the sessions filed under a project (they add up to the session count).
              Touched: the sessions that worked there (one session can touch several).
            </p>
            <div class="tiles">
              {tiles.map((t) => (
                <div
                  key={t.folder ?? ""}
                  class="tile"
                  data-project-for={t.folder ?? ""}
                  title={t.folder ?? ""}
                >
                  <div class="tile-name">{projectName(t.folder)}</div>
                  <div class="tile-counts">
                    <span>
                      <strong>{t.primary}</strong> primary
                    </span>
                    <span>
                      <strong>{t.touched}</strong> touched
                    </span>
                  </div>
                </div>
              ))}
            </div>
          </>
        ),
      });
    },
  },
  {
    method: "GET",
    pattern: "/activity",
    async handle(req, ctx) {
      const all = new URL(req.url).searchParams.get("all") === "1";
      const series = heatmapSeries(heatmapCells(ctx.ledger, { all }));
      const agents = loadAgents({ asmHome: ctx.asmHome, env: ctx.env });
      return pageResponse({
        title: "asm: activity",
        current: "activity",
        bundleUrl: (await islandBundle()).url,
        pollMs: 5000,
        board: boardIsOn(ctx),
        children: (
          <>
            <p class="lede">Turns typed per UTC day, each agent drawn against its own busiest day.</p>
            {series.years.length === 0 && <p class="empty">No turns recorded yet.</p>}
            {agents.filter((a) => series.agents[a.name]).map((a) => {
              const turns = series.agents[a.name];
              const max = Math.max(0, ...Object.values(turns));
              return (
                <section key={a.name} class="heat" data-agent={a.name}>
                  <h2>
                    {a.display}: {series.totals[a.name] ?? 0} turns
                  </h2>
                  {[...series.years].reverse().map((y) => (
                    <Year key={y} year={y} turns={turns} max={max} agent={a.name} />
                  ))}
                </section>
              );
            })}
          </>
        ),
      });
    },
  },
];
