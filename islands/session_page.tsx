/// <reference lib="dom" />
/**
 * The session page's header island: what the session is and does now (status, activity, context as a share of
 * its window, closeout, turns, project, model and tokens), its actions (END / Jump / Send / Closeout while it
 * runs; RESUME / CONTINUE WITH / Closeout after), the sessions a CONTINUE WITH links it to, and a copyable resume
 * command. Its cells are the list's cells (islands/live_store.ts), written by the page's transcript stream
 * (islands/transcript_follow.ts); the header renders again only when the session starts or stops running, or a
 * new successor appears.
 * @module
 */
import { computed, signal, useSignal } from "@preact/signals";
// browser code imports modules, not faces: a face also carries server-only code the bundle cannot hold
import {
  activityText,
  activityTone,
  closeoutText,
  contextText,
  contextTip,
  DERIVING,
  DERIVING_TIP,
  projectText,
  statusTone,
  statusWord,
  tokensText,
  turnsText,
} from "../lib/ui/words.ts";
import { cellOnce as cell, cellValue } from "./live_store.ts";
import { CloseoutCell, RowActions } from "./actions.tsx";

/** A session the page links to. */
export interface LinkView {
  asm_id: string;
  agent: string;
  title: string;
}

/** The session's cells as the server last said them (the page's first paint, then the stream). */
export interface HeaderCells {
  status: string;
  end_reason: string | null;
  unsure_reason: string | null;
  activity_word: string | null;
  activity_reason: string | null;
  context_tokens: number | null;
  context_window: number | null;
  closeout: string | null;
  turns: number | null;
  project: string | null;
  pane: boolean;
  /** turns, project and closeout are being derived (the whole transcript is still being read) */
  deriving?: boolean;
}

/** Props of the header. */
export interface SessionHeaderProps extends Record<string, unknown> {
  id: string;
  agent: string;
  agentDisplay: string;
  title: string;
  cells: HeaderCells;
  folder: string | null;
  sessionId: string;
  runs: number;
  model: string | null;
  tokens: { input: number | null; output: number | null; cut: boolean };
  links: { continues: LinkView | null; continued_by: LinkView[]; cleared_from: LinkView | null };
  resumeCommand: string | null;
  /** what runs the agent's closeout skill, or null */
  closeoutCommand: string | null;
  /** without one: why the agent has no closeout, shown beside the cell */
  closeoutNote: string | null;
  rulesNote: string | null;
  hiddenReason: string | null;
  /** what kind of session the agent's own files say it is (interactive, headless, ...); null: they do not say */
  kind: string | null;
  /** the agent's own thread source as it wrote it, shown raw so a person sees why a row is shown or hidden */
  threadSource: string | null;
}

/** The sessions that continue this one, as the stream last said (a CONTINUE WITH from this page adds one). */
export const successors = signal<LinkView[] | null>(null);
/** The token totals, as the stream last said. */
export const tokenTotals = signal<
  { model: string | null; input: number | null; output: number | null } | null
>(
  null,
);

function isLive(status: string): boolean {
  return status === "live" || status === "starting";
}

function Link({ l }: { l: LinkView }) {
  return (
    <a href={`/sessions/${l.asm_id}`} class="session-link">
      <span class={`chip chip-${l.agent}`}>{l.agent}</span> {l.title}
    </a>
  );
}

function tokensLine(t: { input: number | null; output: number | null }, cut: boolean): string {
  if (t.input === null && t.output === null) return "no reading";
  const side = (n: number | null) => n === null ? "?" : tokensText(n);
  return `${side(t.input)} in / ${side(t.output)} out${cut ? " (of the part read)" : ""}`;
}

function CopyCommand({ command }: { command: string }) {
  const copied = useSignal("");
  return (
    <span class="resume-command">
      <code data-resume-command>{command}</code>{" "}
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(command);
            copied.value = "copied";
          } catch {
            // no clipboard (a page not on a secure origin): select it, so Ctrl+C copies it
            const code = document.querySelector("[data-resume-command]");
            if (code) getSelection()?.selectAllChildren(code);
            copied.value = "selected: press Ctrl+C";
          }
        }}
      >
        Copy
      </button>{" "}
      <span class="muted" role="status">{copied}</span>
    </span>
  );
}

