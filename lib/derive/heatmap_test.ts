import assert from "node:assert/strict";
import { heatmapSeries } from "./heatmap.ts";

Deno.test("the heat map draws each agent separately across years, with the busiest day as the scale's top", () => {
  const s = heatmapSeries([
    { agent: "claude", day: "2025-12-31", turns: 2 },
    { agent: "claude", day: "2026-01-01", turns: 5 },
    { agent: "codex", day: "2026-01-01", turns: 1 },
    { agent: "codex", day: "2026-02-01", turns: 0 },
  ]);
  assert.deepEqual(s.agents, { claude: { "2025-12-31": 2, "2026-01-01": 5 }, codex: { "2026-01-01": 1 } });
  assert.deepEqual(s.totals, { claude: 7, codex: 1 });
  assert.deepEqual(s.years, [2025, 2026]);
  assert.equal(s.first_day, "2025-12-31");
  assert.equal(s.last_day, "2026-01-01");
  assert.equal(s.max_day_turns, 5);
  assert.deepEqual(heatmapSeries([]).years, []);
});
