/**
 * The arithmetic every bench reports with: nearest-rank percentiles, rounding, ratios. Pure.
 * @module
 */

/** The nearest-rank `p`th percentile of `values` (0 < p <= 100); NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** `value` rounded to `places` decimals. */
export function round(value: number, places = 2): number {
  const scale = 10 ** places;
  return Math.round(value * scale) / scale;
}

/** `value / baseline` to two decimals: how many times the baseline a figure is. */
export function ratio(value: number, baseline: number): number {
  return round(value / baseline, 2);
}

/** The median: the nearest-rank 50th percentile. */
export function p50(values: readonly number[]): number {
  return percentile(values, 50);
}
