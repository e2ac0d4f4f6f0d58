/**
 * `GET /`: the front page, server-rendered from the ledger: the board's three lanes (routes/pages/sprint.tsx) above
 * the Sessions table; both are islands the poll keeps true; above them, while a full import lists or derives the
 * agents' transcripts, its thin bar. `?all=1` shows hidden rows too.
 * @module
 */
import { islandPage } from "./page.ts";
import type { Route, ServerContext } from "../../lib/server/mod.ts";
import { loadAgents } from "../../lib/agents/mod.ts";
import {
  Island,
  islandBundle,
  type SessionView,
  sessionView,
  sortViews,
  withActivity,
} from "../../lib/ui/mod.ts";
import { glance, glanceText, waitingCount } from "../../lib/ui/glance.ts";
import {
  hiddenCounts,
  liveRows,
  projectCounts,
  sessionViews,
  stillBeingReadCount,
} from "../../lib/ledger/mod.ts";
import { liveViews, pendingLaunchViews } from "../../lib/liveness/mod.ts";
import { PAGE, SessionsTable, viewOfQuery } from "../../islands/sessions_table.tsx";
import { ImportBar } from "../../islands/import_bar.tsx";
import { importBarView } from "../../lib/ui/import_bar.ts";
import { Actions } from "../../islands/actions.tsx";
import { TopBar } from "../../islands/top_bar.tsx";
import { usageRowIsland } from "./usage_row.tsx";
import { Launches } from "../../islands/launches.tsx";
import { SearchBox } from "../../islands/search_box.tsx";
import { boardIsland, boardIsOn } from "./sprint.tsx";
import { closeoutCommands, closeoutNotes } from "../../lib/launch/mod.ts";

/** The top bar's glances and waiting count from the rows the page renders (the poll's own words after). */
function firstGlance(agents: { name: string }[], rows: SessionView[]) {
  const sessions = rows.filter((r) => r.live).map((r) => ({
    asm_id: r.id,
    agent: r.agent,
    title: r.title,
    status: r.status,
    activity: r.activityWord,
    activity_reason: r.activityReason,
  }));
  return {
    first: glance(sessions, agents.map((a) => a.name)).map((g) => ({
      agent: g.agent,
      text: glanceText(g),
      href: g.asm_id ? `#row-${g.asm_id}` : "#",
    })),
    waiting: waitingCount(sessions),
  };
}

/** The project folders the launch dialog suggests: the ledger's, most sessions first, at most 50. */
function knownFolders(ctx: ServerContext): string[] {
  return projectCounts(ctx.ledger)
    .filter((p): p is typeof p & { folder: string } => p.folder !== null)
    .sort((a, b) => b.primary - a.primary || a.folder.localeCompare(b.folder))
    .slice(0, 50)
    .map((p) => p.folder);
}

/** How often the page polls /api/live; a test may shorten it with `?poll_ms=`. */
const POLL_MS = 5000;

/** The front page: the board, then the Sessions table. */
export const sessionsPageRoutes: Route[] = [{
  method: "GET",
  pattern: "/",
  async handle(req, ctx) {
    const url = new URL(req.url);
    const all = url.searchParams.get("all") === "1";
    const pollMs = Math.max(200, Number(url.searchParams.get("poll_ms")) || POLL_MS);
    const now = Date.now();
    // the same two sources the browser reads afterwards (/api/sessions and /api/live), so they never disagree
    const live = liveViews(liveRows(ctx.ledger, { all }), ctx.state.panes);
    const rows = sortViews(
      withActivity(sessionViews(ctx.ledger, { all }), live).map((row) => sessionView(row, now)),
    );
    const bundle = await islandBundle();
    const launches = pendingLaunchViews(ctx.ledger);
    const configs = loadAgents({ asmHome: ctx.asmHome, env: ctx.env });
    const closeouts = closeoutCommands(configs);
    const agents = configs.map((a) => ({
      name: a.name,
      display: a.display,
      closeout: closeouts[a.name] ?? null,
    }));
    const board = boardIsOn(ctx);
    // the board's lanes first, the full session list underneath (the spec's layout)
    const boardSection = await boardIsland(ctx, live.map((s) => s.asm_id));
    return islandPage({
      title: board ? "asm: board" : "asm: sessions",
      current: "sessions",
      board,
      bundleUrl: bundle.url,
      pollMs,
      topBar: <Island name="TopBar" component={TopBar} props={{ agents, ...firstGlance(agents, rows) }} />,
      usageRow: await usageRowIsland(ctx),
      children: (
        <>
          <Island name="Actions" component={Actions} props={{ agents, folders: knownFolders(ctx) }} />
          <Island name="Launches" component={Launches} props={{ launches }} />
          {/* a full import listing or deriving the agents' transcripts: files, MB and time left */}
          <Island
            name="ImportBar"
            component={ImportBar}
            props={{ first: importBarView(ctx.state.imports.status()) }}
          />
          {boardSection}
          <h2 class="section" id="sessions">Sessions</h2>
          <Island name="SearchBox" component={SearchBox} props={{ all }} />
          <Island
            name="SessionsTable"
            component={SessionsTable}
            props={{
              rows: rows.slice(0, PAGE),
              total: rows.length,
              all,
              asked: viewOfQuery(url.search),
              hidden: all ? [] : hiddenCounts(ctx.ledger),
              reading: stillBeingReadCount(ctx.ledger),
              closeouts,
              closeoutNotes: closeoutNotes(configs),
            }}
          />
        </>
      ),
    });
  },
}];
