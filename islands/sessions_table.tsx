/// <reference lib="dom" />
/**
 * The Sessions table island. Its rows render once; after that the poll writes into cells (signals), and the
 * table renders again only when the order must change (a name changed, or the set of live sessions changed) or
 * when the person filters, sorts or asks for more rows. The server sends the first page only: ten thousand rows
 * are for search and filters, not for scrolling, and hydrating them all would cost seconds.
 * @module
 */
import { batch, computed, signal } from "@preact/signals";
// browser code imports modules, not faces: a face also carries server-only code the bundle cannot hold
import {
  type SessionFacts,
  type SessionView,
  sessionView,
  sortViews,
  withActivity,
} from "../lib/ui/session_view.ts";
import {
  DERIVING,
  DERIVING_TIP,
  NEEDS_ME_FIRST,
  projectText,
  STILL_BEING_READ,
  STILL_BEING_READ_TIP,
  type Tone,
} from "../lib/ui/words.ts";
import { cell, cellValue } from "./live_store.ts";
import { CloseoutCell, RowActions } from "./actions.tsx";
import { api } from "./api.ts";

/** Rows per page: the first page comes with the HTML, "Show more" adds a page. */
export const PAGE = 200;

/** Props of the table. */
export interface SessionsTableProps extends Record<string, unknown> {
  /** the first page, already sorted */
  rows: SessionView[];
  /** how many rows the list has in all */
  total: number;
  /** true when hidden rows are included (`?all=1`) */
  all: boolean;
  /** the filters and sort the page's address asks for (the server renders with them, as the browser will) */
  asked?: TableView;
  /** what the default list hides, by reason (absent with `all`) */
  hidden?: { reason: string; count: number }[];
  /** rows shown with the words "still being read" (their visibility waits for the whole transcript) */
  reading?: number;
  /** each agent's closeout command (agent name -> what runs its closeout skill); absent: it has none */
  closeouts?: Record<string, string>;
  /** why each agent without a closeout command has none (agent name -> one sentence, the cell's tip) */
  closeoutNotes?: Record<string, string>;
}

/** How the person filters and sorts. */
export interface TableView {
  agent: string;
  status: "" | "live" | "ended";
  project: string;
  sort: "" | "agent" | "title" | "project" | "status" | "context" | "turns" | "seen" | "needs";
}

/** Every row known (null until something needed them all), in the default order. */
const known = signal<SessionView[] | null>(null);
/** The header's counts as the list last fetched said them (null: as the server drew the page). */
const counts = signal<{ hidden: { reason: string; count: number }[]; reading: number } | null>(null);
/** How many rows are shown. */
const limit = signal(PAGE);
const SORTS: readonly TableView["sort"][] = [
  "",
  "agent",
  "title",
  "project",
  "status",
  "context",
  "turns",
  "seen",
  "needs",
];

/** Pure: the view a page address asks for (`?agent=&status=&project=&sort=`); anything unknown is the default. */
export function viewOfQuery(query: string): TableView {
  const q = new URLSearchParams(query);
  const status = q.get("status");
  const sort = q.get("sort") as TableView["sort"] | null;
  return {
    agent: q.get("agent") ?? "",
    status: status === "live" || status === "ended" ? status : "",
    project: q.get("project") ?? "",
    sort: sort !== null && SORTS.includes(sort) ? sort : "",
  };
}

/** Pure: the address's query with this view in it (other keys, such as `all`, kept); defaults are left out. */
export function queryOfView(query: string, v: TableView): string {
  const q = new URLSearchParams(query);
  for (const key of ["agent", "status", "project", "sort"] as const) {
    if (v[key]) q.set(key, v[key]);
    else q.delete(key);
  }
  const text = q.toString();
  return text ? `?${text}` : "";
}

// filters and sort live in the address, so a reload (or a link) keeps them
const view = signal<TableView>(
  typeof location === "undefined" ? viewOfQuery("") : viewOfQuery(location.search),
);
/** The rows of the first render (the server's page), before anything replaced them. */
let first: SessionView[] = [];
let total = 0;
let includeHidden = false;
/** The address's filters have been applied (once, on the first render in the browser). */
let addressApplied = false;
/** Each agent's closeout command, as the page was given them. */
let closeoutCommands: Record<string, string> = {};
/** Why each agent without one has no closeout, as the page was given them. */
let closeoutWhy: Record<string, string> = {};
/** The table is on this page (the poll fetches the list again only for a page that shows it). */
let mounted = false;

