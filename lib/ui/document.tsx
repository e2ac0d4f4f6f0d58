/**
 * The HTML document every page shares: the style (light and dark, dense, no layout shift on poll), the tab bar,
 * and the island script. Server-rendered with preact-render-to-string.
 * @module
 */
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import { TRANSCRIPT_CSS } from "./markdown.tsx";

/** The page's style. Numbers are tabular so a changing count never moves its neighbours. */
export const STYLE = `
:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1d1d1b; --muted: #6b6b66; --line: #e4e3df; --accent: #2f6f5e;
  --live: #2f6f5e; --warn: #a15c00; --alarm: #b3261e; --chip: #ecebe7; font: 14px/1.4 system-ui, sans-serif; }
@media (prefers-color-scheme: dark) { :root { --bg: #181816; --fg: #e9e8e4; --muted: #9a9993; --line: #2e2d2a;
  --accent: #6fc1a6; --live: #6fc1a6; --warn: #e0a352; --alarm: #ff8a80; --chip: #2a2926; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
header { position: sticky; top: 0; background: var(--bg); border-bottom: 1px solid var(--line); padding: 8px 16px;
  display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: baseline; z-index: 1; }
header h1 { font-size: 15px; margin: 0; }
nav a { color: var(--muted); margin-right: 12px; text-decoration: none; }
nav a[aria-current=page] { color: var(--fg); font-weight: 600; }
main { padding: 8px 16px 32px; }
table.sessions { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; table-layout: fixed; }
table.sessions th { text-align: left; font-weight: 600; color: var(--muted); border-bottom: 1px solid var(--line);
  padding: 4px 6px; }
table.sessions td { border-bottom: 1px solid var(--line); padding: 4px 6px; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
/* the columns: Title takes what the others leave; below 1280 px Closeout and Turns go, below 1024 px Context, so
   Title keeps at least 160 px; below 900 px each row is a two-line card */
table.sessions th.agent { width: 72px; } table.sessions th.project { width: 12%; }
table.sessions th.status { width: 110px; } table.sessions th.activity { width: 16%; }
table.sessions th.context { width: 96px; } table.sessions th.closeout { width: 88px; }
table.sessions th.turns { width: 64px; } table.sessions th.seen { width: 88px; }
table.sessions th.acts { width: 200px; }
table.sessions .line-break { display: none; }
@media (max-width: 1279px) {
  table.sessions .closeout, table.sessions .turns { display: none; }
  table.sessions th.project { width: 110px; } table.sessions th.activity { width: 140px; }
  table.sessions th.acts { width: 180px; } table.sessions td.acts { white-space: normal; }
  table.sessions td.acts .row-actions { flex-wrap: wrap; white-space: normal; }
}
@media (max-width: 1023px) {
  table.sessions .context { display: none; }
  table.sessions th.acts { width: 150px; }
}
@media (max-width: 899px) {
  table.sessions, table.sessions tbody { display: block; width: 100%; }
  table.sessions thead { display: none; }
  table.sessions tr { display: flex; flex-wrap: wrap; align-items: baseline; column-gap: 8px; row-gap: 2px;
    padding: 6px 0; border-bottom: 1px solid var(--line); }
  table.sessions td { display: block; border: 0; padding: 0; min-width: 0; }
  table.sessions td.agent { order: 1; } table.sessions td.title { order: 2; flex: 1 1 0; }
  table.sessions td.status { order: 3; max-width: 45%; }
  table.sessions td.line-break { display: block; order: 4; flex-basis: 100%; height: 0; }
  table.sessions td.project { order: 5; max-width: 35%; }
  table.sessions td.activity { order: 6; flex: 1 1 120px; color: var(--muted); }
  table.sessions td.seen { order: 7; color: var(--muted); } table.sessions td.acts { order: 8; }
}
td.num, th.num { text-align: right; }
tr.hidden-row { opacity: .6; }
.chip { background: var(--chip); border-radius: 4px; padding: 1px 6px; font-size: 12px; }
td.status { font-weight: 600; }
/* states across the room: each tone a colour, a shape and its word (lib/ui/words.ts Tone) */
[data-tone]::before { display: inline-block; width: 1.1em; font-weight: 400; }
[data-tone=waiting] { color: var(--warn); font-weight: 700; } [data-tone=waiting]::before { content: "\\25B2"; }
[data-tone=failed] { color: var(--alarm); font-weight: 700; } [data-tone=failed]::before { content: "\\2716"; }
[data-tone=attention] { color: var(--alarm); font-weight: 700; } [data-tone=attention]::before { content: "\\25C6"; }
[data-tone=retrying] { color: var(--warn); } [data-tone=retrying]::before { content: "\\21BB"; }
[data-tone=working] { color: var(--live); font-weight: 600; } [data-tone=working]::before { content: "\\25CF"; }
[data-tone=starting] { color: var(--muted); } [data-tone=starting]::before { content: "\\25CC"; }
[data-tone=idle] { color: var(--muted); } [data-tone=idle]::before { content: "\\25CB"; }
[data-tone=shell] { color: var(--muted); } [data-tone=shell]::before { content: "\\25B8"; }
[data-tone=unsure] { color: var(--warn); } [data-tone=unsure]::before { content: "?"; }
[data-tone=live] { color: var(--live); } [data-tone=live]::before { content: "\\25CF"; }
[data-tone=ended] { color: var(--muted); font-weight: 400; } [data-tone=ended]::before { content: "\\25A0"; font-size: .8em; }
[data-tone=none]::before { content: none; }
.empty { color: var(--muted); padding: 24px 0; }
.glance { display: flex; flex-wrap: wrap; gap: 2px 14px; align-items: baseline; margin-left: auto; font-size: 13px;
  min-width: 0; max-width: 100%; }
.glance-agent { color: var(--fg); text-decoration: none; max-width: 26ch; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
tr.flash td { background: var(--chip); }
.filters { display: flex; gap: 8px; align-items: center; margin: 4px 0 6px; }
.filters select, .filters input { font: inherit; font-size: 13px; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 4px; padding: 2px 4px; }
.filters .count { color: var(--muted); margin-left: auto; }
th button.th { all: unset; cursor: pointer; font-weight: 600; color: var(--muted); }
th button.th:focus-visible { outline: 2px solid var(--accent); }
td.title a { color: inherit; text-decoration: none; } td.title a:hover { text-decoration: underline; }
td.title[data-hidden]::before { content: "hidden: " attr(data-hidden); font-size: 11px; color: var(--muted);
  border: 1px solid var(--line); border-radius: 3px; padding: 0 4px; margin-right: 6px; }
a.hidden-rows { color: var(--muted); }
/* the cold import's first phase: a cell being derived says so quietly, a row still being read says so before its
   title (lib/ui/words.ts DERIVING, STILL_BEING_READ) */
[data-deriving=deriving], span.deriving { color: var(--muted); font-style: italic; font-size: 12px; }
td.title[data-reading]::before { content: attr(data-reading); font-size: 11px; color: var(--muted);
  border: 1px dashed var(--line); border-radius: 3px; padding: 0 4px; margin-right: 6px; }
.reading-count { color: var(--muted); }
.import-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 10px; margin: 2px 0 6px; font-size: 12px;
  color: var(--muted); font-variant-numeric: tabular-nums; }
.import-bar[hidden] { display: none; }
.import-bar progress { flex: 1 1 100%; width: 100%; height: 4px; appearance: none; border: 0; border-radius: 2px;
  background: var(--chip); }
.import-bar progress::-webkit-progress-bar { background: var(--chip); border-radius: 2px; }
.import-bar progress::-webkit-progress-value { background: var(--accent); border-radius: 2px; }
.import-bar progress::-moz-progress-bar { background: var(--accent); }
.import-text { min-width: 0; overflow-wrap: anywhere; }
a.tile { color: inherit; text-decoration: none; display: block; } a.tile:hover, a.tile:focus-visible {
  border-color: var(--accent); }
.year svg { max-width: 100%; height: auto; } .year text { font-size: 9px; fill: var(--muted); }
.year rect[data-day]:hover { stroke: var(--fg); stroke-width: 1; }
.legend { display: flex; gap: 3px; align-items: center; font-size: 11px; color: var(--muted); margin: 2px 0 8px; }
.legend i { display: inline-block; width: 9px; height: 9px; border-radius: 2px; }
.legend .shade-0 { background: var(--chip); } .legend .shade-1 { background: #b7dccf; }
.legend .shade-2 { background: #7fbfa8; } .legend .shade-3 { background: #4a9c80; } .legend .shade-4 { background: #2f6f5e; }
button.more { margin: 8px 0; }
.usage-bar { position: sticky; top: 37px; background: var(--bg); border-bottom: 1px solid var(--line); z-index: 1;
  padding: 4px 16px; font-size: 12px; color: var(--muted); }
.usage { display: flex; flex-wrap: wrap; gap: 6px 20px; min-height: 18px; }
.usage-agent { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.usage-name { color: var(--fg); font-weight: 600; }
.usage-window { display: inline-flex; gap: 4px; align-items: center; font-variant-numeric: tabular-nums; }
.bar { display: inline-block; width: 60px; height: 6px; background: var(--chip); border-radius: 3px; overflow: hidden; }
.bar > span { display: block; height: 100%; background: var(--accent); }
.bar > span.fill-warn { background: var(--warn); } .bar > span.fill-near { background: var(--alarm); }
details.usage-note { display: inline-block; } details.usage-note summary { cursor: pointer; }
.usage-detail { display: block; max-width: 70ch; overflow-wrap: anywhere; color: var(--muted); }
.reset { color: var(--muted); } .usage-note.stale { color: var(--warn); }
.lede { color: var(--muted); max-width: 80ch; }
.detail dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 16px; }
.detail dt { color: var(--muted); } .detail dd { margin: 0; overflow-wrap: anywhere; }
.session-head h2 { margin: 8px 0 4px; overflow-wrap: anywhere; } .session-actions { margin: 4px 0; }
.session-link { margin-right: 12px; } .resume-command code { overflow-wrap: anywhere; }
.entries { display: grid; gap: 8px; max-width: 110ch; min-width: 0; } .entry { display: grid; gap: 6px; min-width: 0; }
.entry:empty { display: none; } .entry.hit { outline: 2px solid var(--warn); outline-offset: 3px; border-radius: 2px; }
/* the sticky header must not cover the entry a link scrolls to */
.entry { scroll-margin-top: 8em; }
@media (min-width: 1024px) { .session-head dl { grid-template-columns: max-content minmax(0, 1fr) max-content
  minmax(0, 1fr); } }
.msg { min-width: 0; } .msg pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0 0; font: inherit; }
.msg .who { color: var(--muted); font-size: 12px; } .msg-prompt { border-left: 3px solid var(--accent); padding-left: 8px; }
details.msg summary { color: var(--muted); cursor: pointer; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
details.msg pre { color: var(--muted); font-size: 12px; }
.msg-tool { border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px; }
.tool-head { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: baseline; min-width: 0; }
.tool-name { font-weight: 600; } .tool-path { overflow-wrap: anywhere; } .tool-summary { color: var(--muted); }
pre.tool-cmd { font-family: ui-monospace, monospace; font-size: 12px; background: var(--chip); padding: 2px 6px;
  border-radius: 4px; }
.tool-output summary, .tool-input summary { color: var(--muted); cursor: pointer; font-size: 12px; }
.tool-output pre, .tool-input pre { font-family: ui-monospace, monospace; font-size: 12px; max-height: 40em;
  overflow: auto; } .tool-output.failed summary { color: var(--alarm); }
.closeout-button { font: inherit; font-size: 12px; padding: 0 6px; } .closed-out { color: var(--live); }
.terminal { margin: 8px 0 16px; max-width: 100%; } .terminal-bar { display: flex; flex-wrap: wrap; gap: 4px 12px;
  align-items: center; margin-bottom: 4px; }
.terminal-screen { max-width: 100%; min-height: 24em; overflow-x: auto; background: #000; border-radius: 4px;
  padding: 4px; }
.terminal .attach code { overflow-wrap: anywhere; }
.search form { display: flex; gap: 8px; align-items: center; margin: 0 0 6px; }
.search input[type=search] { font: inherit; width: 28ch; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 4px; padding: 2px 6px; }
.results { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 0 0 10px; }
.result { padding: 4px 0; border-bottom: 1px solid var(--line); } .result:last-child { border-bottom: 0; }
.result a { color: inherit; text-decoration: none; } .muted { color: var(--muted); }
.snippet { font-size: 12px; color: var(--fg); overflow-wrap: anywhere; padding-left: 8px; }
.launches { display: grid; gap: 2px; margin: 0 0 6px; } .launch .muted { color: var(--muted); }
.tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 8px; }
.tile { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; min-width: 0; }
.tile-name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tile-counts { display: flex; gap: 12px; color: var(--muted); font-variant-numeric: tabular-nums; }
.heat h2 { font-size: 14px; margin: 16px 0 4px; } .year { margin: 4px 0 10px; } .year figcaption { color: var(--muted); }
rect.shade-0 { fill: var(--chip); } rect.shade-1 { fill: #b7dccf; } rect.shade-2 { fill: #7fbfa8; }
rect.shade-3 { fill: #4a9c80; } rect.shade-4 { fill: #2f6f5e; }
button { font: inherit; font-size: 12px; border: 1px solid var(--line); background: var(--chip); color: var(--fg);
  border-radius: 4px; padding: 1px 6px; cursor: pointer; }
button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible {
  outline: 2px solid var(--accent); outline-offset: 1px; }
button.primary { background: var(--accent); color: var(--bg); border-color: var(--accent); }
.row-actions { display: inline-flex; gap: 4px; white-space: nowrap; }
.actions { display: flex; gap: 12px; align-items: center; margin: 4px 0 8px; min-height: 28px; }
.notice { color: var(--muted); } .notice.error { color: var(--warn); }
.dialog { position: fixed; inset: 0; background: rgba(0,0,0,.35); display: flex; align-items: center;
  justify-content: center; z-index: 2; }
.dialog form { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 16px; width: 460px;
  max-width: calc(100vw - 16px); display: grid; gap: 8px; overflow-wrap: anywhere; }
.dialog h2 { font-size: 15px; margin: 0 0 4px; } .dialog label { display: grid; gap: 2px; color: var(--muted); }
.dialog input, .dialog select, .dialog textarea { font: inherit; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 4px; padding: 4px; }
.dialog footer { display: flex; justify-content: flex-end; gap: 8px; } .dialog .why { color: var(--muted); margin: 0; }
.dialog-error { margin: 0; color: var(--alarm); font-weight: 600; }
table.sessions tr.selected td { background: var(--chip); } table.sessions tr.selected { outline: 2px solid var(--accent); }
.shortcuts { position: fixed; right: 16px; bottom: 16px; background: var(--bg); border: 1px solid var(--line);
  border-radius: 6px; padding: 10px 14px; z-index: 3; }
.shortcuts dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
.shortcuts dt { font-family: ui-monospace, monospace; } .shortcuts dd { margin: 0; color: var(--muted); }
.key-banner { margin: 0; padding: 6px 16px; background: var(--chip); color: var(--warn); border-bottom: 1px solid var(--line); }
.health-banner { margin: 0; padding: 6px 16px; background: var(--chip); color: var(--warn); font-weight: 600;
  border-bottom: 1px solid var(--line); }
.refusal { max-width: 70ch; padding: 24px 16px; }
h2.section { font-size: 14px; margin: 16px 0 4px; scroll-margin-top: 120px; }
.board { margin: 4px 0 8px; }
.board-where { margin: 0 0 6px; font-size: 12px; color: var(--muted); overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
.board-problem { margin: 0 0 6px; color: var(--warn); font-weight: 600; overflow-wrap: anywhere; }
.board-stale { margin: 0 0 6px; color: var(--muted); font-size: 12px; }
.board-empty { max-width: 90ch; } .board-empty p { margin: 0 0 6px; overflow-wrap: anywhere; }
.board-empty pre { margin: 0 0 10px; padding: 8px 10px; background: var(--chip); border-radius: 6px; font-size: 12px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.lanes { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 10px; align-items: start; }
@media (max-width: 760px) {
  .lanes { grid-template-columns: minmax(0, 1fr); }
  /* a phone: the header wraps, the tall usage row scrolls away, and the table scrolls sideways in its own box
     rather than squeezing its title column to nothing */
  header { flex-wrap: wrap; } .glance { margin-left: 0; flex-wrap: wrap; } .usage-bar { position: static; }
  .filters { flex-wrap: wrap; }
}
.lane { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px 8px; min-width: 0; }
.lane h2 { display: flex; justify-content: space-between; font-size: 12px; letter-spacing: .04em; color: var(--muted);
  margin: 0 0 6px; }
.lane-count { font-variant-numeric: tabular-nums; }
.lane-cards { display: grid; gap: 6px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; min-width: 0; display: grid; gap: 4px; }
.card.dropped { border-style: dashed; }
.card-title { font-weight: 600; overflow-wrap: anywhere; }
.card-chips { display: flex; flex-wrap: wrap; gap: 4px 6px; align-items: baseline; min-width: 0; }
.card-chips .chip { max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.chip-dropped { color: var(--warn); }
.card-state { min-width: 0; overflow-wrap: anywhere; font-size: 12px; }
.card-status { font-weight: 600; color: inherit; text-decoration: none; } .card-unsure { color: var(--warn); }
.prompt { min-width: 0; font-size: 12px; color: var(--muted); }
.prompt summary { cursor: pointer; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.prompt[open] summary { white-space: normal; overflow-wrap: anywhere; }
.prompt p { margin: 2px 0 0 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.card-buttons { display: flex; flex-wrap: wrap; gap: 4px; }
.card-buttons button.refused { opacity: .55; cursor: help; }
.card-notice { margin: 0; font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
.card-notice:empty { display: none; } .card-notice.error { color: var(--warn); }
.not-on-plan { margin: 8px 0 0; } .not-on-plan h2 { font-size: 12px; color: var(--muted); margin: 0 0 4px; }
.not-on-plan ul { margin: 0; padding: 0; list-style: none; display: grid; gap: 2px; }
.not-on-plan li { overflow-wrap: anywhere; } .not-on-plan a { color: inherit; }
.doctor h2 { font-size: 16px; margin: 8px 0 4px; } .doctor[data-doctor-ok=false] h2 { color: var(--alarm); }
.doctor-group h3 { font-size: 13px; margin: 14px 0 4px; color: var(--muted); }
.doctor-group ul { margin: 0; padding: 0; list-style: none; display: grid; gap: 4px; max-width: 110ch; }
.doctor-group li { display: grid; grid-template-columns: 5.5em 1fr; gap: 8px; overflow-wrap: anywhere; }
.doctor-severity { color: var(--muted); font-variant: small-caps; }
[data-severity=broken] .doctor-severity { color: var(--alarm); font-weight: 700; }
[data-severity=warning] .doctor-severity { color: var(--warn); font-weight: 600; }
[data-severity=ok] .doctor-severity { color: var(--live); }
.doctor-fix { color: var(--muted); } .doctor code { overflow-wrap: anywhere; }
.health-banner a { color: inherit; margin-left: 8px; }
nav a[data-doctor-broken] { color: var(--alarm); font-weight: 600; }
${TRANSCRIPT_CSS}
`;

