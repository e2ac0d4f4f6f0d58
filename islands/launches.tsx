/// <reference lib="dom" />
/**
 * Launches still waiting for their session, above the table: "Starting", or "Waiting on you" with the agent's own
 * dialog they wait on (a folder-trust or onboarding screen asm never answers for the person: the link opens the
 * launch's window in the page, where the person answers it). Renders when that
 * list changes, which is a displayed fact changing; never on a quiet poll.
 * @module
 */
import { signal } from "@preact/signals";
// browser code imports modules, not faces: a face also carries server-only code the bundle cannot hold
import type { PendingLaunchView } from "../lib/liveness/live_payload.ts";

/** Props of the strip. */
export interface LaunchesProps extends Record<string, unknown> {
  launches: PendingLaunchView[];
}

const current = signal<PendingLaunchView[] | null>(null);
let lastJson: string | null = null;

/** Called by the poll with the payload's launches; renders only when they changed. */
export function updateLaunches(launches: PendingLaunchView[]): void {
  const text = JSON.stringify(launches);
  if (lastJson === null) lastJson = JSON.stringify(current.peek() ?? []);
  if (text === lastJson) return;
  lastJson = text;
  current.value = launches;
}

/** The strip. */
export function Launches({ launches }: LaunchesProps) {
  if (current.peek() === null && lastJson === null) lastJson = JSON.stringify(launches);
  const shown = current.value ?? launches;
  if (shown.length === 0) return <div class="launches" />;
  return (
    <div class="launches">
      {shown.map((l) => (
        <div key={l.token} class="launch" data-launch-for={l.token}>
          <span class={`chip chip-${l.agent}`}>{l.agent}</span>{" "}
          <strong>{l.waiting_reason ? "Waiting on you" : "Starting"}</strong>
          {l.waiting_reason ? `: ${l.waiting_reason}` : ""} <span class="muted">{l.name ?? l.folder}</span>
          {" "}
          <a href={`/launches/${encodeURIComponent(l.token)}`}>
            {l.waiting_reason ? "answer it here" : "see its window"}
          </a>
        </div>
      ))}
    </div>
  );
}
