/**
 * The server's terminal views: which pane a view may show, and the open ones. A view shows a live session's pane
 * proven to hold its process (the proof END and Send use), or a pending launch's own pane (the window asm opened
 * for it, its process the one recorded then: an agent asking its trust question has no session yet, and that
 * question is what the view is for). The proof is checked again while the view is open; a launch's view closes
 * once its session arrives (the session's page has the view from then on), a session's when it stops running.
 * @module
 */
import { launchRow } from "../ledger/mod.ts";
import { isSameProcess, LINUX_PROC } from "../procs/mod.ts";
import { type ActionDeps, ActionRefused } from "./deps.ts";
import { provenPane } from "./control.ts";
import { PaneView } from "./pane_view.ts";
import type { PaneInfo } from "./terminal_host.ts";

/** What a view shows: a session's pane, or a pending launch's. */
export type ViewTarget = { session: string } | { launch: string };

/** The most views one server holds open (each is a tmux client). */
export const MAX_VIEWS = 8;

/** Keys the Interrupt button and the page may name, as the bytes a terminal sends for them. */
export const NAMED_KEYS: Record<string, Uint8Array> = {
  "Escape": Uint8Array.of(0x1b),
  "C-c": Uint8Array.of(0x03),
  "Enter": Uint8Array.of(0x0d),
};

/** A pending launch's own pane, or a refusal (matched, expired, failed, gone, or its process not the one). */
export async function launchPane(deps: ActionDeps, token: string): Promise<PaneInfo> {
  const row = launchRow(deps.ledger, token);
  if (!row) throw new ActionRefused("unknown", `asm has no launch ${token}`);
  if (row.matched_asm_id) {
    throw new ActionRefused(
      "conflict",
      `this launch is session ${row.matched_asm_id} now: its page has the window`,
    );
  }
  if (row.error || row.expired) {
    throw new ActionRefused("conflict", `this launch ${row.error ? `failed: ${row.error}` : "expired"}`);
  }
  if (row.pane_id === null || row.pane_pid === null) {
    throw new ActionRefused("conflict", "this launch's window has not opened");
  }
  const pane = (await deps.host.panes()).find((p) => p.paneId === row.pane_id && p.panePid === row.pane_pid);
  const same = row.pane_proc_start === null || isSameProcess(
    { pid: row.pane_pid, procStart: row.pane_proc_start, bootId: row.boot_id },
    deps.proc ?? LINUX_PROC,
  );
  if (!pane || !same) {
    throw new ActionRefused(
      "conflict",
      "this launch's window is gone (its process is not the one asm started)",
    );
  }
  return pane;
}

/** The pane a target's view shows, or a refusal with the sentence. */
export async function viewPane(deps: ActionDeps, target: ViewTarget): Promise<PaneInfo> {
  return "session" in target
    ? await provenPane(deps, target.session, "show")
    : await launchPane(deps, target.launch);
}

/** The bytes of a key the page names, or null for a name asm does not know (own names only: no "constructor"). */
export function namedKey(name: string): Uint8Array | null {
  return Object.hasOwn(NAMED_KEYS, name) ? NAMED_KEYS[name] : null;
}

/** The open views of one server, by id. */
export class ViewRegistry {
  #views = new Map<string, { view: PaneView; target: ViewTarget; agent: string }>();
  /** Views being opened: they count against the bound from the first moment, so opens at once cannot pass it. */
  #opening = 0;
  #closed = false;

  /** Opens a view of the target's proven pane; refused past {@link MAX_VIEWS}, without a proof, or once closed. */
  async open(deps: ActionDeps, target: ViewTarget): Promise<{ id: string; view: PaneView; agent: string }> {
    if (this.#closed) throw new ActionRefused("unavailable", "asm is stopping");
    if (this.#views.size + this.#opening >= MAX_VIEWS) {
      throw new ActionRefused(
        "unavailable",
        `asm already shows ${MAX_VIEWS} windows; close a page that shows one`,
      );
    }
    this.#opening++;
    try {
      return await this.#open(deps, target);
    } finally {
      this.#opening--;
    }
  }

  async #open(deps: ActionDeps, target: ViewTarget): Promise<{ id: string; view: PaneView; agent: string }> {
    const pane = await viewPane(deps, target);
    const agent = "session" in target
      ? deps.ledger.session(target.session)!.agent
      : launchRow(deps.ledger, target.launch)!.agent;
    const view = await PaneView.open(deps.host, pane, {
      async stillProven() {
        try {
          const now = await viewPane(deps, target);
          if (now.paneId !== pane.paneId) return "the session moved to another window";
          // a window moved to another session leaves this client watching the one it left
          return now.session === pane.session ? null : "its window moved to another tmux session";
        } catch (err) {
          return err instanceof ActionRefused ? err.message : String(err);
        }
      },
    });
    if (this.#closed) {
      // the server began to stop while this view opened: it must not stream on and hold the shutdown
      await view.close("asm is stopping");
      throw new ActionRefused("unavailable", "asm is stopping");
    }
    const id = crypto.randomUUID();
    this.#views.set(id, { view, target, agent });
    return { id, view, agent };
  }

  /** An open view, or a refusal. */
  get(id: string): { view: PaneView; target: ViewTarget; agent: string } {
    const found = this.#views.get(id);
    if (!found || found.view.closed !== null) {
      throw new ActionRefused(
        "unknown",
        found ? `this view is closed: ${found.view.closed}` : "no such view",
      );
    }
    return found;
  }

  /** Closes and forgets a view. */
  async close(id: string, why?: string): Promise<void> {
    const found = this.#views.get(id);
    this.#views.delete(id);
    await found?.view.close(why);
  }

  /** Closes every view (the server is stopping). */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#views.keys()].map((id) => this.close(id, "the server stopped")));
  }
}
