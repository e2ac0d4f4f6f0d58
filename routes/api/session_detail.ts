/**
 * One session's detail and its transcript (lib/history/detail.ts, follow.ts):
 *
 * - `GET /api/sessions/:id` (`?before=<entry key>`, `?find=<text>&at=<time>`): the row, its runs, launches and
 *   links, and the window of its transcript's entries asked for, with its token totals;
 * - `GET /api/sessions/:id/entries?before=<entry key>`: the page before that entry, drawn (the page's "Show
 *   earlier");
 * - `GET /api/sessions/:id/stream?cursor=<cursor>`: the session page's follower, one JSON object per line, as long
 *   as the page stays: `{entries: [{key, html}], cursor, totals?}` as the transcript grows, `{state}` when the
 *   session's cells move (status, activity, context, closeout, ...), `{reload: true}` when a file was rewritten,
 *   and `{}` now and then so a page that went away is noticed. Authenticated like every API call (the page reads
 *   it with a streamed `fetch` carrying the key).
 * @module
 */
import { render } from "preact-render-to-string";
import { json, jsonError, type Route, type ServerContext } from "../../lib/server/mod.ts";
import {
  cursorText,
  parseCursor,
  sessionDetail,
  successorsOf,
  TranscriptFollower,
} from "../../lib/history/mod.ts";
import { sessionCells } from "../../lib/ledger/mod.ts";
import { activityWord } from "../../lib/liveness/mod.ts";
import { Entries, entryContext } from "../../lib/ui/transcript.tsx";
import type { TranscriptEntry } from "../../lib/ui/transcript_view.ts";

/** The most streams one server follows at once (each costs a stat of the session's files per tick). */
export const MAX_STREAMS = 32;
/** How often a stream looks at the transcript and the session's cells, unless the page asks otherwise. */
const STREAM_EVERY_MS = 1000;
/** A stream says something at least this often, so a page that went away is noticed. */
const HEARTBEAT_MS = 15_000;

function windowOfQuery(url: URL) {
  const q = url.searchParams;
  return { before: q.get("before"), find: q.get("find"), at: q.get("at") };
}

/** Entries drawn to HTML, each with its key (the page appends it, or replaces the entry of that key). */
function drawn(
  entries: readonly TranscriptEntry[],
  shownCalls: Set<string>,
): { key: string; html: string }[] {
  const ctx = entryContext(entries, { shownCalls });
  return entries.map((e) => ({ key: e.key, html: render(Entries({ entries: [e], ctx })) }));
}

/** The session's cells as its page shows them (the page's first draw and its stream say the same). */
export function headerCells(ctx: ServerContext, asmId: string) {
  const row = sessionCells(ctx.ledger, asmId);
  if (!row) return null;
  return {
    status: row.status,
    end_reason: row.end_reason,
    unsure_reason: row.unsure_reason,
    name: row.name,
    activity_word: row.status === "live" ? activityWord(row.activity) : null,
    activity_reason: row.status === "live" ? row.activity_reason : null,
    context_tokens: row.context_tokens,
    context_window: row.context_window,
    closeout: row.closeout,
    turns: row.turns,
    project: row.project,
    deriving: row.deriving,
    last_seen: row.last_seen,
    pane: ctx.state.panes.has(asmId),
  };
}

/** What the stream says of the session: its cells, the sessions that continue it, its runs. */
function stateOf(ctx: ServerContext, asmId: string): Record<string, unknown> | null {
  const cells = headerCells(ctx, asmId);
  if (!cells) return null;
  return { ...cells, continued_by: successorsOf(ctx.ledger, asmId), runs: ctx.ledger.runs(asmId).length };
}