/** Props of the document. */
export interface DocumentProps {
  title: string;
  /** the tab this page is */
  current: "sessions" | "projects" | "activity" | "doctor";
  bundleUrl: string;
  pollMs: number;
  children: ComponentChildren;
  /** the at-a-glance bar in the header (an island) */
  topBar?: ComponentChildren;
  /** the sticky usage row under the header (an island) */
  usageRow?: ComponentChildren;
  /** the server has a board: the front tab (`/`) reads "Board" (the board's lanes above the sessions) */
  board?: boolean;
  /** a part's own script and style beside the islands' (the terminal view's) */
  extra?: { script: string; style: string };
}

function Document(
  { title, current, bundleUrl, pollMs, children, topBar, usageRow, board, extra }: DocumentProps,
) {
  const tab = (id: DocumentProps["current"], href: string, label: string) => (
    <a href={href} aria-current={current === id ? "page" : undefined}>{label}</a>
  );
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        {/* an empty icon until the top bar draws its badge: no request for /favicon.ico, no 404 in the console */}
        <link rel="icon" href="data:," />
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
        {extra && <style dangerouslySetInnerHTML={{ __html: extra.style }} />}
      </head>
      <body data-poll-ms={String(pollMs)}>
        <header>
          <h1>asm</h1>
          <nav>
            {tab("sessions", "/", board ? "Board" : "Sessions")}
            {board && <a href="/#sessions">Sessions</a>}
            {tab("projects", "/projects", "Projects")}
            {tab("activity", "/activity", "Activity")}
            {/* islands/health_banner.ts writes the doctor's count of broken findings into it */}
            <a
              href="/doctor"
              data-doctor-tab
              aria-current={current === "doctor" ? "page" : undefined}
            >
              Doctor
            </a>
          </nav>
          {topBar}
        </header>
        <p class="key-banner" data-key-banner hidden></p>
        {/* one slot for asm's own health (islands/health_banner.ts fills it): hidden until something is wrong */}
        <p class="health-banner" data-health-banner role="alert" hidden></p>
        {usageRow && <div class="usage-bar">{usageRow}</div>}
        <main>{children}</main>
        <script type="module" src={bundleUrl}></script>
        {extra && <script type="module" src={extra.script}></script>}
      </body>
    </html>
  );
}

