/**
 * `GET /projects` and `GET /activity`: the derived panels, server-rendered (nothing on them changes on the
 * 5-second poll). Projects: tiles with primary and touched counts. Activity: turns per UTC day across years,
 * one heat map per agent.
 * @module
 */
import { islandPage } from "./page.ts";
import type { Route } from "../../lib/server/mod.ts";
import { islandBundle, yearGrid } from "../../lib/ui/mod.ts";
import { heatmapCells, projectCounts } from "../../lib/ledger/mod.ts";
import { boardIsOn } from "./sprint.tsx";
import { usageRowIsland } from "./usage_row.tsx";
import { heatmapSeries, projectName } from "../../lib/derive/mod.ts";
import { loadAgents } from "../../lib/agents/mod.ts";

const CELL = 11;
/** Room for the weekday labels on the left and the month labels on top. */
const LEFT = 26;
const TOP = 12;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/** "Sun 29 Nov 2026" of an ISO day. */
function dayName(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return `${WEEKDAYS[(d.getUTCDay() + 6) % 7]} ${d.getUTCDate()} ${
    MONTHS[d.getUTCMonth()]
  } ${d.getUTCFullYear()}`;
}

function Year(
  { year, turns, max, agent }: { year: number; turns: Record<string, number>; max: number; agent: string },
) {
  const grid = yearGrid(year, turns, max);
  const total = grid.reduce((n, c) => n + c.turns, 0);
  const weeks = Math.max(...grid.map((c) => c.week)) + 1;
  // a month's label over the week its first day falls in
  const months = grid.filter((c) => c.day.endsWith("-01"));
  const width = LEFT + weeks * CELL;
  const height = TOP + 7 * CELL;
  return (
    <figure class="year" data-heat-for={`${agent}-${year}`}>
      <figcaption>
        {year}: {total} turns
      </figcaption>
      <svg
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${agent} ${year}: ${total} turns`}
      >
        {months.map((c) => (
          <text key={c.day} x={LEFT + c.week * CELL} y={TOP - 3} data-month>
            {MONTHS[Number(c.day.slice(5, 7)) - 1]}
          </text>
        ))}
        {[0, 2, 4].map((w) => (
          <text key={w} x={0} y={TOP + w * CELL + CELL - 3} data-weekday>
            {WEEKDAYS[w]}
          </text>
        ))}
        {grid.map((c) => (
          <rect
            key={c.day}
            x={LEFT + c.week * CELL}
            y={TOP + c.weekday * CELL}
            width={CELL - 2}
            height={CELL - 2}
            class={`shade-${c.shade}`}
            data-day={c.day}
            data-turns={c.turns}
          >
            <title>{`${dayName(c.day)}: ${c.turns} ${c.turns === 1 ? "turn" : "turns"}`}</title>
          </rect>
        ))}
      </svg>
    </figure>
  );
}

/** What the shades mean: none, then the agent's quarter-steps up to its busiest day. */
function Legend({ max }: { max: number }) {
  return (
    <div class="legend" aria-label={`shades from no turns to ${max} turns a day`}>
      <span>0</span>
      {[0, 1, 2, 3, 4].map((s) => <i key={s} class={`shade-${s}`} />)}
      <span>{max} turns a day (this agent's busiest)</span>
    </div>
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
      return islandPage({
        title: "asm: projects",
        current: "projects",
        bundleUrl: (await islandBundle()).url,
        pollMs: 5000,
        board: boardIsOn(ctx),
        usageRow: await usageRowIsland(ctx),
        children: (
          <>
            <p class="lede">
              {tiles.length} projects, {total}{" "}
              sessions. Primary: the sessions filed under a project (they add up to the session count).
              Touched: the sessions that worked there (one session can touch several).
            </p>
            <div class="tiles">
              {tiles.map((t) => (
                <a
                  key={t.folder ?? ""}
                  class="tile"
                  data-project-for={t.folder ?? ""}
                  title={`${t.folder ?? "no folder"}: its sessions in the list`}
                  href={`/?project=${encodeURIComponent(projectName(t.folder) ?? "")}#sessions`}
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
                </a>
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
      return islandPage({
        title: "asm: activity",
        current: "activity",
        bundleUrl: (await islandBundle()).url,
        pollMs: 5000,
        board: boardIsOn(ctx),
        usageRow: await usageRowIsland(ctx),
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
                  <Legend max={max} />
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
