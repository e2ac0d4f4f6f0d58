/// <reference lib="dom" />
/**
 * The browser entry: hydrates every island the server rendered, counts renders after hydration
 * (`window.__asmRenders`: it must stay 0 while the page idles), polls `/api/live` to patch cells in place, and
 * polls `/api/health` for the one health banner.
 * @module
 */
import { type ComponentType, h, hydrate, options } from "preact";
import { SessionsTable } from "./sessions_table.tsx";
import { Actions } from "./actions.tsx";
import { TopBar, wireGlanceJumps } from "./top_bar.tsx";
import { startUsagePoll, UsageRow } from "./usage_row.tsx";
import { Launches } from "./launches.tsx";
import { SearchBox } from "./search_box.tsx";
import { SprintBoard } from "./sprint_board.tsx";
import { startLivePoll } from "./live_poll.ts";
import { startHealthPoll } from "./health_banner.ts";
import { loadShell, takeCodeFromAddress } from "./api.ts";
import { wireShortcuts } from "./shortcuts.ts";
import { SessionHeader } from "./session_page.tsx";
import { followTranscript } from "./transcript_follow.ts";
import { followImport, ImportBar, importBarShown } from "./import_bar.tsx";

/** The render counter tests read: renders after hydration; it must stay 0 while the page idles. */
const counter = globalThis as unknown as { __asmRenders: number };

// deno-lint-ignore no-explicit-any
const REGISTRY: Record<string, ComponentType<any>> = {
  SessionsTable,
  Actions,
  TopBar,
  UsageRow,
  Launches,
  SearchBox,
  SprintBoard,
  SessionHeader,
  ImportBar,
};

counter.__asmRenders = 0;
let counting = false;
// preact calls options.__r (its mangled "_render" hook) before every component render
// deno-lint-ignore no-explicit-any
const hooks = options as any;
const previous = hooks.__r;
// deno-lint-ignore no-explicit-any
hooks.__r = (vnode: any) => {
  if (counting && typeof vnode.type === "function") counter.__asmRenders++;
  previous?.(vnode);
};

/** Hydrates every island the page holds, then starts the polls. */
function start(): void {
  for (const root of document.querySelectorAll<HTMLElement>("[data-island]")) {
    const name = root.dataset.island!;
    const component = REGISTRY[name];
    const script = document.querySelector(`script[data-island-props="${name}"]`);
    if (!component || !script) continue;
    hydrate(h(component, JSON.parse(script.textContent ?? "{}")), root);
  }
  counting = true;
  const usageProps = document.querySelector('script[data-island-props="UsageRow"]');
  if (usageProps) startUsagePoll(JSON.parse(usageProps.textContent ?? "{}").readings ?? null);
  wireGlanceJumps();
  wireShortcuts();
  followTranscript();
  // once at load: a full import running now is followed until it ends
  if (importBarShown()) followImport();
  startLivePoll(Number(document.body.dataset.pollMs) || 5000);
  startHealthPoll(Number(document.body.dataset.pollMs) || 5000);
}

// the key first (a #code= in the address is traded for it), then the page: every poll and action needs it
await takeCodeFromAddress();
// the terminal view's own script waits for the key (it runs beside this one)
(globalThis as unknown as { __asmKeyReady: boolean }).__asmKeyReady = true;
dispatchEvent(new Event("asm:key"));
if (document.body.dataset.shell === "1") {
  if (await loadShell()) start();
} else {
  start();
}