/** The header. */
export function SessionHeader(p: SessionHeaderProps) {
  const id = p.id;
  const c = p.cells;
  const first = statusWord(c.status, c.end_reason, c.unsure_reason);
  // the stream writes "live" as the status moves; reading it here renders the header again only then
  const live = cell("live", id, isLive(c.status) ? "1" : "").value === "1";
  const status = cell("status", id, first.word);
  const context = cell("context", id, contextText(c.context_tokens, c.context_window));
  const contextTipCell = cell("context-tip", id, contextTip(c.context_tokens, c.context_window));
  // turns, project and closeout say "deriving" until the whole transcript is read (the stream ends it in place)
  const deriving = cell("deriving", id, c.deriving ? DERIVING : "");
  const derivingTip = computed(() => deriving.value ? DERIVING_TIP : "");
  const totals = computed(() =>
    tokenTotals.value ?? { model: p.model, input: p.tokens.input, output: p.tokens.output }
  );
  const after = successors.value ?? p.links.continued_by;
  return (
    <section class="session-head">
      <h2>
        <span class={`chip chip-${p.agent}`}>{p.agent}</span> {p.title}
      </h2>
      <div class="session-actions">
        <RowActions
          id={id}
          agent={p.agent}
          title={p.title}
          live={live}
          pane={(cellValue("no-pane", id) ?? (c.pane ? "" : "hidden")) === ""}
        />{" "}
        <a href="#newest">newest ↓</a>
      </div>
      <dl>
        <dt>Status</dt>
        <dd
          data-status-for={id}
          data-tone={cell("status-tone", id, statusTone(first.word))}
          title={cell("status-tip", id, first.tip)}
        >
          {status}
        </dd>
        <dt>Activity</dt>
        <dd
          data-activity-for={id}
          data-tone={cell("activity-tone", id, live ? activityTone(c.activity_word) : "none")}
        >
          {cell("activity", id, activityText(c.activity_word, c.activity_reason))}
        </dd>
        <dt>Context</dt>
        <dd data-context-for={id} title={contextTipCell}>{context}</dd>
        <dt>Closeout</dt>
        <dd data-closeout-for={id} data-deriving={deriving} title={derivingTip}>
          <CloseoutCell
            id={id}
            agent={p.agent}
            title={p.title}
            live={live}
            state={cell("closeout", id, closeoutText(c.closeout, c.deriving))}
            command={p.closeoutCommand}
            note={p.closeoutNote}
          />
          {p.closeoutCommand === null && p.closeoutNote && (
            <span class="muted" data-closeout-note>{p.closeoutNote}</span>
          )}
        </dd>
        <dt>Model</dt>
        <dd data-model-for={id}>{computed(() => totals.value.model ?? "unknown")}</dd>
        <dt>Tokens</dt>
        <dd data-tokens-for={id}>{computed(() => tokensLine(totals.value, p.tokens.cut))}</dd>
        <dt>Turns</dt>
        <dd data-turns-for={id} data-deriving={deriving} title={derivingTip}>
          {cell("turns", id, turnsText(c.turns, c.deriving))}
        </dd>
        <dt>Project</dt>
        <dd data-project-for={id} data-deriving={deriving} title={derivingTip}>
          {cell("project", id, projectText(c.project, c.deriving))}
        </dd>
        <dt>Agent</dt>
        <dd>{p.agentDisplay}</dd>
        <dt>Folder</dt>
        <dd>{p.folder ?? ""}</dd>
        <dt>Session id</dt>
        <dd>{p.sessionId}</dd>
        <dt>Runs</dt>
        <dd data-runs-for={id}>{cell("runs", id, String(p.runs))}</dd>
        {p.resumeCommand !== null && (
          <>
            <dt>Resume it yourself</dt>
            <dd>
              <CopyCommand command={p.resumeCommand} />
            </dd>
          </>
        )}
        {p.links.continues && (
          <>
            <dt>Continues</dt>
            <dd data-continues>
              <Link l={p.links.continues} />
            </dd>
          </>
        )}
        {after.length > 0 && (
          <>
            <dt>Continued by</dt>
            <dd data-continued-by>
              {after.map((l) => <Link key={l.asm_id} l={l} />)}
            </dd>
          </>
        )}
        {p.links.cleared_from && (
          <>
            <dt>Cleared from</dt>
            <dd>
              <Link l={p.links.cleared_from} />
            </dd>
          </>
        )}
        {p.rulesNote && (
          <>
            <dt>Standing rules</dt>
            <dd class="rules-note">{p.rulesNote}</dd>
          </>
        )}
        <dt>Kind</dt>
        <dd data-kind>
          {p.kind ?? "not known (shown)"}
          {p.threadSource !== null && `, thread source "${p.threadSource}"`}
        </dd>
        {p.hiddenReason && (
          <>
            <dt>Hidden</dt>
            <dd>{p.hiddenReason}</dd>
          </>
        )}
      </dl>
    </section>
  );
}