/** Whether this page shows the sessions table. */
export function tableShown(): boolean {
  return mounted;
}

/** Replaces the rows (a fresh fetch) and re-sorts: the deliberate re-render the poll may cause. */
export function resort(rows: SessionView[]): void {
  known.value = sortViews(rows);
  total = rows.length;
}

/** Pure: the header's counts from a `/api/sessions` body (an older server's body has no `hidden`: none known). */
export function countsOf(
  body: { sessions: { still_being_read?: boolean }[]; hidden?: { reason: string; count: number }[] },
): { hidden: { reason: string; count: number }[]; reading: number } {
  return {
    hidden: body.hidden ?? [],
    // a row still being read is never hidden: the rows of either variant hold every one of them
    reading: body.sessions.filter((r) => r.still_being_read === true).length,
  };
}

/** The rows known to the page, in the default order. */
export function renderedRows(): SessionView[] {
  return known.peek() ?? first;
}

/** Fetches every row of the list (once a filter, a sort or "Show more" needs more than the first page). */
export async function fetchAllRows(): Promise<void> {
  const q = includeHidden ? "?all=1" : "";
  const [sessions, live] = await Promise.all([
    api(`/api/sessions${q}`).then((r) => r.json()),
    api(`/api/live${q}`).then((r) => r.json()),
  ]) as [
    { sessions: SessionFacts[]; hidden?: { reason: string; count: number }[] },
    { sessions: { asm_id: string; activity_word: string | null; activity_reason: string | null }[] },
  ];
  const now = Date.now();
  // one render: the rows and the counts above them change together (a row read whole may leave for the hidden)
  batch(() => {
    counts.value = countsOf(sessions);
    resort(withActivity(sessions.sessions, live.sessions).map((row) => sessionView(row, now)));
  });
}

async function needAll(): Promise<void> {
  if (known.peek() === null && total > first.length) await fetchAllRows();
}

/** Pure: the rows a view shows, before the limit. */
export function applyView(rows: SessionView[], v: TableView): SessionView[] {
  const project = v.project.trim().toLowerCase();
  const out = rows.filter((r) =>
    (!v.agent || r.agent === v.agent) &&
    (!v.status || (v.status === "live") === r.live) &&
    (!project || r.project.toLowerCase().includes(project))
  );
  const by: Record<TableView["sort"], ((a: SessionView, b: SessionView) => number) | null> = {
    "": null,
    agent: (a, b) => a.agent.localeCompare(b.agent),
    title: (a, b) => a.title.localeCompare(b.title),
    // live first (as the default order), then by the status word
    status: (a, b) => Number(b.live) - Number(a.live) || a.statusWord.localeCompare(b.statusWord),
    // the fullest context first; no reading last
    context: (a, b) => (b.contextRank ?? -1) - (a.contextRank ?? -1),
    project: (a, b) => a.project.localeCompare(b.project) || a.title.localeCompare(b.title),
    turns: (a, b) => (Number(b.turns) || 0) - (Number(a.turns) || 0),
    seen: (a, b) => (b.lastSeen ?? "").localeCompare(a.lastSeen ?? ""),
    // what waits on the person first, then what is in trouble, then what works; newest first within each
    needs: (a, b) => urgency(a) - urgency(b) || (b.lastSeen ?? "").localeCompare(a.lastSeen ?? ""),
  };
  const cmp = by[v.sort];
  return cmp ? [...out].sort((a, b) => cmp(a, b) || a.id.localeCompare(b.id)) : out;
}

function hiddenTotal(hidden: { count: number }[]): number {
  return hidden.reduce((n, h) => n + h.count, 0);
}

/** The tooltip of the hidden rows' link: why each kind is hidden. */
function hiddenWhy(hidden: { reason: string }[]): string {
  return hidden.length === 0
    ? "sub-agents, headless runs, threads no person typed in, sessions in asm's own test folders"
    : "hidden by default: " + hidden.map((h) => h.reason).join(", ");
}

