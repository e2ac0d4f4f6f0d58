/**
 * Import progress, pure: files and bytes done out of the total, the rate so far and the time left, and the one
 * line a terminal shows (`import: 120/5000 files, 35.2/1024.0 MB, 180.3 MB/s, ETA 5 s`).
 * @module
 */

/** Where an import is. */
export interface ImportProgress {
  /** walk: looking for files; list: phase one (every row from its file's two ends); read: phase two */
  phase: "walk" | "list" | "read" | "done";
  files_total: number;
  files_done: number;
  bytes_total: number;
  bytes_done: number;
  elapsed_ms: number;
  /** MB (2^20 bytes) per second so far; null before there is anything to divide */
  rate_mb_s: number | null;
  /** seconds left at the rate so far; null when unknown */
  eta_s: number | null;
}

const MB = 1 << 20;

/** Progress from the counts and the time spent so far. */
export function progressOf(
  counts: Pick<ImportProgress, "phase" | "files_total" | "files_done" | "bytes_total" | "bytes_done">,
  elapsedMs: number,
): ImportProgress {
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 && counts.bytes_done > 0 ? counts.bytes_done / MB / seconds : null;
  const left = Math.max(counts.bytes_total - counts.bytes_done, 0);
  const eta = counts.phase === "done" ? 0 : rate !== null && rate > 0 ? left / MB / rate : null;
  return {
    ...counts,
    elapsed_ms: Math.round(elapsedMs),
    rate_mb_s: rate === null ? null : Math.round(rate * 10) / 10,
    eta_s: eta === null ? null : Math.ceil(eta),
  };
}

/** The progress line a person reads. */
export function progressLine(p: ImportProgress): string {
  if (p.phase === "walk") return "import: looking for transcripts ...";
  if (p.phase === "list") {
    return `import: listing ${p.files_done}/${p.files_total} transcripts from their two ends`;
  }
  const mb = (n: number) => (n / MB).toFixed(1);
  const rate = p.rate_mb_s === null ? "-- MB/s" : `${p.rate_mb_s.toFixed(1)} MB/s`;
  const eta = p.phase === "done"
    ? `done in ${(p.elapsed_ms / 1000).toFixed(1)} s`
    : p.eta_s === null
    ? "ETA --"
    : `ETA ${p.eta_s} s`;
  return `import: ${p.files_done}/${p.files_total} files, ${mb(p.bytes_done)}/${
    mb(p.bytes_total)
  } MB, ${rate}, ${eta}`;
}
