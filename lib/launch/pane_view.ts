/**
 * One terminal view of one proven pane (the session page's window): a control client of the terminal host
 * (lib/launch/control_mode.ts), the pane's screen painted first (its size, cursor and colours, captured through
 * the same client, so nothing it printed is lost or shown twice), then its output as it comes, and keys and a
 * size going back. The output waiting for a slow page is bounded: past {@link MAX_QUEUED_BYTES} it is dropped and
 * the screen is captured again (a page that falls behind skips frames and catches up, the server's memory stays
 * flat). The view closes when its proof fails (the session ended, the pane went), or when it is closed.
 * @module
 */
import {
  ControlReader,
  paintOf,
  paneSizeOfLayout,
  parseSnapshotHead,
  resizeCommand,
  sendBytesCommand,
  snapshotCommands,
} from "./control_mode.ts";
import type { ControlClient, PaneInfo, TerminalHost } from "./terminal_host.ts";

/** The most output held for a page that has not taken it yet; past it the screen is captured again. */
export const MAX_QUEUED_BYTES = 1 << 20;
/** The most output one frame carries. */
const MAX_FRAME_BYTES = 256 * 1024;
/** How often the view checks that its pane is still the session's. */
const PROOF_EVERY_MS = 2000;

/** What a view gives its page, one at a time. */
export type ViewFrame =
  | { kind: "paint"; bytes: Uint8Array; cols: number; rows: number }
  | { kind: "output"; bytes: Uint8Array }
  | { kind: "size"; cols: number; rows: number }
  | { kind: "closed"; why: string };

/** Options of {@link PaneView.open}. */
export interface PaneViewOptions {
  /** Null while the pane is still the one proven; else why the view closes (a sentence). */
  stillProven(): Promise<string | null>;
  /** Overrides {@link MAX_QUEUED_BYTES} (tests). */
  maxQueuedBytes?: number;
}

/** One open view. */
export class PaneView {
  readonly pane: PaneInfo;
  #client: ControlClient;
  #options: PaneViewOptions;
  #reader = new ControlReader();
  #answers: ((a: { lines: string[]; error: boolean }) => void)[] = [];
  #queue: Uint8Array[] = [];
  #queued = 0;
  #paint: ViewFrame | null = null;
  #size: ViewFrame | null = null;
  #painting = false;
  #closed: string | null = null;
  #wake: (() => void) | null = null;
  #proof: ReturnType<typeof setInterval> | null = null;
  /** Bytes dropped for a page that fell behind (reported by tests and the log). */
  dropped = 0;

  private constructor(pane: PaneInfo, client: ControlClient, options: PaneViewOptions) {
    this.pane = pane;
    this.#client = client;
    this.#options = options;
  }