/** A row's place in the "needs me first" order: its activity's tone as the poll last wrote it, else its status's. */
function urgency(v: SessionView): number {
  const activity = cellValue("activity-tone", v.id) ?? v.activityTone;
  const tone = activity !== "none" ? activity : cellValue("status-tone", v.id) ?? v.statusTone;
  const i = NEEDS_ME_FIRST.indexOf(tone as Tone);
  return i < 0 ? NEEDS_ME_FIRST.length + (v.live ? 0 : 1) : i;
}

function Row({ v }: { v: SessionView }) {
  // turns, project and closeout say "deriving" while the transcript is read whole (the poll may end it in place)
  const deriving = cell("deriving", v.id, v.deriving ? DERIVING : "");
  const derivingTip = computed(() => deriving.value ? DERIVING_TIP : "");
  const project = cell("project", v.id, projectText(v.project, v.deriving));
  return (
    <tr id={`row-${v.id}`} data-row-for={v.id} class={v.hiddenReason ? "hidden-row" : undefined}>
      <td class="agent">
        <span class={`chip chip-${v.agent}`}>{v.agent}</span>
      </td>
      <td
        class="title"
        data-title-for={v.id}
        // a hidden row says why before its title (drawn by the style, so the title's tooltip stays the title)
        data-hidden={v.hiddenReason ?? undefined}
        // so does a row whose visibility waits for its whole transcript
        data-reading={v.stillBeingRead ? STILL_BEING_READ : undefined}
        title={cell("title", v.id, v.title)}
      >
        <a href={`/sessions/${v.id}`}>{cell("title", v.id, v.title)}</a>
      </td>
      <td
        class="project"
        data-project-for={v.id}
        data-deriving={deriving}
        title={computed(() => deriving.value ? DERIVING_TIP : project.value)}
      >
        {project}
      </td>
      <td
        class="status"
        data-status-for={v.id}
        data-tone={cell("status-tone", v.id, v.statusTone)}
        title={v.hiddenReason
          ? `${v.statusTip}; hidden: ${v.hiddenReason}`
          : v.stillBeingRead
          ? `${v.statusTip}; ${STILL_BEING_READ}: ${STILL_BEING_READ_TIP}`
          : v.statusTip}
      >
        {cell("status", v.id, v.statusWord)}
      </td>
      <td
        class="activity"
        data-activity-for={v.id}
        data-tone={cell("activity-tone", v.id, v.activityTone)}
        title={cell("activity", v.id, v.activity)}
      >
        {cell("activity", v.id, v.activity)}
      </td>
      <td class="num context" data-context-for={v.id} title={cell("context-tip", v.id, v.contextTip)}>
        {cell("context", v.id, v.context)}
      </td>
      <td class="closeout" data-closeout-for={v.id} data-deriving={deriving} title={derivingTip}>
        <CloseoutCell
          id={v.id}
          agent={v.agent}
          title={v.title}
          live={v.live}
          state={cell("closeout", v.id, v.closeout)}
          command={closeoutCommands[v.agent] ?? null}
          note={closeoutWhy[v.agent] ?? null}
        />
      </td>
      <td class="num turns" data-turns-for={v.id} data-deriving={deriving} title={derivingTip}>
        {cell("turns", v.id, v.turns)}
      </td>
      {/* a narrow page shows each row as a two-line card: this empty cell is where the second line starts */}
      <td class="line-break" aria-hidden="true" />
      <td class="age seen" data-seen-for={v.id} data-seen={v.lastSeen ?? ""}>{cell("seen", v.id, v.seen)}</td>
      <td class="acts">
        <RowActions id={v.id} agent={v.agent} title={v.title} live={v.live} pane={v.pane} />
      </td>
    </tr>
  );
}

function setView(patch: Partial<TableView>): void {
  needAll().then(() => {
    view.value = { ...view.peek(), ...patch };
    history.replaceState(
      null,
      "",
      location.pathname + queryOfView(location.search, view.peek()) + location.hash,
    );
  });
}

function SortHeader(
  { label, sort, column, num }: { label: string; sort: TableView["sort"]; column: string; num?: boolean },
) {
  const active = view.value.sort === sort;
  return (
    <th class={num ? `num ${column}` : column} aria-sort={active ? "descending" : undefined}>
      <button type="button" class="th" onClick={() => setView({ sort: active ? "" : sort })}>
        {label}
        {active ? " ▾" : ""}
      </button>
    </th>
  );
}

