/// <reference lib="dom" />
/**
 * The board island: the three lanes (SPRINT PLAN / IN PROCESS / COMPLETE), each card with its title, project and
 * agent chips, #dropped, its prompt folded to one line, its session's status and the five buttons; the driven
 * sessions not on the plan under them; an empty board's example; the board's problem. It renders when the board
 * was fetched again and differs (islands/board_store.ts), when a dialog opens, never on a quiet poll: a card's
 * status is a cell of the live store, the same as the Sessions table's, patched in place.
 *
 * Every button is one POST to `/api/sprint/:card/<button>` with the page's key, and the board is fetched again
 * after it. A refused button stays pressable: its sentence (the API's `refusals`) is its tooltip, and a press
 * posts it, so the server answers with the same sentence, shown under the card. START, RESUME and CONTINUE WITH
 * ask first (the agent, the model); a refused one looks at the board again before it posts, so a copy a poll
 * behind never launches without asking.
 * @module
 */
import { signal } from "@preact/signals";
// browser code imports modules, not faces: a face also carries server-only code the bundle cannot hold
import type { AgentView, CardView, SprintPayload } from "../lib/reconcile/view.ts";
import {
  boardExample,
  boardIsEmpty,
  type ButtonView,
  type CardButton,
  cardButtonPath,
  cardButtons,
  cardStatus,
  LANES,
  notOnPlanWhy,
  promptView,
} from "../lib/ui/board_view.ts";
import { cell } from "./live_store.ts";
import { postAction } from "./actions.tsx";
import { adoptBoard, board, currentBoard, noticeOf, refetchBoard } from "./board_store.ts";

/** Props of the board island. */
export interface SprintBoardProps extends Record<string, unknown> {
  /** `GET /api/sprint`'s body as the server had it when it rendered the page. */
  payload: SprintPayload;
  /** The live ids of the page's `/api/live` variant at that moment (the poll refetches when they change). */
  liveIds: string[];
}

/** The dialog a button opened (START, RESUME, CONTINUE WITH ask first), or null. */
const open = signal<{ button: "start" | "resume" | "continue"; card: CardView } | null>(null);

function displayOf(agents: readonly AgentView[], name: string | null): string | null {
  if (name === null) return null;
  return agents.find((a) => a.name === name)?.display ?? name;
}

/** Posts a card button, shows the answer under the card, and fetches the board again either way. */
async function press(card: CardView, button: CardButton, label: string, body: Record<string, unknown> = {}) {
  const notice = noticeOf(card.id);
  notice.value = { text: `${label}: asking asm…`, error: false };
  try {
    const answer = await postAction(cardButtonPath(card.id, button), body);
    const closed = answer.window_closed === true ? " Its window closed." : "";
    // an END that signalled nothing (asm could not see the process) says so: the agent may still be running
    const note = typeof answer.note === "string" ? ` ${answer.note}.` : "";
    // an END that stopped the session but could not file its card says so (the END is not undone)
    const filing = answer.card as { filed?: boolean; problem?: string | null } | null | undefined;
    const unfiled = filing?.filed === false
      ? ` Its card was not filed: ${filing.problem ?? "no reason given"}`
      : "";
    notice.value = { text: `${label}: done.${closed}${note}${unfiled}`, error: unfiled !== "" };
  } catch (err) {
    notice.value = { text: `${label}: ${(err as Error).message}`, error: true };
  }
  await refetchBoard();
}

/** The card as the board now has it, or null when it left the board. */
function freshCard(cardId: string): CardView | null {
  for (const list of currentBoard()?.board.lists ?? []) {
    const card = list.cards.find((c) => c.id === cardId);
    if (card) return card;
  }
  return null;
}

