/**
 * tmux's control mode, as asm speaks it (pure): a `tmux -C attach` client over plain pipes writes one line per
 * notification (`%output %<pane> <bytes, octal-escaped>`, `%layout-change`, `%exit`, ...) and wraps each
 * command's answer in `%begin` / `%end` (or `%error`); asm writes commands, one a line. Nothing from outside
 * reaches a command: a pane is named by its id (`%<digits>`), keys travel as hex bytes (`send-keys -H`), sizes
 * are numbers, and the formats are constants.
 * @module
 */

/** One line of a control client's output, understood. */
export type ControlLine =
  | { kind: "output"; pane: string; bytes: Uint8Array }
  | { kind: "begin"; number: string; mine: boolean }
  | { kind: "end"; number: string; error: boolean }
  | { kind: "layout"; window: string; layout: string }
  | { kind: "exit"; reason: string }
  | { kind: "other"; text: string };

/** What a control client said: its notifications, and the answer to each command it was sent, in order. */
export type ControlEvent =
  | { kind: "output"; pane: string; bytes: Uint8Array }
  | { kind: "layout"; window: string; layout: string }
  | { kind: "exit"; reason: string }
  | { kind: "answer"; lines: string[]; error: boolean }
  /** The client's own attach was answered: commands sent from now on are this client's (seen once). */
  | { kind: "ready" };

/** A pane id as tmux names it: the only pane reference asm writes into a command. */
export const PANE_ID = /^%\d+$/;
/** A session id as tmux names it (`$3`). */
export const SESSION_ID = /^\$\d+$/;

/** The bytes of `%output`'s escaped text: a backslash and three octal digits is one byte, two backslashes one. */
export function unescapeOutput(text: Uint8Array): Uint8Array {
  const out = new Uint8Array(text.length);
  let n = 0;
  const octal = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x37;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === 0x5c && octal(text[i + 1]) && octal(text[i + 2]) && octal(text[i + 3])) {
      out[n++] = ((text[i + 1] - 0x30) * 64 + (text[i + 2] - 0x30) * 8 + (text[i + 3] - 0x30)) & 0xff;
      i += 3;
    } else if (c === 0x5c && text[i + 1] === 0x5c) {
      out[n++] = 0x5c;
      i += 1;
    } else {
      out[n++] = c;
    }
  }
  return out.subarray(0, n);
}

const OUTPUT_PREFIX = new TextEncoder().encode("%output ");