/** The filters, the table and "Show more". */
export function SessionsTable(
  {
    rows,
    total: count,
    all,
    asked,
    hidden: drawnHidden = [],
    reading: drawnReading = 0,
    closeouts = {},
    closeoutNotes = {},
  }: SessionsTableProps,
) {
  closeoutCommands = closeouts;
  closeoutWhy = closeoutNotes;
  if (typeof document !== "undefined") mounted = true;
  if (known.peek() === null) {
    first = rows;
    total = count;
    includeHidden = all;
  }
  if (!addressApplied && typeof document !== "undefined") {
    // once: an address that asks for a filter or a sort needs every row to apply it
    addressApplied = true;
    const v0 = view.peek();
    if (v0.agent || v0.status || v0.project || v0.sort) queueMicrotask(() => void needAll());
  }
  // the server has no address of its own: it renders the view the request's address asked for
  const v = typeof document === "undefined" && asked ? asked : view.value;
  const filtered = applyView(known.value ?? first, v);
  const shown = filtered.slice(0, limit.value);
  const agents = [...new Set((known.value ?? first).map((r) => r.agent))].sort();
  // the count is of what matches: every row is known once fetched, or when the first page held them all
  const complete = known.value !== null || first.length >= total;
  const matching = complete ? filtered.length : total;
  const more = matching - shown.length;
  // the counts as the rows were last fetched (the server's, until then)
  const hidden = counts.value?.hidden ?? drawnHidden;
  const reading = counts.value?.reading ?? drawnReading;
  return (
    <>
      <div class="filters">
        <select
          aria-label="Agent"
          value={v.agent}
          onChange={(e) => setView({ agent: e.currentTarget.value })}
        >
          <option value="">every agent</option>
          {agents.map((a) => <option key={a} value={a}>{a}</option>)}
        </select>
        <select
          aria-label="Status"
          value={v.status}
          onChange={(e) => setView({ status: e.currentTarget.value as TableView["status"] })}
        >
          <option value="">any status</option>
          <option value="live">live</option>
          <option value="ended">ended</option>
        </select>
        <input
          aria-label="Project"
          placeholder="project"
          value={v.project}
          onInput={(e) => setView({ project: e.currentTarget.value })}
        />
        <label class="needs-first">
          <input
            type="checkbox"
            checked={v.sort === "needs"}
            onChange={(e) => setView({ sort: e.currentTarget.checked ? "needs" : "" })}
          />{" "}
          needs me first
        </label>
        <a href={all ? "/" : "/?all=1"} class="hidden-rows" title={hiddenWhy(hidden)}>
          {all
            ? "hide hidden rows"
            : hidden.length === 0
            ? "show hidden rows"
            : `${hiddenTotal(hidden)} hidden (${
              hidden.map((h) => `${h.count} ${h.reason}`).join(", ")
            }): show`}
        </a>
        {reading > 0 && (
          <span class="reading-count" title={STILL_BEING_READ_TIP}>{reading} {STILL_BEING_READ}</span>
        )}
        <span class="count">{matching} {matching === 1 ? "session" : "sessions"}</span>
      </div>
      <table class="sessions">
        <thead>
          <tr>
            <SortHeader label="Agent" sort="agent" column="agent" />
            <SortHeader label="Title" sort="title" column="title" />
            <SortHeader label="Project" sort="project" column="project" />
            <SortHeader label="Status" sort="status" column="status" />
            <th class="activity">Activity</th>
            <SortHeader label="Context" sort="context" column="context" num />
            <th class="closeout">Closeout</th>
            <SortHeader label="Turns" sort="turns" column="turns" num />
            <th class="line-break" aria-hidden="true" />
            <SortHeader label="Last seen" sort="seen" column="seen" />
            <th class="acts">Actions</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => <Row key={r.id} v={r} />)}
        </tbody>
      </table>
      {shown.length === 0 && (
        <p class="empty">
          {total === 0
            ? "No sessions yet. They appear here as soon as an agent with asm's hook starts (asm install), or " +
              "after the import has read the agents' history."
            : "No session matches these filters."}
        </p>
      )}
      {more > 0 && (
        <button
          type="button"
          class="more"
          onClick={() => needAll().then(() => (limit.value = limit.peek() + PAGE))}
        >
          Show {Math.min(more, PAGE)} more of {more}
        </button>
      )}
    </>
  );
}
