/// <reference lib="dom" />
/**
 * The import's thin bar on the sessions page: while a full import lists or derives the agents' transcripts, files
 * and MB done and the time left, read from `GET /api/import` about once a second; gone when the import ends, and
 * the table's rows fetched again then (their "deriving" cells take their numbers, rows still being read show or
 * leave for the hidden). It asks once when the page loads, and again when the list shows rows being derived (an
 * import that started later); never while nothing runs. Its signals write the DOM: it never renders again.
 * @module
 */
import { computed, signal } from "@preact/signals";
// browser code imports modules, not faces: a face also carries server-only code the bundle cannot hold
import { type ImportBarView, importBarView, type ImportStatusFacts } from "../lib/ui/import_bar.ts";
import { api, apiToken } from "./api.ts";
import { fetchAllRows, tableShown } from "./sessions_table.tsx";

/** Props of the bar. */
export interface ImportBarProps extends Record<string, unknown> {
  /** the bar as the server drew it (null: no full import was listing or deriving) */
  first: ImportBarView | null;
}

/** The bar as `/api/import` last said it (undefined: not asked yet, the server's drawing stands). */
const latest = signal<ImportBarView | null | undefined>(undefined);
/** A follow loop is running (one at a time). */
let following = false;
/** The bar as the server drew it. */
let drawn: ImportBarView | null = null;

/** The bar. */
export function ImportBar({ first }: ImportBarProps) {
  drawn = first;
  const view = computed(() => latest.value === undefined ? first : latest.value);
  return (
    <div class="import-bar" data-import-bar hidden={computed(() => view.value === null)}>
      <progress max={1} value={computed(() => view.value?.share ?? 0)} aria-label="import progress" />
      <span class="import-text" data-import-text>{computed(() => view.value?.text ?? "")}</span>
    </div>
  );
}

/**
 * Follows the import while a full one runs, every `everyMs`; once it ends (or `/api/import` cannot say), hides the
 * bar and, when the bar was shown, fetches the table's rows again. A second call while following does nothing.
 */
export function followImport(everyMs = 1000): void {
  // no key: nothing can be asked, and the banner already says how to get one (a refused call would replace it)
  if (following || apiToken() === null) return;
  following = true;
  // the bar shown at any point of this follow (the server's drawing counts): its end refreshes the rows
  let shown = latest.peek() === undefined ? drawn : latest.peek() ?? null;
  const tick = async () => {
    let status: ImportStatusFacts | null = null;
    try {
      const res = await api("/api/import");
      if (res.ok) status = await res.json() as ImportStatusFacts;
      else await res.body?.cancel();
    } catch (err) {
      console.warn("asm: import progress failed", err);
    }
    const view = importBarView(status);
    latest.value = view;
    if (view !== null) shown = view;
    // a full import still walking has nothing to show yet, and will
    if (status?.running && status.kind === "full") {
      setTimeout(tick, everyMs);
      return;
    }
    following = false;
    if (shown !== null && tableShown()) await fetchAllRows();
  };
  void tick();
}

/** Whether this page has the bar (the front page does; a session page does not). */
export function importBarShown(): boolean {
  return document.querySelector("[data-import-bar]") !== null;
}