function startsWith(line: Uint8Array, prefix: Uint8Array): boolean {
  if (line.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false;
  return true;
}

/** One line of a control client's output (without its newline). */
export function parseControlLine(raw: Uint8Array): ControlLine {
  if (startsWith(raw, OUTPUT_PREFIX)) {
    const rest = raw.subarray(OUTPUT_PREFIX.length);
    const space = rest.indexOf(0x20);
    const pane = new TextDecoder().decode(space === -1 ? rest : rest.subarray(0, space));
    return {
      kind: "output",
      pane,
      bytes: unescapeOutput(space === -1 ? new Uint8Array(0) : rest.subarray(space + 1)),
    };
  }
  const line = new TextDecoder().decode(raw);
  const [word, a = "", b = "", c = ""] = line.split(" ");
  switch (word) {
    case "%begin":
      // flags 1: a command this client sent (the attach itself answers with 0)
      return { kind: "begin", number: b, mine: c === "1" };
    case "%end":
    case "%error":
      return { kind: "end", number: b, error: word === "%error" };
    case "%layout-change":
      return { kind: "layout", window: a, layout: b };
    case "%exit":
      return { kind: "exit", reason: line.slice(6) };
    default:
      return { kind: "other", text: line };
  }
}

/**
 * A control client's output read line by line. Inside a `%begin` block every line is the command's answer (a
 * captured screen may hold a line that looks like a notification), up to the `%end` or `%error` of the same
 * number; outside, lines are notifications. Only the answers to this client's own commands are given back.
 */
export class ControlReader {
  #block: { number: string; mine: boolean; lines: string[] } | null = null;
  #ready = false;

  /** The events one line (its bytes, without the newline) makes (none while a block is being read). */
  push(raw: Uint8Array): ControlEvent[] {
    if (this.#block) {
      const line = new TextDecoder().decode(raw);
      const end = line.match(/^%(end|error) \d+ (\d+) \d+$/);
      if (end && end[2] === this.#block.number) {
        const block = this.#block;
        this.#block = null;
        if (block.mine) return [{ kind: "answer", lines: block.lines, error: end[1] === "error" }];
        if (this.#ready) return [];
        this.#ready = true;
        return [{ kind: "ready" }];
      }
      this.#block.lines.push(line);
      return [];
    }
    const parsed = parseControlLine(raw);
    switch (parsed.kind) {
      case "begin":
        this.#block = { number: parsed.number, mine: parsed.mine, lines: [] };
        return [];
      case "output":
      case "layout":
      case "exit":
        return [parsed];
      default:
        return [];
    }
  }
}

/** `send-keys -H` for these bytes into this pane: each byte as hex, so nothing is read as a key name. */
export function sendBytesCommand(pane: string, bytes: Uint8Array): string {
  if (!PANE_ID.test(pane)) throw new Error(`not a tmux pane id: ${JSON.stringify(pane)}`);
  return `send-keys -t ${pane} -H ${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ")}`;
}

/** A paste buffer's name asm uses for a capture. */
const BUFFER_NAME = /^asm-view-[0-9a-f]{8,32}$/;
/** A file asm names for a capture (a folder of its own): no character tmux's command parser treats specially. */
const CAPTURE_FILE = /^\/[A-Za-z0-9_./-]+$/;

/**
 * The pane's size and cursor (one line of numbers, answered in band), then its screen with colours captured into
 * a paste buffer and written to a file of asm's, then the buffer deleted. The screen never travels in band: a
 * captured line would be read as the client's own protocol, and a pane could print a line that ends its answer
 * early. The answers still come in order with the output, so the capture is exactly what came before it.
 */
export function snapshotCommands(pane: string, buffer: string, file: string): string[] {
  if (!PANE_ID.test(pane)) throw new Error(`not a tmux pane id: ${JSON.stringify(pane)}`);
  if (!BUFFER_NAME.test(buffer)) throw new Error(`not a buffer name of asm's: ${JSON.stringify(buffer)}`);
  if (!CAPTURE_FILE.test(file) || file.includes("..")) {
    throw new Error(`not a capture file of asm's: ${file}`);
  }
  return [
    `display-message -p -t ${pane} "#{pane_width} #{pane_height} #{cursor_x} #{cursor_y}"`,
    // -e keeps colours and attributes; -N keeps trailing spaces, so the cursor lands where the agent left it
    `capture-pane -e -N -t ${pane} -b ${buffer}`,
    `save-buffer -b ${buffer} ${file}`,
    `delete-buffer -b ${buffer}`,
  ];
}

/** What the first snapshot block says: the pane's size and its cursor. */
export function parseSnapshotHead(text: string): { cols: number; rows: number; x: number; y: number } | null {
  const m = text.trim().match(/^(\d{1,4}) (\d{1,4}) (\d{1,4}) (\d{1,4})$/);
  if (!m) return null;
  const [cols, rows, x, y] = m.slice(1).map(Number);
  return cols > MAX_SIDE || rows > MAX_SIDE ? null : { cols, rows, x, y };
}

/** The largest side of a pane asm believes (a terminal is never 10,000 columns wide). */
const MAX_SIDE = 1000;

/** The pane size of a `%layout-change` layout for one pane (`checksum,WxH,x,y,<pane number>`), when it says. */
export function paneSizeOfLayout(layout: string, pane: string): { cols: number; rows: number } | null {
  const number = pane.slice(1);
  // a leaf is "WxH,X,Y,N"; a split nests leaves in [] or {}: find the leaf of this pane number
  for (const m of layout.matchAll(/(\d+)x(\d+),\d+,\d+,(\d+)/g)) {
    if (m[3] !== number) continue;
    const size = { cols: Number(m[1]), rows: Number(m[2]) };
    return size.cols > 0 && size.rows > 0 && size.cols <= MAX_SIDE && size.rows <= MAX_SIDE ? size : null;
  }
  return null;
}

/**
 * What a view paints first: the screen as captured (its lines joined by CR LF, so each starts at column 0),
 * after a reset and a clear, with the cursor put back where the pane has it.
 */
export function paintOf(screen: string, cursor: { x: number; y: number }): Uint8Array {
  const lines = screen.replace(/\n$/, "").split("\n");
  const text = "\x1bc\x1b[H\x1b[2J" + lines.join("\r\n") + `\x1b[${cursor.y + 1};${cursor.x + 1}H`;
  return new TextEncoder().encode(text);
}
