/**
 * `GET /sessions/:id`: one session, live and actionable. The header island (islands/session_page.tsx) says what
 * it is and does now and holds its actions; the transcript underneath is drawn on the server (lib/ui/
 * transcript.tsx: prompts, replies as safe Markdown, tool calls with their input and collapsed output), the newest
 * page of it, or the part around a search hit (`?find=<text>&at=<time>`: the hit is marked and scrolled to).
 * The page then follows the transcript through its stream (islands/transcript_follow.ts). An unknown id is a 404.
 * @module
 */
import { islandPage } from "./page.ts";
import type { Route, ServerContext } from "../../lib/server/mod.ts";
import { Island, islandBundle } from "../../lib/ui/mod.ts";
import { Entries, entryContext } from "../../lib/ui/transcript.tsx";
import { type SessionDetail, sessionDetail } from "../../lib/history/mod.ts";
import { headerCells } from "../api/session_detail.ts";
import { loadAgents } from "../../lib/agents/mod.ts";
import { closeoutCommands, closeoutNotes } from "../../lib/launch/mod.ts";
import { Actions } from "../../islands/actions.tsx";
import { SessionHeader, type SessionHeaderProps } from "../../islands/session_page.tsx";
import { boardIsOn } from "./sprint.tsx";
import { terminalExtra, TerminalView } from "./terminal_view.tsx";

/** How often the page polls /api/live (the top bar; its own session comes through its stream). */
const POLL_MS = 5000;

/** A title as a heading: its first line, without Markdown's heading and emphasis marks, at most 120 characters. */
export function headline(text: string): string {
  const first = text.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? text;
  const plain = first.replace(/^#{1,6}\s+/, "").replace(/[*_`]{1,3}([^*_`]+)[*_`]{1,3}/g, "$1");
  return plain.length > 120 ? `${plain.slice(0, 119)}…` : plain;
}

function headerProps(
  ctx: ServerContext,
  detail: SessionDetail,
  agentDisplay: string,
  closeout: string | null,
  note: string | null,
) {
  const s = detail.session as Record<string, string | number | null>;
  const id = String(s.asm_id);
  const { name: _name, last_seen: _seen, ...cells } = headerCells(ctx, id)!;
  const props: SessionHeaderProps = {
    id,
    agent: String(s.agent),
    agentDisplay,
    title: headline(String(s.name || s.title || s.first_message || s.agent_session_id)),
    cells,
    folder: (s.cwd as string | null) ?? null,
    sessionId: String(s.agent_session_id),
    runs: detail.runs.length,
    model: detail.totals.model,
    tokens: { input: detail.totals.input, output: detail.totals.output, cut: detail.cut },
    links: detail.links,
    resumeCommand: detail.resume_command,
    closeoutCommand: closeout,
    closeoutNote: note,
    rulesNote: (s.rules_note as string | null) ?? null,
    hiddenReason: (s.hidden_reason as string | null) ?? null,
    kind: (s.source as string | null) ?? null,
    threadSource: (s.thread_source as string | null) ?? null,
  };
  return props;
}

/** The session page. */
export const sessionDetailPageRoutes: Route[] = [{
  method: "GET",
  pattern: "/sessions/:id",
  heavy: true,
  async handle(req, ctx, params) {
    const url = new URL(req.url);
    const find = url.searchParams.get("find")?.trim() || null;
    const detail = await sessionDetail(ctx, params.id, { find, at: url.searchParams.get("at") });
    const bundleUrl = (await islandBundle()).url;
    const board = boardIsOn(ctx);
    if (!detail) {
      return islandPage({
        title: "asm: no such session",
        current: "sessions",
        bundleUrl,
        pollMs: POLL_MS,
        board,
        children: <p class="empty">asm has no session {params.id}.</p>,
      }, 404);
    }
    const configs = loadAgents({ asmHome: ctx.asmHome, env: ctx.env });
    const closeouts = closeoutCommands(configs);
    const agents = configs.map((a) => ({
      name: a.name,
      display: a.display,
      closeout: closeouts[a.name] ?? null,
    }));
    const agentName = String(detail.session.agent);
    const display = configs.find((a) => a.name === agentName)?.display ?? agentName;
    const header = headerProps(
      ctx,
      detail,
      display,
      closeouts[agentName] ?? null,
      closeoutNotes(configs)[agentName] ?? null,
    );
    const first = detail.entries[0]?.key;
    // its window is shown while the session runs (the view itself refuses a pane asm cannot prove)
    const running = header.cells.status === "live" || header.cells.status === "starting";
    return islandPage({
      title: `asm: ${header.title}`,
      current: "sessions",
      bundleUrl,
      pollMs: POLL_MS,
      board,
      extra: await terminalExtra(),
      children: (
        <article
          class="detail"
          data-detail-for={header.id}
          data-cursor={detail.cursor}
          data-model={header.model ?? ""}
          data-follow={detail.later === 0 ? "1" : "0"}
        >
          <Island name="Actions" component={Actions} props={{ agents, folders: [] }} />
          <Island name="SessionHeader" component={SessionHeader} props={header} />
          {detail.note && <p class="empty">{detail.note}</p>}
          {find && detail.hit === null && (
            <p class="lede">"{find}" is not in the part of the transcript read.</p>
          )}
          <section class="transcript" aria-label="Transcript">
            {/* always there: entries the page drops from its top as the transcript grows come back through it */}
            <button type="button" class="more" data-show-earlier hidden={!(detail.earlier > 0 && first)}>
              Show earlier ({detail.earlier} more)
            </button>
            {detail.cut && detail.earlier === 0 && (
              <p class="lede">
                The oldest part of this transcript is beyond what asm reads (its newest 16 MiB).
              </p>
            )}
            <div class="entries" data-entries>
              <Entries
                entries={detail.entries}
                ctx={entryContext(detail.entries, { highlight: find, hit: detail.hit })}
              />
            </div>
            {detail.later > 0 && (
              <p class="lede">
                {detail.later} newer entries are not shown here.{" "}
                <a href={`/sessions/${header.id}`}>Open the newest</a>
              </p>
            )}
            <span id="newest" />
          </section>
          {
            /* under the newest entries, where a page that follows the transcript is: shown while the session
              runs (a RESUME from this page shows it without a reload) */
          }
          <TerminalView session={header.id} hidden={!running} />
        </article>
      ),
    });
  },
}];
