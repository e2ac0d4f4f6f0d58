/// <reference lib="dom" />
/**
 * The sticky usage row: every agent's real plan usage (never estimated), its reset countdowns recomputed each
 * minute from absolute times, and a stale badge with the reading's age. The server renders the readings it has
 * ready; the row re-reads `/api/usage` once a minute and renders again only when a reading changed.
 * @module
 */
import { signal } from "@preact/signals";
// browser code imports modules, not faces: a face also carries server-only code the bundle cannot hold
import type { UsageReading } from "../lib/usage/reading.ts";
import { noteParts, readingNote, windowViews } from "../lib/ui/usage_view.ts";
import { api } from "./api.ts";

/** Props of the usage row. */
export interface UsageRowProps extends Record<string, unknown> {
  /** null: the server had no reading ready in time; the row fetches them */
  readings: UsageReading[] | null;
  /** the server's clock when it rendered, for the countdowns of the first paint */
  now: number;
}

const latest = signal<{ readings: UsageReading[]; now: number } | null>(null);

/** The row. */
export function UsageRow({ readings, now }: UsageRowProps) {
  const shown = latest.value ?? (readings ? { readings, now } : null);
  if (!shown) return <div class="usage">reading plan usage…</div>;
  return (
    <div class="usage">
      {shown.readings.map((r) => (
        <div key={r.agent} class={`usage-agent state-${r.state}`} data-usage-for={r.agent}>
          <span class="usage-name">{r.display}</span>
          {windowViews(r, shown.now).map((w) => (
            <span key={w.name} class="usage-window" title={`${w.name}: ${w.text}, ${w.reset}`}>
              {w.name}{" "}
              <span class="bar">
                <span class={`fill-${w.fill}`} style={{ width: `${w.percent ?? 0}%` }} />
              </span>{" "}
              {w.text}
              <span class="reset">{w.reset}</span>
            </span>
          ))}
          {r.windows.length === 0 && r.state === "ok" && <span class="usage-note">no limits reported</span>}
          {readingNote(r) && <Note text={readingNote(r)} stale={r.state === "stale"} />}
        </div>
      ))}
    </div>
  );
}

/** A reading's note: short in the row (no file paths, human times), all of it one click away. */
function Note({ text, stale }: { text: string; stale: boolean }) {
  const { short, detail } = noteParts(text);
  const cls = stale ? "usage-note stale" : "usage-note";
  if (detail === null) return <span class={cls}>{short}</span>;
  return (
    <details class={cls}>
      <summary>{short}</summary>
      <span class="usage-detail">{detail}</span>
    </details>
  );
}

/**
 * Re-reads usage once a minute and renders the row: its countdowns move with the minute, so this is a displayed
 * fact changing, not a poll storm (and never on the 5-second live poll).
 */
export function startUsagePoll(initial: UsageReading[] | null): void {
  const tick = async () => {
    try {
      const body = await (await api("/api/usage")).json() as {
        readings: UsageReading[];
      };
      latest.value = { readings: body.readings, now: Date.now() };
    } catch (err) {
      console.warn("asm: usage poll failed", err);
    }
    setTimeout(tick, 60_000);
  };
  setTimeout(tick, initial ? 60_000 : 0);
}
