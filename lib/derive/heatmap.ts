/**
 * The heat map's data, pure: per agent, turns typed per UTC day, across whole years, each agent drawn separately.
 * The cells come from the ledger (the byte pass's turns per day, hidden rows left out by the one rule).
 * @module
 */

/** One agent's turns on one UTC day. */
export interface HeatmapCell {
  agent: string;
  day: string;
  turns: number;
}

/** What `GET /api/heatmap` returns. */
export interface HeatmapSeries {
  /** agent -> UTC day (YYYY-MM-DD) -> turns; days without turns are absent */
  agents: Record<string, Record<string, number>>;
  /** agent -> turns in total */
  totals: Record<string, number>;
  /** the years that have any turn, oldest first */
  years: number[];
  first_day: string | null;
  last_day: string | null;
  /** the busiest day's turns for any agent (the colour scale's top) */
  max_day_turns: number;
}

/** Shapes cells into one series per agent. */
export function heatmapSeries(cells: HeatmapCell[]): HeatmapSeries {
  const agents: Record<string, Record<string, number>> = {};
  const totals: Record<string, number> = {};
  const years = new Set<number>();
  let first: string | null = null;
  let last: string | null = null;
  let max = 0;
  for (const c of cells) {
    if (c.turns <= 0) continue;
    const days = agents[c.agent] ??= {};
    days[c.day] = (days[c.day] ?? 0) + c.turns;
    totals[c.agent] = (totals[c.agent] ?? 0) + c.turns;
    max = Math.max(max, days[c.day]);
    years.add(Number(c.day.slice(0, 4)));
    if (first === null || c.day < first) first = c.day;
    if (last === null || c.day > last) last = c.day;
  }
  return {
    agents,
    totals,
    years: [...years].sort((a, b) => a - b),
    first_day: first,
    last_day: last,
    max_day_turns: max,
  };
}