function stream(ctx: ServerContext, asmId: string, follower: TranscriptFollower, everyMs: number): Response {
  const encoder = new TextEncoder();
  const closing = ctx.state.streams.closing.signal;
  const shownCalls = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let done = false;
  let lastState = "";
  let lastSaid = Date.now();
  const finish = () => {
    if (done) return;
    done = true;
    ctx.state.streams.open--;
    if (timer !== null) clearTimeout(timer);
    closing.removeEventListener("abort", onClosing);
  };
  let controller: ReadableStreamDefaultController<Uint8Array>;
  const say = (message: unknown) => {
    controller.enqueue(encoder.encode(JSON.stringify(message) + "\n"));
    lastSaid = Date.now();
  };
  const onClosing = () => {
    finish();
    try {
      controller.close();
    } catch { /* already closed */ }
  };
  const tick = async () => {
    timer = null;
    if (done) return;
    // a page that is not reading what it was sent gets nothing more, and the transcript is not read on for it:
    // what it has not taken stays on disk, not in memory
    if ((controller.desiredSize ?? 1) <= 0) {
      timer = setTimeout(tick, everyMs);
      return;
    }
    try {
      const state = stateOf(ctx, asmId);
      const stateText = JSON.stringify(state);
      if (stateText !== lastState) {
        lastState = stateText;
        say({ state });
      }
      const step = await follower.next();
      if (done) return;
      if (step.reload) {
        say({ reload: true });
        onClosing();
        return;
      }
      if (step.entries.length > 0 || step.totals) {
        say({
          entries: drawn(step.entries, shownCalls),
          cursor: cursorText(follower.cursor()),
          ...(step.totals ? { totals: step.totals } : {}),
        });
      } else if (Date.now() - lastSaid >= HEARTBEAT_MS) {
        say({});
      }
    } catch (err) {
      // the page went away (the stream is closed) or a read failed: a page reconnects from its cursor
      if (!done) ctx.log({ what: "stream failed", asm_id: asmId, error: String(err) });
      onClosing();
      return;
    }
    if (!done) timer = setTimeout(tick, everyMs);
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      closing.addEventListener("abort", onClosing);
      timer = setTimeout(tick, 0);
    },
    cancel() {
      finish();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

/** The detail routes. */
export const sessionDetailRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/api/sessions/:id",
    heavy: true,
    async handle(req, ctx, params) {
      const detail = await sessionDetail(ctx, params.id, windowOfQuery(new URL(req.url)));
      return detail ? json(detail) : jsonError(404, `asm has no session ${params.id}`);
    },
  },
  {
    method: "GET",
    pattern: "/api/sessions/:id/entries",
    heavy: true,
    async handle(req, ctx, params) {
      const before = new URL(req.url).searchParams.get("before");
      if (!before) return jsonError(400, "name the entry to show the ones before: ?before=<entry key>");
      const detail = await sessionDetail(ctx, params.id, { before });
      if (!detail) return jsonError(404, `asm has no session ${params.id}`);
      const html = render(Entries({ entries: detail.entries, ctx: entryContext(detail.entries) }));
      return json({ html, earlier: detail.earlier, count: detail.entries.length });
    },
  },
  {
    method: "GET",
    pattern: "/api/sessions/:id/stream",
    // opening reads the transcript once (the token totals so far): only a few at once
    heavy: true,
    async handle(req, ctx, params) {
      const url = new URL(req.url);
      if (ctx.state.streams.open >= MAX_STREAMS) {
        return jsonError(503, `asm is already following ${MAX_STREAMS} transcripts; close a session page`);
      }
      ctx.state.streams.open++;
      let follower: TranscriptFollower | null = null;
      try {
        follower = await TranscriptFollower.open(ctx, params.id, parseCursor(url.searchParams.get("cursor")));
      } finally {
        if (!follower) ctx.state.streams.open--;
      }
      if (!follower) {
        return ctx.ledger.session(params.id)
          ? jsonError(409, "asm cannot read this agent's transcripts")
          : jsonError(404, `asm has no session ${params.id}`);
      }
      const asked = Number(url.searchParams.get("every_ms"));
      // a page may ask for a faster look (tests do), never a busy loop
      const everyMs = Number.isFinite(asked) && asked > 0
        ? Math.min(10_000, Math.max(200, asked))
        : STREAM_EVERY_MS;
      return stream(ctx, params.id, follower, everyMs);
    },
  },
];
