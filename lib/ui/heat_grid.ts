/**
 * The heat map's grid, pure: one year of UTC days as 53 week columns of 7 days (Monday first), each with its
 * turns and a shade 0-4. Drawn per agent, so a busy agent never drowns a quiet one.
 * @module
 */

/** One day cell. */
export interface DayCell {
  day: string;
  turns: number;
  /** 0 (none) to 4 (the agent's busiest days) */
  shade: number;
  week: number;
  weekday: number;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The days of `year` with their turns; shades relative to `max` (the agent's busiest day). */
export function yearGrid(year: number, turns: Record<string, number>, max: number): DayCell[] {
  const start = Date.UTC(year, 0, 1);
  const end = Date.UTC(year + 1, 0, 1);
  // Monday = 0; the first column holds the week of 1 January
  const offset = (new Date(start).getUTCDay() + 6) % 7;
  const cells: DayCell[] = [];
  for (let ms = start, i = 0; ms < end; ms += 86_400_000, i++) {
    const day = iso(ms);
    const n = turns[day] ?? 0;
    const shade = n === 0 || max <= 0 ? 0 : Math.min(4, Math.max(1, Math.ceil((n / max) * 4)));
    cells.push({ day, turns: n, shade, week: Math.floor((i + offset) / 7), weekday: (i + offset) % 7 });
  }
  return cells;
}
