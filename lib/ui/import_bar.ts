/**
 * The import's thin bar on the sessions page, pure: whether it shows (a full import listing its transcripts or
 * deriving them whole, never the few-second refresh) and what it says (files and MB done, time left). The server
 * draws it from the runner's status, the browser from `GET /api/import`: one function, one wording.
 * @module
 */
import { timeLeftText } from "./words.ts";

/** What the bar reads of `GET /api/import` (lib/history ImportStatus; the fields only, no import of the runner). */
export interface ImportStatusFacts {
  running: boolean;
  kind: "full" | "refresh" | null;
  progress: {
    phase: "walk" | "list" | "read" | "done";
    files_total: number;
    files_done: number;
    bytes_total: number;
    bytes_done: number;
    eta_s: number | null;
  } | null;
}

/** The bar as the page draws it. */
export interface ImportBarView {
  /** how much is done, 0 to 1 (by bytes; by files when there are no bytes to count) */
  share: number;
  /** "Reading transcripts whole: 12/64 files, 0.3/1.2 MB, time left 40 s" (phase one: files only) */
  text: string;
}

const MB = 1 << 20;

/** The bar for this status, or null when no full import is listing or deriving. */
export function importBarView(status: ImportStatusFacts | null): ImportBarView | null {
  const p = status?.progress;
  if (!status?.running || status.kind !== "full" || !p) return null;
  if ((p.phase !== "list" && p.phase !== "read") || p.files_total === 0) return null;
  const share = p.bytes_total > 0 ? p.bytes_done / p.bytes_total : p.files_done / p.files_total;
  const mb = (n: number) => (n / MB).toFixed(1);
  // phase one reads a few KiB of each file, so files are its measure; its bytes and rate would say nothing
  const text = p.phase === "list"
    ? `Listing sessions from their transcripts' ends: ${p.files_done}/${p.files_total} files`
    : `Reading transcripts whole: ${p.files_done}/${p.files_total} files, ${mb(p.bytes_done)}/${
      mb(p.bytes_total)
    } MB, time left ${timeLeftText(p.eta_s)}`;
  return { share: Math.min(1, Math.max(0, share)), text };
}