  /** Attaches to the pane's session and asks for its screen. Throws the host's sentence when it cannot. */
  static async open(host: TerminalHost, pane: PaneInfo, options: PaneViewOptions): Promise<PaneView> {
    const view = new PaneView(pane, await host.attach(pane.paneId), options);
    view.#read();
    view.#repaint();
    view.#proof = setInterval(async () => {
      const why = await options.stillProven().catch((err) => String(err));
      if (why !== null) await view.close(why);
    }, PROOF_EVERY_MS);
    return view;
  }

  /** Why it closed, or null while open. */
  get closed(): string | null {
    return this.#closed;
  }

  async #read(): Promise<void> {
    try {
      for await (const line of this.#client.lines()) {
        for (const event of this.#reader.push(line)) {
          if (event.kind === "output") {
            if (event.pane === this.pane.paneId) this.#output(event.bytes);
          } else if (event.kind === "answer") {
            this.#answers.shift()?.(event);
          } else if (event.kind === "layout") {
            const size = paneSizeOfLayout(event.layout, this.pane.paneId);
            // a new size reflows the screen: the page takes the size, then the screen captured again
            if (size) {
              this.#size = { kind: "size", ...size };
              this.#repaint();
            }
          } else if (event.kind === "exit") {
            await this.close(
              `the terminal host detached the view${event.reason ? ` (${event.reason.trim()})` : ""}`,
            );
          }
        }
        this.#wake?.();
      }
    } catch (err) {
      await this.close(`the view's connection to the terminal host failed: ${String(err)}`);
      return;
    }
    await this.close("the terminal host ended the view (its pane or its session is gone)");
  }

  #output(bytes: Uint8Array): void {
    this.#queue.push(bytes);
    this.#queued += bytes.length;
    if (this.#queued > (this.#options.maxQueuedBytes ?? MAX_QUEUED_BYTES)) {
      // the page is behind: what it has not taken is dropped, and the screen captured again replaces it
      this.dropped += this.#queued;
      this.#queue = [];
      this.#queued = 0;
      this.#repaint();
    }
  }

  #command(command: string): Promise<{ lines: string[]; error: boolean }> {
    return new Promise((resolve) => {
      this.#answers.push(resolve);
      this.#client.send(command).catch(() => resolve({ lines: [], error: true }));
    });
  }

  #repaint(): void {
    if (this.#painting || this.#closed !== null) return;
    this.#painting = true;
    const [head, capture] = snapshotCommands(this.pane.paneId);
    const sized = this.#command(head);
    const screen = this.#command(capture);
    Promise.all([sized, screen]).then(([h, s]) => {
      this.#painting = false;
      const at = parseSnapshotHead(h.lines.join("\n"));
      if (!at || s.error) return;
      // everything queued came before the capture, so the capture already shows it
      this.#queue = [];
      this.#queued = 0;
      this.#paint = { kind: "paint", bytes: paintOf(s.lines.join("\n"), at), cols: at.cols, rows: at.rows };
      this.#wake?.();
    });
  }

  /** The next frame for the page: waits for one; the last one is `closed`. */
  async next(): Promise<ViewFrame> {
    for (;;) {
      // once closed, the page gets why, not what was still waiting
      if (this.#closed !== null) return { kind: "closed", why: this.#closed };
      if (this.#size) {
        const size = this.#size;
        this.#size = null;
        return size;
      }
      if (this.#paint) {
        const paint = this.#paint;
        this.#paint = null;
        return paint;
      }
      // output before the first paint is in the paint
      if (this.#queue.length > 0 && !this.#painting) return { kind: "output", bytes: this.#take() };
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = null;
    }
  }

  #take(): Uint8Array {
    const parts: Uint8Array[] = [];
    let n = 0;
    while (this.#queue.length > 0 && n < MAX_FRAME_BYTES) {
      const part = this.#queue.shift()!;
      parts.push(part);
      n += part.length;
    }
    this.#queued -= n;
    const out = new Uint8Array(n);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  /** Sends bytes to the pane as keys (hex: nothing is read as a key name), in commands of at most 256 bytes. */
  async keys(bytes: Uint8Array): Promise<void> {
    if (this.#closed !== null) throw new Error(this.#closed);
    for (let i = 0; i < bytes.length; i += 256) {
      await this.#command(sendBytesCommand(this.pane.paneId, bytes.subarray(i, i + 256)));
    }
  }

  /** Asks for the view's size (the window follows when this client was the latest active one). */
  async resize(cols: number, rows: number): Promise<void> {
    if (this.#closed !== null) throw new Error(this.#closed);
    await this.#command(resizeCommand(cols, rows));
  }

  /** Closes the view (the pane and its agent go on). */
  async close(why = "the view was closed"): Promise<void> {
    if (this.#closed !== null) return;
    this.#closed = why;
    if (this.#proof !== null) clearInterval(this.#proof);
    for (const answer of this.#answers.splice(0)) answer({ lines: [], error: true });
    this.#wake?.();
    await this.#client.close();
  }
}