async function onButton(card: CardView, b: ButtonView): Promise<void> {
  if (b.button === "done" || b.button === "end") {
    // no question to ask: the server acts, or answers with the sentence the tooltip showed
    await press(card, b.button, b.label);
    return;
  }
  let now: CardView | null = card;
  if (b.refusal !== null) {
    // this copy may be a poll behind: look again first, so a card that can start now asks for its agent
    // rather than launching with whatever its tag says
    await refetchBoard();
    now = freshCard(card.id);
  }
  if (now !== null && now.refusals[b.button] === null) {
    open.value = { button: b.button, card: now };
    return;
  }
  // still refused: the server says why, in the same sentence
  await press(now ?? card, b.button, b.label);
}

function CardNotice({ id }: { id: string }) {
  const n = noticeOf(id).value;
  return <p class={n?.error ? "card-notice error" : "card-notice"} role="status">{n?.text ?? ""}</p>;
}

function Status({ card }: { card: CardView }) {
  const status = cardStatus(card);
  if (status === null || card.asm_id === null) return null;
  const id = card.asm_id;
  return (
    <span class="card-state">
      <a
        class="card-status"
        href={`/sessions/${id}`}
        data-status-for={id}
        title={cell("cardtip", id, status.tip)}
      >
        {cell("status", id, status.word)}
      </a>{" "}
      <span class="card-unsure" data-unsure-for={id}>{cell("unsure", id, status.unsure)}</span>
    </span>
  );
}

function Prompt({ lines }: { lines: string[] }) {
  const { first, rest } = promptView(lines);
  if (first === "") return null;
  return (
    <details class="prompt">
      <summary title={first}>{first}</summary>
      {rest.map((line, i) => <p key={i}>{line === "" ? "\u00a0" : line}</p>)}
    </details>
  );
}

function Card({ card, agents }: { card: CardView; agents: readonly AgentView[] }) {
  const agent = displayOf(agents, card.agent);
  return (
    <article class={card.dropped ? "card dropped" : "card"} data-card-for={card.id}>
      <div class="card-title">{card.title || "(untitled)"}</div>
      <div class="card-chips">
        {card.project !== null && <span class="chip chip-project" title={card.project}>{card.project}</span>}
        {agent !== null && <span class={`chip chip-${card.agent}`} title={agent}>{agent}</span>}
        {card.dropped && (
          <span class="chip chip-dropped" title="its session went away while it was in IN PROCESS">
            #dropped
          </span>
        )}
        {card.claimed && <span class="chip" title="a button is acting on this card">busy</span>}
        <Status card={card} />
      </div>
      <Prompt lines={card.prompt} />
      <div class="card-buttons">
        {cardButtons(card).map((b) => (
          <button
            key={b.button}
            type="button"
            class={b.refusal === null ? undefined : "refused"}
            title={b.tip}
            data-button={b.button}
            onClick={() => void onButton(card, b)}
          >
            {b.label}
          </button>
        ))}
      </div>
      <CardNotice id={card.id} />
    </article>
  );
}

function field(form: HTMLFormElement, name: string): string {
  return String(new FormData(form).get(name) ?? "").trim();
}

