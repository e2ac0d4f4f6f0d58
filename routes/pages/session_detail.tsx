/**
 * `GET /sessions/:id`: one session: what the ledger knows (status with its tooltip, folder, runs) and its
 * conversation, tool calls and injected context collapsed. Server-rendered; the actions work as on the list.
 * @module
 */
import type { Route } from "../../lib/server/mod.ts";
import { contextText, islandBundle, type MessageView, pageResponse, statusWord } from "../../lib/ui/mod.ts";
import { sessionDetail } from "../../lib/history/mod.ts";
import { boardIsOn } from "./sprint.tsx";

function Message({ m }: { m: MessageView }) {
  if (m.kind === "tool" || m.kind === "injected") {
    const label = m.kind === "tool" ? "tool" : "injected context";
    return (
      <details class={`msg msg-${m.kind}`}>
        <summary>
          {label}: {m.text.slice(0, 100).replace(/\s+/g, " ")}
        </summary>
        <pre>{m.text}</pre>
      </details>
    );
  }
  return (
    <div class={`msg msg-${m.kind}`}>
      <div class="who">
        {m.kind === "prompt" ? "You" : "Agent"}
        {m.ts ? ` · ${m.ts.replace("T", " ").slice(0, 19)}` : ""}
      </div>
      <pre>{m.text}</pre>
    </div>
  );
}

/** The detail page. */
export const sessionDetailPageRoutes: Route[] = [{
  method: "GET",
  pattern: "/sessions/:id",
  heavy: true,
  async handle(_req, ctx, params) {
    const detail = await sessionDetail(ctx, params.id);
    const bundleUrl = (await islandBundle()).url;
    if (!detail) {
      return pageResponse({
        title: "asm: no such session",
        current: "sessions",
        bundleUrl,
        pollMs: 5000,
        board: boardIsOn(ctx),
        children: <p class="empty">asm has no session {params.id}.</p>,
      });
    }
    const s = detail.session as Record<string, string | number | null>;
    const title = String(s.name || s.title || s.first_message || s.agent_session_id);
    const { word, tip } = statusWord(
      String(s.status),
      s.end_reason as string | null,
      s.unsure_reason as string | null,
    );
    return pageResponse({
      title: `asm: ${title}`,
      current: "sessions",
      bundleUrl,
      pollMs: 5000,
      board: boardIsOn(ctx),
      children: (
        <article class="detail" data-detail-for={String(s.asm_id)}>
          <h2>{title}</h2>
          <dl>
            <dt>Agent</dt>
            <dd>{String(s.agent)}</dd>
            <dt>Status</dt>
            <dd title={tip}>{word}</dd>
            <dt>Folder</dt>
            <dd>{String(s.cwd ?? "")}</dd>
            <dt>Project</dt>
            <dd>{String(s.project ?? "")}</dd>
            <dt>Session id</dt>
            <dd>{String(s.agent_session_id)}</dd>
            <dt>Context</dt>
            <dd>{contextText(s.context_tokens as number | null)}</dd>
            <dt>Turns</dt>
            <dd>{String(s.turns ?? s.prompts ?? "")}</dd>
            <dt>Runs</dt>
            <dd>{detail.runs.length}</dd>
            {s.rules_note && (
              <>
                <dt>Standing rules</dt>
                <dd class="rules-note">{String(s.rules_note)}</dd>
              </>
            )}
            {s.hidden_reason && (
              <>
                <dt>Hidden</dt>
                <dd>{String(s.hidden_reason)}</dd>
              </>
            )}
          </dl>
          {detail.note && <p class="empty">{detail.note}</p>}
          {detail.truncated > 0 && <p class="lede">{detail.truncated} earlier messages are not shown.</p>}
          <section class="messages">
            {detail.messages.map((m, i) => <Message key={i} m={m} />)}
          </section>
        </article>
      ),
    });
  },
}];
