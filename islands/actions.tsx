/// <reference lib="dom" />
/**
 * The actions: the launch dialog, and END / RESUME / CONTINUE WITH / Jump / send on a row. Every action is one
 * POST (the same routes a script or a phone would call), with the page's key as its Bearer (islands/api.ts).
 * A dialog renders when a person opens it, never on a poll.
 * @module
 */
import { computed, type Signal, signal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { api } from "./api.ts";
import { cell } from "./live_store.ts";
// browser code imports modules, not faces
import { DERIVING, DERIVING_TIP } from "../lib/ui/words.ts";

/** An agent as the dialogs offer it. */
export interface AgentChoice {
  name: string;
  display: string;
  /** What runs its closeout skill (typed as a prompt), or null when it has none (closeout is then refused). */
  closeout?: string | null;
}

/** Props of the actions island. */
export interface ActionsProps extends Record<string, unknown> {
  agents: AgentChoice[];
  /** Project folders the ledger knows, most used first: the launch dialog suggests them. */
  folders?: string[];
}

/** What a dialog is open for. */
type Open =
  | { kind: "launch" }
  | { kind: "resume" | "continue" | "send" | "end"; id: string; agent: string; title: string }
  | { kind: "closeout"; id: string; agent: string; title: string; live: boolean; command: string }
  | null;

const open = signal<Open>(null);
/** The last result or refusal, as a sentence; shown until the next action. */
const notice = signal<{ text: string; error: boolean; href?: string; link?: string } | null>(null);
/** A refusal of the open dialog's own action: shown inside it, where the person is looking. */
const dialogError = signal<string | null>(null);

/** Opens a dialog (the launch dialog, or one for a row); the `n` shortcut and the row buttons call it. */
export function openDialog(o: Open): void {
  dialogError.value = null;
  open.value = o;
}

/** Closes the open dialog, if any (Esc anywhere on the page). */
export function closeDialog(): void {
  open.value = null;
}

/** Posts one action; returns the parsed answer, or throws the server's sentence. */
export async function postAction(
  path: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const res = await api(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await res.json().catch(() => ({ error: `the server answered ${res.status} without JSON` }));
  if (!res.ok) throw new Error(String(answer.error ?? `the server answered ${res.status}`));
  return answer;
}

async function run(
  label: string,
  path: string,
  body: Record<string, unknown>,
  from: Open = null,
): Promise<void> {
  try {
    const answer = await postAction(path, body);
    const closed = answer.window_closed === true ? " Its window closed." : "";
    // an END that signalled nothing (asm could not see the process) says so: the agent may still be running
    const note = typeof answer.note === "string" ? ` ${answer.note}.` : "";
    // a window that opened on the agent's own question (a folder it does not trust, its first-run screens) is
    // not "done": the notice says what it waits on and links to the window, where it is answered
    const waiting = typeof answer.waiting_reason === "string" ? answer.waiting_reason : null;
    notice.value = waiting && typeof answer.token === "string"
      ? {
        text: `${label}: its window opened and waits on you: ${waiting}.`,
        error: false,
        href: `/launches/${encodeURIComponent(answer.token)}`,
        link: "Answer it here",
      }
      : { text: `${label}: done.${closed}${note}`, error: false };
    // close the dialog this action came from, and only it: an END answering late must not close the RESUME
    // dialog the person opened meanwhile
    if (from !== null && open.peek() === from) open.value = null;
  } catch (err) {
    // a dialog's refusal stays in the dialog (behind its backdrop it would not be seen), which stays open
    if (from !== null && open.peek() === from) dialogError.value = (err as Error).message;
    else notice.value = { text: `${label}: ${(err as Error).message}`, error: true };
  }
}

function field(form: HTMLFormElement, name: string): string {
  return String(new FormData(form).get(name) ?? "").trim();
}

/** The buttons of one row (rendered inside the table; they only open dialogs or post). */
export function RowActions(
  { id, agent, title, live, pane }: {
    id: string;
    agent: string;
    title: string;
    live: boolean;
    pane?: boolean;
  },
) {
  const target = { id, agent, title };
  // Jump and Send only where asm has proven the session's pane (it refuses them elsewhere); the poll flips it
  const pane$ = cell("no-pane", id, pane ? "" : "hidden");
  const noPane = computed(() => pane$.value === "hidden");
  return (
    <span class="row-actions">
      {live
        ? (
          <>
            <button key="end" type="button" onClick={() => openDialog({ kind: "end", ...target })}>
              END
            </button>
            <button
              key="jump"
              type="button"
              hidden={noPane}
              onClick={() => run(`Jump to ${title}`, `/api/sessions/${id}/focus`, {})}
            >
              Jump
            </button>
            <button
              key="send"
              type="button"
              hidden={noPane}
              onClick={() => openDialog({ kind: "send", ...target })}
            >
              Send
            </button>
          </>
        )
        : (
          // CONTINUE WITH only once the session is no longer running: two agents on one piece of work at once is
          // what it exists to prevent
          <>
            {/* keyed: a row drawn again as it ends must not reuse a live button, and its hidden state */}
            <button key="resume" type="button" onClick={() => openDialog({ kind: "resume", ...target })}>
              RESUME
            </button>
            <button key="continue" type="button" onClick={() => openDialog({ kind: "continue", ...target })}>
              CONTINUE WITH
            </button>
          </>
        )}
    </span>
  );
}

/**
 * The Closeout cell, on the list and on the session page: "closed out" once the transcript records the skill's
 * run; a Closeout button while it does not (it opens a dialog saying what will happen: a live session gets the
 * skill typed into its window, an ended one is resumed with it); where asm cannot start the skill, a muted "open"
 * (the transcript was read and the skill did not run) or "no skill" (the agent has no closeout skill asm can see
 * run), the agent's note as their tip. The poll and the page's stream write its cell; it renders again only when
 * that changes.
 */
export function CloseoutCell(
  { id, agent, title, live, state, command, note }: {
    id: string;
    agent: string;
    title: string;
    live: boolean;
    /** the cell ("closed out", "open", "", "deriving"): its holder sets it when it draws, the poll or stream writes it */
    state: Signal<string>;
    /** what runs the agent's closeout skill, or null */
    command: string | null;
    /** without a command: why asm offers no closeout (agents.toml closeout_note, or the generic sentence) */
    note?: string | null;
  },
) {
  // all are drawn, all but one hidden: the poll or the stream flips them by writing the cell, and nothing renders
  // again; while the transcript is read whole only the word "deriving" shows (no Closeout offered on a guess)
  const notDeriving = computed(() => state.value !== DERIVING);
  const notClosed = computed(() => state.value !== "closed out");
  // the button is for a session known not to be closed out
  const noAction = computed(() => state.value === "closed out" || state.value === DERIVING);
  // without a command: "open" where the transcript was read and the skill did not run, "no skill" where nobody
  // can say (no closeout skill)
  const notOpen = computed(() => state.value !== "open");
  const notUnknown = computed(() => state.value !== "");
  const why = note ?? "this agent records no closeout skill asm can see run, so asm cannot close it out";
  return (
    <>
      <span class="deriving" hidden={notDeriving} title={DERIVING_TIP}>{DERIVING}</span>
      <span class="closed-out" hidden={notClosed}>closed out</span>
      {command === null
        ? (
          <>
            <span class="muted" data-closeout-open hidden={notOpen} title={why}>open</span>
            <span class="muted" data-closeout-none hidden={notUnknown} title={why}>no skill</span>
          </>
        )
        : (
          <button
            type="button"
            class="closeout-button"
            hidden={noAction}
            title={live ? `type ${command} into its window` : `resume it and run ${command}`}
            onClick={() => openDialog({ kind: "closeout", id, agent, title, live, command })}
          >
            Closeout
          </button>
        )}
    </>
  );
}

function CloseoutForm(
  { id, title, live, command, agents, agent }: {
    id: string;
    title: string;
    live: boolean;
    command: string;
    agents: AgentChoice[];
    agent: string;
  },
) {
  const display = agents.find((a) => a.name === agent)?.display ?? agent;
  return (
    <form
      method="dialog"
      onSubmit={(e) => {
        e.preventDefault();
        run(
          `Closeout ${title}`,
          `/api/sessions/${id}/${live ? "closeout-live" : "closeout"}`,
          {},
          open.peek(),
        );
      }}
    >
      <h2>Close out {title}?</h2>
      <p class="why">
        {live
          ? `asm types ${command} and Enter into its own window, where ${display} runs its closeout skill.`
          : `asm resumes it (${display}, the same session) in a new window with ${command} as its prompt.`}
        {" "}
        The cell reads "closed out" once its transcript records the skill's run.
      </p>
      <DialogFooter submit="Closeout" />
    </form>
  );
}

/** The dialog's refusal (if any), Cancel and its own submit button. */
function DialogFooter({ submit }: { submit: string }) {
  return (
    <>
      {dialogError.value && <p class="dialog-error" role="alert">{dialogError.value}</p>}
      <footer>
        <button type="button" onClick={() => (open.value = null)}>Cancel</button>
        <button type="submit" class="primary" autoFocus={submit === "END" || submit === "Closeout"}>
          {submit}
        </button>
      </footer>
    </>
  );
}

/** END asks first: Enter (or the button) confirms, Esc or Cancel keeps the session. */
function EndForm({ id, title }: { id: string; title: string }) {
  return (
    <form
      method="dialog"
      onSubmit={(e) => {
        e.preventDefault();
        run(`END ${title}`, `/api/sessions/${id}/end`, {}, open.peek());
      }}
    >
      <h2>END {title}?</h2>
      <p class="why">asm stops its agent and its window closes. RESUME brings the same session back later.</p>
      <DialogFooter submit="END" />
    </form>
  );
}

function LaunchForm({ agents, folders }: { agents: AgentChoice[]; folders: string[] }) {
  return (
    <form
      method="dialog"
      onSubmit={(e) => {
        e.preventDefault();
        const f = e.currentTarget;
        run("Launch", "/api/launch", {
          agent: field(f, "agent"),
          model: field(f, "model") || undefined,
          folder: field(f, "folder"),
          name: field(f, "name") || undefined,
          prompt: field(f, "prompt"),
        }, open.peek());
      }}
    >
      <h2>New session</h2>
      <label>
        Agent
        <select name="agent">
          {agents.map((a) => <option key={a.name} value={a.name}>{a.display}</option>)}
        </select>
      </label>
      <label>
        Model <input name="model" placeholder="the agent's default" />
      </label>
      <label>
        Folder <input name="folder" required placeholder="/path/to/project" list="known-folders" autoFocus />
        <datalist id="known-folders">
          {folders.map((f) => <option key={f} value={f} />)}
        </datalist>
      </label>
      <label>
        Name <input name="name" />
      </label>
      <label>
        Prompt <textarea name="prompt" rows={4} />
      </label>
      <DialogFooter submit="Launch" />
    </form>
  );
}

function ResumeForm(
  { id, agent, title, agents }: { id: string; agent: string; title: string; agents: AgentChoice[] },
) {
  const display = agents.find((a) => a.name === agent)?.display ?? agent;
  return (
    <form
      method="dialog"
      onSubmit={(e) => {
        e.preventDefault();
        const model = field(e.currentTarget, "model");
        // no model key at all means "whatever it resumed with before": the flag is withheld, never guessed
        run(`RESUME ${title}`, `/api/sessions/${id}/resume`, model ? { model } : {}, open.peek());
      }}
    >
      <h2>Resume {title}</h2>
      <p>
        Agent: <strong>{display}</strong>
      </p>
      <p class="why">
        A resume hands {display} back its own transcript, which only {display}{" "}
        can read, so the agent cannot change here. To hand this work to another agent, use CONTINUE WITH.
      </p>
      <label>
        Model <input name="model" placeholder="as it was last time" />
      </label>
      <DialogFooter submit="Resume" />
    </form>
  );
}

function ContinueForm(
  { id, agent, title, agents }: { id: string; agent: string; title: string; agents: AgentChoice[] },
) {
  const others = agents.filter((a) => a.name !== agent);
  return (
    <form
      method="dialog"
      onSubmit={(e) => {
        e.preventDefault();
        const f = e.currentTarget;
        run(`CONTINUE ${title}`, `/api/sessions/${id}/continue`, {
          agent: field(f, "agent"),
          prompt: field(f, "prompt") || undefined,
        }, open.peek());
      }}
    >
      <h2>Continue {title} with another agent</h2>
      <label>
        Agent
        <select name="agent">
          {others.map((a) => <option key={a.name} value={a.name}>{a.display}</option>)}
        </select>
      </label>
      <label>
        Prompt <textarea name="prompt" rows={3} placeholder="what to do next" />
      </label>
      <DialogFooter submit="Continue" />
    </form>
  );
}

function SendForm({ id, title }: { id: string; title: string }) {
  return (
    <form
      method="dialog"
      onSubmit={(e) => {
        e.preventDefault();
        run(
          `Send to ${title}`,
          `/api/sessions/${id}/send`,
          { text: field(e.currentTarget, "text") },
          open.peek(),
        );
      }}
    >
      <h2>Send to {title}</h2>
      <label>
        Text <input name="text" required placeholder="a prompt, or a command such as /compact" />
      </label>
      <p class="why">
        asm types it into its window and presses Enter. To answer a dialog, use its window on the session
        page.
      </p>
      <DialogFooter submit="Send" />
    </form>
  );
}

/** The actions island: the New session button, the open dialog, and the last notice. */
export function Actions({ agents, folders = [] }: ActionsProps) {
  const o = open.value;
  const n = notice.value;
  const box = useRef<HTMLDivElement>(null);
  // a dialog that opens takes the focus (its first field, or END's button): Enter and Esc then act on it
  useEffect(() => {
    if (!o) return;
    box.current?.querySelector<HTMLElement>("[autofocus], input, select, textarea, button[type=submit]")
      ?.focus();
  }, [o]);
  return (
    <div class="actions">
      <button type="button" class="primary" onClick={() => openDialog({ kind: "launch" })}>
        New session
      </button>
      {/* always present, so a notice arriving never shifts (and so re-creates) an open dialog */}
      <span class={n?.error ? "notice error" : "notice"} role="status">
        {n?.text ?? ""}
        {n?.href && (
          <>
            {" "}
            <a href={n.href}>{n.link}</a>
          </>
        )}
      </span>
      {o && (
        <div
          ref={box}
          class="dialog"
          role="dialog"
          aria-modal="true"
          // Esc closes it, and so does a click on the backdrop (not one inside the form)
          onKeyDown={(e) => {
            if (e.key === "Escape") open.value = null;
          }}
          onClick={(e) => {
            if (e.target === e.currentTarget) open.value = null;
          }}
        >
          {o.kind === "launch" && <LaunchForm agents={agents} folders={folders} />}
          {o.kind === "end" && <EndForm {...o} />}
          {o.kind === "resume" && <ResumeForm {...o} agents={agents} />}
          {o.kind === "continue" && <ContinueForm {...o} agents={agents} />}
          {o.kind === "send" && <SendForm {...o} />}
          {o.kind === "closeout" && <CloseoutForm {...o} agents={agents} />}
        </div>
      )}
    </div>
  );
}
