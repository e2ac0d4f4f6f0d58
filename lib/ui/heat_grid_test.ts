import assert from "node:assert/strict";
import { yearGrid } from "./heat_grid.ts";

Deno.test("a year grid has every day once, Monday first, shaded against the busiest day", () => {
  const grid = yearGrid(2026, { "2026-01-01": 2, "2026-06-15": 8, "2025-12-31": 99 }, 8);
  assert.equal(grid.length, 365);
  assert.equal(grid[0].day, "2026-01-01");
  // 1 January 2026 is a Thursday: weekday 3 of the first week
  assert.deepEqual([grid[0].week, grid[0].weekday], [0, 3]);
  assert.equal(grid.find((c) => c.day === "2026-06-15")?.shade, 4);
  assert.equal(grid[0].shade, 1);
  assert.equal(grid.filter((c) => c.turns > 0).length, 2, "a day of another year never leaks in");
  assert.equal(Math.max(...grid.map((c) => c.week)) <= 53, true);
  assert.equal(yearGrid(2024, {}, 0).length, 366);
});
