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
/** Keys are sent only on a proof at most this old (a session that just exited leaves its pane to a shell). */
const KEYS_PROOF_MS = 250;
/** The longest the view waits for its client's attach to be answered before it sends its commands anyway. */
const READY_WAIT_MS = 2000;
/** The most of a captured screen the view reads. */
const MAX_SCREEN_BYTES = 4 * 1024 * 1024;

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
  /** Where a capture is written (a folder of the view's own), and the paste buffer it passes through. */
  #captureDir = Deno.makeTempDirSync({ prefix: "asm-view-" });
  #buffer = `asm-view-${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  #provenAt = Date.now();
  /** Commands wait for the client's attach to be answered: sent before it, tmux may not take them as the client's. */
  #ready!: () => void;
  #readySeen = new Promise<void>((resolve) => (this.#ready = resolve));
  #sending: Promise<void> = Promise.resolve();
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
    // a client whose attach is never answered would hold every command: after a while they go anyway
    setTimeout(() => view.#ready(), READY_WAIT_MS);
    view.#repaint();
    view.#proof = setInterval(() => view.#prove().catch(() => {}), PROOF_EVERY_MS);
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
          } else if (event.kind === "ready") {
            this.#ready();
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

  /** Checks the proof again; closes the view with the sentence when it fails. True while it holds. */
  async #prove(): Promise<boolean> {
    const why = await this.#options.stillProven().catch((err) => String(err));
    if (why !== null) {
      await this.close(why);
      return false;
    }
    this.#provenAt = Date.now();
    return true;
  }

  /** Sends a command; `then` runs when its answer is read, before any line after it. */
  #send(command: string, then: (a: { lines: string[]; error: boolean }) => void): void {
    this.#answers.push(then);
    this.#write(command);
  }

  /** Writes one command line, in order, once the client is ready. */
  #write(command: string): void {
    this.#sending = this.#sending
      .then(() => this.#readySeen)
      .then(() => this.#client.send(command))
      .catch(() => {});
  }

  #command(command: string): Promise<{ lines: string[]; error: boolean }> {
    return new Promise((resolve) => {
      this.#answers.push(resolve);
      this.#write(command);
    });
  }

  #repaint(): void {
    if (this.#painting || this.#closed !== null) return;
    this.#painting = true;
    const file = `${this.#captureDir}/screen`;
    const [head, capture, save, drop] = snapshotCommands(this.pane.paneId, this.#buffer, file);
    let at: ReturnType<typeof parseSnapshotHead> = null;
    let captured = false;
    this.#send(head, (a) => (at = a.error ? null : parseSnapshotHead(a.lines.join("\n"))));
    this.#send(capture, (a) => {
      if (a.error) return;
      // read in order with the output: everything queued came before the capture, so the capture shows it
      captured = true;
      this.#queue = [];
      this.#queued = 0;
    });
    this.#send(save, (a) => {
      this.#painting = false;
      let screen: string | null = null;
      try {
        if (!a.error && captured && Deno.statSync(file).size <= MAX_SCREEN_BYTES) {
          screen = Deno.readTextFileSync(file);
        }
      } catch { /* not written: no paint this time */ }
      try {
        Deno.removeSync(file);
      } catch { /* not there */ }
      if (at && screen !== null) {
        this.#paint = { kind: "paint", bytes: paintOf(screen, at), cols: at.cols, rows: at.rows };
      }
      this.#wake?.();
    });
    this.#send(drop, () => {});
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
    // the proof again when it is not fresh: a session that just exited leaves its pane to whatever runs next
    if (Date.now() - this.#provenAt > KEYS_PROOF_MS && !(await this.#prove())) throw new Error(this.#closed!);
    for (let i = 0; i < bytes.length; i += 256) {
      const answer = await this.#command(sendBytesCommand(this.pane.paneId, bytes.subarray(i, i + 256)));
      if (answer.error) {
        throw new Error(`tmux did not take the keys: ${answer.lines.join(" ") || "its pane is gone"}`);
      }
    }
  }

  /** Closes the view (the pane and its agent go on). */
  async close(why = "the view was closed"): Promise<void> {
    if (this.#closed !== null) return;
    this.#closed = why;
    if (this.#proof !== null) clearInterval(this.#proof);
    for (const answer of this.#answers.splice(0)) answer({ lines: [], error: true });
    this.#wake?.();
    this.#ready(); // nothing waits for an attach that will not come
    await this.#client.close();
    try {
      Deno.removeSync(this.#captureDir, { recursive: true });
    } catch { /* gone */ }
  }
}
