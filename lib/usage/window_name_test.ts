import assert from "node:assert/strict";
import { finite, isoFromEpochSeconds, isoFromText, windowNameForSeconds } from "./window_name.ts";

Deno.test("a window length in seconds reads as the name a person uses", () => {
  const rows: [number | null, string | null][] = [
    [18_000, "5-hour"],
    [604_800, "weekly"],
    [86_400, "daily"],
    [2_592_000, "30-day"],
    [3_600, "1-hour"],
    [900, "15-minute"],
    [45, "45-second"],
    [0, null],
    [null, null],
  ];
  for (const [seconds, name] of rows) assert.equal(windowNameForSeconds(seconds), name, String(seconds));
});

Deno.test("timestamps from the endpoints become ISO-8601 UTC with milliseconds", () => {
  assert.equal(isoFromText("2026-01-02T19:59:59.600956+00:00"), "2026-01-02T19:59:59.600Z");
  assert.equal(isoFromText("2025-10-22T16:01:15Z"), "2025-10-22T16:01:15.000Z");
  assert.equal(isoFromText("2026-10-01T00:00:00.000Z"), "2026-10-01T00:00:00.000Z");
  assert.equal(isoFromText("later"), null);
  assert.equal(isoFromText(null), null);
  assert.equal(isoFromEpochSeconds(1795994070), "2026-11-29T23:14:30.000Z");
  assert.equal(isoFromEpochSeconds("1795994070"), null);
  assert.equal(finite(Number.NaN), null);
  assert.equal(finite(3), 3);
});
