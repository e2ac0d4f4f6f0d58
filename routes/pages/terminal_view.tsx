/**
 * The terminal view's place on a page (the session page, a pending launch's page): a bar (the "type into it"
 * switch, Interrupt, Esc, Enter, how to attach from a terminal) and the screen islands/terminal_client.ts fills
 * with xterm.js, fed by `GET /api/terminal`. Read-only until the switch is on.
 * @module
 */
import { terminalBundle, terminalStyle } from "../../lib/ui/mod.ts";

/** The page's extra script and style for a view. */
export async function terminalExtra(): Promise<{ script: string; style: string }> {
  return { script: (await terminalBundle()).url, style: terminalStyle() };
}

/** The view of a session's window or of a pending launch's. */
export function TerminalView(
  { session, launch, hidden }: { session?: string; launch?: string; hidden?: boolean },
) {
  return (
    <section
      hidden={hidden}
      class="terminal"
      aria-label="The agent's window"
      data-terminal
      data-session={session}
      data-launch={launch}
    >
      <div class="terminal-bar">
        <strong>Its window</strong>
        <label>
          <input type="checkbox" data-type-switch /> type into it
        </label>
        <button type="button" data-key="interrupt" title="stop the agent's turn (its own interrupt key)">
          Interrupt
        </button>
        <button type="button" data-key="Escape" disabled>Esc</button>
        <button type="button" data-key="Enter" disabled>Enter</button>
        <span class="muted" data-terminal-status role="status">connecting…</span>
      </div>
      <div class="terminal-screen" data-terminal-screen />
      <p class="attach" hidden data-attach-line>
        From a terminal: <code data-attach /> <button type="button" data-copy-attach>Copy</button>
      </p>
    </section>
  );
}