/** Headers every page carries: never cached, never framed, its script only from here, no Referer sent on. */
function pageHeaders(): HeadersInit {
  return {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "content-security-policy":
      // img-src data: is the favicon badge the page draws on a canvas (islands/top_bar.tsx)
      "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; img-src 'self' data:; " +
      "frame-ancestors 'none'",
  };
}

/**
 * A full HTML response: the document. No cookie: the page gets asm's key once, by trading a one-time code
 * (lib/server/codes.ts), and sends it as a header.
 */
export function pageResponse(props: DocumentProps, status = 200): Response {
  const html = "<!doctype html>" + renderToString(<Document {...props} />);
  return new Response(html, { status, headers: pageHeaders() });
}

/**
 * The shell of a page, for a browser whose user the platform cannot name: the style and the script, no data.
 * The script trades a code for the key if the address has one, then loads the real page with the key.
 */
export function shellPage(bundleUrl: string): Response {
  const html = "<!doctype html>" + renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>asm</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body data-shell="1">
        <header>
          <h1>asm</h1>
        </header>
        <p class="key-banner" data-key-banner hidden></p>
        <main>
          <p class="empty">Loading…</p>
        </main>
        <script type="module" src={bundleUrl}></script>
      </body>
    </html>,
  );
  return new Response(html, { headers: pageHeaders() });
}

/** A refused page: the sentence why, and nothing else. */
export function refusalPage(status: number, message: string): Response {
  const html = "<!doctype html>" + renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>asm: refused</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>
        <p class="refusal">{message}</p>
      </body>
    </html>,
  );
  return new Response(html, { status, headers: pageHeaders() });
}