/** START, RESUME or CONTINUE WITH, asked first: the agent (or why it cannot change) and the model. */
function CardDialog({ agents }: { agents: readonly AgentView[] }) {
  const o = open.value;
  if (o === null) return null;
  const { card, button } = o;
  const close = () => (open.value = null);
  const submit = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const model = field(form, "model");
    // no model key at all means "whatever it ran with before" (or the agent's default): never a guessed one
    const body: Record<string, unknown> = model ? { model } : {};
    if (button !== "resume") body.agent = field(form, "agent");
    close();
    void press(card, button, button === "continue" ? "CONTINUE WITH" : button.toUpperCase(), body);
  };
  const agent = displayOf(agents, card.agent) ?? "its own agent";
  const choices = button === "continue" ? agents.filter((a) => a.name !== card.agent) : agents;
  return (
    <div class="dialog" role="dialog" aria-modal="true">
      <form method="dialog" onSubmit={submit}>
        <h2>
          {button === "start" ? "Start" : button === "resume" ? "Resume" : "Continue"} {card.title}
          {button === "continue" ? " with another agent" : ""}
        </h2>
        {button === "resume"
          ? (
            <>
              <p>
                Agent: <strong>{agent}</strong>
              </p>
              <p class="why">
                A resume hands {agent} back its own transcript, which only {agent}{" "}
                can read, so the agent cannot change here. To hand this card to another agent, use CONTINUE
                WITH.
              </p>
            </>
          )
          : (
            <label>
              Agent
              <select name="agent" value={button === "start" ? card.agent ?? undefined : undefined}>
                {choices.map((a) => <option key={a.name} value={a.name}>{a.display}</option>)}
              </select>
            </label>
          )}
        <label>
          Model{" "}
          <input
            name="model"
            placeholder={button === "resume" ? "as it was last time" : "the agent's default"}
          />
        </label>
        <footer>
          <button type="button" onClick={close}>Cancel</button>
          <button type="submit" class="primary">
            {button === "start" ? "Start" : button === "resume" ? "Resume" : "Continue"}
          </button>
        </footer>
      </form>
    </div>
  );
}

function EmptyBoard({ payload }: { payload: SprintPayload }) {
  return (
    <div class="board-empty">
      <p>
        The board is empty. It is the Markdown file{" "}
        <code>{payload.board.location}</code>: edit it in any editor, or open it as a note in an Obsidian
        vault. Its three level-2 headings are the lists, each known by the <code>^id</code>{" "}
        at its end; a card is a top-level item under one: a title, then a <code>#project</code>{" "}
        tag and an agent's tag ({payload.agents.map((a) => `#${a.tag}`).join(", ")}), with its prompt indented
        under it. asm gives each new card an <code>^id</code> of its own on its next pass. For example:
      </p>
      <pre>{boardExample(payload)}</pre>
    </div>
  );
}

/** The board: its lanes, the sessions not on the plan, the empty state and the problem. */
export function SprintBoard({ payload: first, liveIds }: SprintBoardProps) {
  adoptBoard(first, liveIds);
  const payload = board.value ?? first;
  const { problem, read_at: readAt, location } = payload.board;
  const where = `${payload.board.mode === "testing" ? "Testing board" : "Board"}: ${location}`;
  return (
    <section class="board" aria-label="Board">
      <p class="board-where" title={where}>{where}</p>
      {problem !== null && <p class="board-problem" role="alert">{problem}</p>}
      {payload.board.stale && readAt !== null && (
        <p class="board-stale" data-stale>
          The lists below are as asm last read them, at {new Date(readAt).toLocaleTimeString()}.
        </p>
      )}
      {readAt !== null && boardIsEmpty(payload) && <EmptyBoard payload={payload} />}
      {readAt !== null && (
        <div class="lanes">
          {LANES.map(({ role, label }) => {
            const list = payload.board.lists.find((l) => l.role === role);
            const cards = list?.cards ?? [];
            return (
              <section key={role} class="lane" data-lane={role} aria-label={label}>
                <h2>
                  <span>{label}</span> <span class="lane-count">{cards.length}</span>
                </h2>
                <div class="lane-cards">
                  {cards.map((c) => <Card key={c.id} card={c} agents={payload.agents} />)}
                </div>
              </section>
            );
          })}
        </div>
      )}
      {payload.not_on_plan.length > 0 && (
        <section class="not-on-plan" aria-label="Not on the plan">
          <h2>Not on the plan</h2>
          <ul>
            {payload.not_on_plan.map((s) => (
              <li key={s.asm_id} data-off-plan-for={s.asm_id}>
                <span class={`chip chip-${s.agent}`}>{displayOf(payload.agents, s.agent)}</span>{" "}
                <a href={`/sessions/${s.asm_id}`}>{s.title ?? "an unnamed session"}</a>{" "}
                <span class="muted">{notOnPlanWhy(s.reason)}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <CardDialog agents={payload.agents} />
    </section>
  );
}
