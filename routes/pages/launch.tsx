/**
 * `GET /launches/:token`: a launch still waiting for its session, with its window in the page: the agent's own
 * question (a folder it does not trust yet, its first-run screens) is answered there, in the terminal view. Once
 * the session arrives the page goes to it (the view says so, and a launch already matched redirects). An unknown
 * token is a 404.
 * @module
 */
import { islandPage } from "./page.ts";
import type { Route } from "../../lib/server/mod.ts";
import { islandBundle } from "../../lib/ui/mod.ts";
import { launchRow } from "../../lib/ledger/mod.ts";
import { loadAgents } from "../../lib/agents/mod.ts";
import { boardIsOn } from "./sprint.tsx";
import { terminalExtra, TerminalView } from "./terminal_view.tsx";

/** The launch page. */
export const launchPageRoutes: Route[] = [{
  method: "GET",
  pattern: "/launches/:token",
  async handle(_req, ctx, params) {
    const row = launchRow(ctx.ledger, params.token);
    const bundleUrl = (await islandBundle()).url;
    const board = boardIsOn(ctx);
    if (row?.matched_asm_id) {
      return new Response(null, { status: 303, headers: { location: `/sessions/${row.matched_asm_id}` } });
    }
    if (!row) {
      return islandPage({
        title: "asm: no such launch",
        current: "sessions",
        bundleUrl,
        pollMs: 5000,
        board,
        children: <p class="empty">asm has no launch {params.token}.</p>,
      }, 404);
    }
    const display = loadAgents({ asmHome: ctx.asmHome, env: ctx.env }).find((a) =>
      a.name === row.agent
    )?.display ??
      row.agent;
    const over = row.error ? `it failed: ${row.error}` : row.expired ? "it expired without a session" : null;
    return islandPage({
      title: `asm: starting ${display}`,
      current: "sessions",
      bundleUrl,
      pollMs: 5000,
      board,
      extra: over ? undefined : await terminalExtra(),
      children: (
        <article class="detail" data-launch-page={row.token}>
          <h2>
            <span class={`chip chip-${row.agent}`}>{row.agent}</span> {row.name ?? `${display} in ${row.cwd}`}
          </h2>
          <dl>
            <dt>Agent</dt>
            <dd>{display}</dd>
            <dt>Folder</dt>
            <dd>{row.cwd}</dd>
            <dt>Asked at</dt>
            <dd>{row.requested_at.replace("T", " ").slice(0, 19)}</dd>
            <dt>Waiting on</dt>
            <dd data-waiting>{over ?? row.waiting_reason ?? "its first sign of life"}</dd>
          </dl>
          {over ? <p class="empty">This launch has no window any more: {over}.</p> : (
            <>
              <p class="lede">
                The agent has not started its session yet. When it asks something (a folder it does not trust
                yet, its first-run screens), switch on "type into it" and answer it here; the page then goes
                to the session.
              </p>
              <TerminalView launch={row.token} />
            </>
          )}
        </article>
      ),
    });
  },
}];
