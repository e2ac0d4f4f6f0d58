/**
 * Where launched sessions live: a terminal host opens one window per launch and can list, type into and focus
 * its panes. tmux is the one host built and tested (it runs headless, over SSH, and can name the process of every
 * pane, which is what lets asm prove a window before it types into it); others implement the same five methods.
 * @module
 */

/** A window the host opened. */
export interface OpenedWindow {
  windowId: string;
  paneId: string;
  /** The pid of the process the pane runs (the launcher script, then the shim it execs). */
  panePid: number;
}

/** One pane the host can see. */
export interface PaneInfo {
  session: string;
  windowId: string;
  paneId: string;
  panePid: number;
}

/** What to open. */
export interface OpenRequest {
  /** The window's name (ASCII). */
  name: string;
  /**
   * The command and at least one argument, run without a shell in between. There is no working folder: the
   * launch's folder is untrusted text, and the launcher script changes to it itself.
   */
  argv: string[];
}

/** A terminal host. */
export interface TerminalHost {
  /** `tmux`, ... (stored with each launch). */
  readonly name: string;
  /** Opens a new window running `argv`; throws a sentence when it cannot. */
  open(request: OpenRequest): Promise<OpenedWindow>;
  /** Every pane, in every session of the host; empty when the host is not running. */
  panes(): Promise<PaneInfo[]>;
  /** How many windows the host has (0 when it is not running): END counts them before and after. */
  windowCount(): Promise<number>;
  /** Types `text` literally into the pane, then Enter. */
  type(paneId: string, text: string): Promise<void>;
  /** Brings the pane's window to the front. */
  focus(paneId: string): Promise<void>;
  /**
   * A control client attached to the session that holds the pane (the page's terminal view): the host's own
   * output notifications in, commands out, over pipes; no terminal of asm's. Throws a sentence when it cannot.
   */
  attach(paneId: string): Promise<ControlClient>;
  /** The command a person runs in a terminal to attach to the pane's window themselves (shell-quoted). */
  attachCommand(pane: PaneInfo): string;
}

/** A control-mode client of the host. */
export interface ControlClient {
  /** The client's output, one line at a time (bytes, without the newline); ends when the client exits. */
  lines(): AsyncIterable<Uint8Array>;
  /** Sends one command line. */
  send(command: string): Promise<void>;
  /** Detaches (the pane and its agent go on). */
  close(): Promise<void>;
}

/** The host could not do what was asked; the message is a sentence a person reads. */
export class TerminalHostError extends Error {
  override name = "TerminalHostError";
}
