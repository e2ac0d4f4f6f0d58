/// <reference lib="dom" />
/**
 * The session page's transcript, kept true without a reload: a streamed `fetch` of
 * `/api/sessions/:id/stream` (with the page's key, as every API call) whose lines append the entries the agent
 * writes (drawn by the server; a re-appended record replaces its entry in place; a tool's result moves into its
 * call), write the session's cells (status, activity, context, closeout, ...), and move the token totals. Nothing
 * already on the page renders again. A stream that ends (the server restarted, the laptop slept) is opened again
 * from the last cursor. "Show earlier" loads the page before the first entry, drawn by the server too.
 * @module
 */
import { statusTone, statusWord } from "../lib/ui/words.ts";
import { api } from "./api.ts";
import { setCell } from "./live_store.ts";
import { type LiveSession, writeCells } from "./live_poll.ts";
import { type LinkView, successors, tokenTotals } from "./session_page.tsx";

/** One line of the stream. */
interface StreamLine {
  entries?: { key: string; html: string }[];
  cursor?: string;
  totals?: { model: string | null; input: number | null; output: number | null };
  state?: Omit<LiveSession, "asm_id" | "agent"> & { continued_by?: LinkView[]; runs?: number } | null;
  reload?: boolean;
}

/** The most entries the page holds while it follows the transcript. */
const MAX_ENTRIES_SHOWN = 2_000;

/** Entries appended since the page loaded (tests read it; it must grow without a reload). */
const counter = globalThis as unknown as { __asmAppended: number };
counter.__asmAppended = 0;

function fragment(html: string): DocumentFragment {
  // the server drew it (escaped by the renderer: no HTML of the agent's is in it)
  return document.createRange().createContextualFragment(html);
}

/** Puts each stream entry in place: a known key is replaced, a new one appended; results join their calls. */
function place(list: HTMLElement, entries: { key: string; html: string }[]): void {
  const atBottom = innerHeight + scrollY >= document.documentElement.scrollHeight - 200;
  for (const e of entries) {
    const node = fragment(e.html).firstElementChild as HTMLElement | null;
    if (!node) continue;
    const old = list.querySelector(`[data-key="${CSS.escape(e.key)}"]`);
    if (old) old.replaceWith(node);
    else {
      list.append(node);
      counter.__asmAppended++;
    }
    // a result that arrives after its call: into the call's slot, so the output sits under its command
    for (const out of node.querySelectorAll<HTMLElement>(".msg-tool-result [data-result-for]")) {
      const slot = list.querySelector(
        `[data-call-id="${CSS.escape(out.dataset.resultFor!)}"] .tool-out-slot`,
      );
      if (!slot) continue;
      slot.replaceChildren(out);
      const holder = node.querySelector(".msg-tool-result:empty");
      holder?.remove();
      if (node.children.length === 0) node.remove();
    }
  }
  // a burst of output must not grow the page without end: its oldest entries go, "Show earlier" brings them back
  const over = list.children.length - MAX_ENTRIES_SHOWN;
  if (over > 0) {
    for (let i = 0; i < over; i++) list.firstElementChild?.remove();
    const earlier = document.querySelector<HTMLButtonElement>("[data-show-earlier]");
    if (earlier?.hidden) {
      earlier.textContent = "Show earlier";
      earlier.hidden = false;
    }
  }
  if (atBottom) scrollTo(0, document.documentElement.scrollHeight);
}

function applyState(id: string, state: NonNullable<StreamLine["state"]>): void {
  const { word, tip } = statusWord(state.status, state.end_reason ?? null, state.unsure_reason ?? null);
  setCell("status", id, word);
  setCell("status-tip", id, tip);
  setCell("status-tone", id, statusTone(word));
  const live = state.status === "live" || state.status === "starting";
  setCell("live", id, live ? "1" : "");
  // the window's view (its own script) shows itself while the session runs
  if (live) dispatchEvent(new CustomEvent("asm:session-live", { detail: id }));
  writeCells({ ...state, asm_id: id, agent: "" } as LiveSession);
  if (typeof state.runs === "number") setCell("runs", id, String(state.runs));
  const after = state.continued_by ?? [];
  if (JSON.stringify(after) !== JSON.stringify(successors.peek() ?? null)) successors.value = after;
}

async function readStream(
  id: string,
  cursor: { text: string },
  list: HTMLElement,
  everyMs: string,
  model: string | null,
) {
  const q = new URLSearchParams({ cursor: cursor.text });
  if (everyMs) q.set("every_ms", everyMs);
  const res = await api(`/api/sessions/${encodeURIComponent(id)}/stream?${q}`);
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    return;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    pending += value;
    let nl;
    while ((nl = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim() === "") continue;
      const message = JSON.parse(line) as StreamLine;
      if (message.reload) {
        location.reload();
        return;
      }
      if (message.state) applyState(id, message.state);
      if (message.entries?.length) place(list, message.entries);
      if (message.cursor !== undefined) cursor.text = message.cursor;
      // a format that names no model in its counts keeps the one the page had (the ledger's)
      if (message.totals) {
        tokenTotals.value = {
          ...message.totals,
          model: message.totals.model ?? tokenTotals.peek()?.model ?? model,
        };
      }
    }
  }
}

/** Wires "Show earlier": the page before the first entry, drawn by the server, put above it. */
function wireEarlier(id: string, list: HTMLElement): void {
  const button = document.querySelector<HTMLButtonElement>("[data-show-earlier]");
  if (!button) return;
  button.addEventListener("click", async () => {
    const first = list.querySelector<HTMLElement>("[data-key]");
    if (!first) return;
    button.disabled = true;
    try {
      const res = await api(
        `/api/sessions/${encodeURIComponent(id)}/entries?before=${encodeURIComponent(first.dataset.key!)}`,
      );
      const answer = await res.json() as { html?: string; earlier?: number; error?: string };
      if (!res.ok) throw new Error(answer.error ?? `the server answered ${res.status}`);
      // keep what the person was reading where it was
      const from = document.documentElement.scrollHeight;
      list.prepend(fragment(answer.html ?? ""));
      scrollBy(0, document.documentElement.scrollHeight - from);
      if ((answer.earlier ?? 0) > 0) {
        button.textContent = `Show earlier (${answer.earlier} more)`;
        button.disabled = false;
      } else button.hidden = true;
    } catch (err) {
      button.textContent = `Show earlier: ${(err as Error).message}`;
      button.disabled = false;
    }
  });
}

/** Starts following the transcript of the session page, if this is one. */
export function followTranscript(): void {
  const article = document.querySelector<HTMLElement>("[data-detail-for]");
  const list = document.querySelector<HTMLElement>("[data-entries]");
  if (!article || !list) return;
  const id = article.dataset.detailFor!;
  wireEarlier(id, list);
  document.getElementById("hit")?.scrollIntoView({ block: "center" });
  // a page opened at an old search hit shows a window that does not reach the end: nothing to follow there
  if (article.dataset.follow !== "1") return;
  const cursor = { text: article.dataset.cursor ?? "" };
  const everyMs = new URLSearchParams(location.search).get("stream_ms") ?? "";
  const loop = async () => {
    try {
      await readStream(id, cursor, list, everyMs, article.dataset.model || null);
    } catch (err) {
      console.warn("asm: the transcript stream stopped", err);
    }
    setTimeout(loop, 2000); // from where it got to
  };
  loop();
}
