/**
 * The Sessions table island. Its rows render once; after that the poll writes into cells (signals), and the
 * table renders again only when the order must change: a name changed, or the set of live sessions changed.
 * @module
 */
import { signal } from "@preact/signals";
import type { SessionView } from "../lib/ui/session_view.ts";
import { sortViews } from "../lib/ui/session_view.ts";
import { cell } from "./live_store.ts";

/** Props of the table. */
export interface SessionsTableProps extends Record<string, unknown> {
  rows: SessionView[];
}

/** The rows the table shows, in order; replaced (and so re-rendered) only by `resort`. */
const current = signal<SessionView[] | null>(null);

/** Replaces the rows and re-sorts: the one deliberate re-render. */
export function resort(rows: SessionView[]): void {
  current.value = sortViews(rows);
}

/** The rows as last rendered. */
export function renderedRows(): SessionView[] {
  return current.peek() ?? [];
}

function Row({ v }: { v: SessionView }) {
  return (
    <tr data-row-for={v.id} class={v.hiddenReason ? "hidden-row" : undefined}>
      <td>
        <span class={`chip chip-${v.agent}`}>{v.agent}</span>
      </td>
      <td class="title" data-title-for={v.id} title={cell("title", v.id, v.title)}>
        {cell("title", v.id, v.title)}
      </td>
      <td class="project" title={v.project}>{v.project}</td>
      <td class="status" data-status-for={v.id} title={v.statusTip}>{cell("status", v.id, v.statusWord)}</td>
      <td class="activity" data-activity-for={v.id} title={cell("activity", v.id, v.activity)}>
        {cell("activity", v.id, v.activity)}
      </td>
      <td class="num" data-context-for={v.id}>{cell("context", v.id, v.context)}</td>
      <td data-closeout-for={v.id}>{v.closeout}</td>
      <td class="num">{v.turns}</td>
      <td class="age" data-seen-for={v.id} data-seen={v.lastSeen ?? ""}>{cell("seen", v.id, v.seen)}</td>
    </tr>
  );
}

/** The table. */
export function SessionsTable({ rows }: SessionsTableProps) {
  const shown = current.value ?? sortViews(rows);
  return (
    <table class="sessions">
      <colgroup>
        <col class="agent" />
        <col class="title" />
        <col class="project" />
        <col class="status" />
        <col class="activity" />
        <col class="context" />
        <col class="closeout" />
        <col class="turns" />
        <col class="seen" />
      </colgroup>
      <thead>
        <tr>
          <th>Agent</th>
          <th>Title</th>
          <th>Project</th>
          <th>Status</th>
          <th>Activity</th>
          <th class="num">Context</th>
          <th>Closeout</th>
          <th class="num">Turns</th>
          <th>Last seen</th>
        </tr>
      </thead>
      <tbody>
        {shown.map((v) => <Row key={v.id} v={v} />)}
      </tbody>
    </table>
  );
}
