/// <reference lib="dom" />
/**
 * The terminal view in the browser (its own bundle: only pages that show a window load xterm.js). It opens
 * `GET /api/terminal` with a streamed `fetch` carrying the page's key, paints the pane's screen into an xterm.js
 * terminal of the pane's own size, writes its output as it comes, and follows its size. Read-only until the
 * "type into it" switch is on: then what is typed goes to the pane as bytes (`POST /api/terminal/:view/keys`,
 * batched). The pane keeps its own size (a tmux control client with a size resizes every window of its session,
 * other agents' included): the view takes the pane's, and scrolls sideways in its box where the page is narrower. Interrupt sends the agent's own interrupt key. When the view
 * closes, the sentence says why; a launch's view that closed because its session arrived goes to that session.
 * @module
 */
import { Terminal } from "@xterm/xterm";
import { api } from "./api.ts";

/** What the stream says, one object a line. */
interface ViewLine {
  view?: string;
  agent?: string;
  interrupt?: string;
  attach?: string;
  paint?: string;
  cols?: number;
  rows?: number;
  out?: string;
  size?: { cols: number; rows: number };
  closed?: string;
}

/** The open terminal, for tests that read what it shows (`term.buffer`). */
const exposed = globalThis as unknown as { __asmTerminal?: Terminal; __asmTerminalView?: string };

function bytesOf(b64: string): Uint8Array {
  const binary = atob(b64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

async function post(path: string, body: unknown): Promise<string | null> {
  const res = await api(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.ok) {
    await res.body?.cancel();
    return null;
  }
  const answer = await res.json().catch(() => ({}));
  return String(answer.error ?? `the server answered ${res.status}`);
}

function start(section: HTMLElement): void {
  const screen = section.querySelector<HTMLElement>("[data-terminal-screen]")!;
  const status = section.querySelector<HTMLElement>("[data-terminal-status]")!;
  const typeSwitch = section.querySelector<HTMLInputElement>("[data-type-switch]")!;
  const keyButtons = [...section.querySelectorAll<HTMLButtonElement>("button[data-key]")];
  const target = section.dataset.session
    ? `session=${encodeURIComponent(section.dataset.session)}`
    : `launch=${encodeURIComponent(section.dataset.launch ?? "")}`;
  const term = new Terminal({
    disableStdin: true,
    scrollback: 2000,
    fontSize: 13,
    cursorBlink: false,
    convertEol: false,
  });
  term.open(screen);
  exposed.__asmTerminal = term;
  let view: string | null = null;
  let painted = false;
  let typed: Uint8Array[] = [];
  let sending = false;

  const say = (text: string) => (status.textContent = text);
  const flush = async () => {
    if (sending || typed.length === 0 || view === null) return;
    sending = true;
    const parts = typed;
    typed = [];
    const n = parts.reduce((a, p) => a + p.length, 0);
    let all = new Uint8Array(n);
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    // an Enter typed right after text goes on its own: an agent that reads a burst of input as a paste would
    // take an Enter inside it as a new line, not as "send"
    const enter = all.indexOf(0x0d);
    if (enter > 0) {
      typed.unshift(all.slice(enter));
      all = all.slice(0, enter);
    }
    const refused = await post(`/api/terminal/${view}/keys`, { bytes: base64Of(all) });
    if (refused) say(refused);
    sending = false;
    if (typed.length) flush();
  };
  const encoder = new TextEncoder();
  term.onData((data) => {
    if (!typeSwitch.checked) return;
    typed.push(encoder.encode(data));
    queueMicrotask(flush);
  });
  term.onBinary((data) => {
    if (!typeSwitch.checked) return;
    typed.push(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff));
    queueMicrotask(flush);
  });

  typeSwitch.addEventListener("change", () => {
    term.options.disableStdin = !typeSwitch.checked;
    for (const b of keyButtons) if (b.dataset.key !== "interrupt") b.disabled = !typeSwitch.checked;
    if (typeSwitch.checked) {
      term.focus();
      say("typing into its window");
    } else say("watching (read-only)");
  });
  for (const button of keyButtons) {
    button.addEventListener("click", async () => {
      if (view === null) return;
      const refused = await post(`/api/terminal/${view}/keys`, { key: button.dataset.key });
      say(refused ?? `sent ${button.textContent}`);
      if (typeSwitch.checked) term.focus();
    });
  }
  section.querySelector("[data-copy-attach]")?.addEventListener("click", async () => {
    const text = section.querySelector("[data-attach]")?.textContent ?? "";
    await navigator.clipboard.writeText(text).catch(() => {});
  });

  const read = async (): Promise<"closed" | "lost"> => {
    const res = await api(`/api/terminal?${target}`);
    if (!res.ok || !res.body) {
      const answer = await res.json().catch(() => ({}));
      say(String(answer.error ?? `the server answered ${res.status}`));
      return "closed";
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let pending = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return "lost";
      pending += value;
      let nl;
      while ((nl = pending.indexOf("\n")) !== -1) {
        const m = JSON.parse(pending.slice(0, nl)) as ViewLine;
        pending = pending.slice(nl + 1);
        if (m.view) {
          view = m.view;
          exposed.__asmTerminalView = m.view;
          const attach = section.querySelector<HTMLElement>("[data-attach]");
          if (attach && m.attach) {
            attach.textContent = m.attach;
            section.querySelector<HTMLElement>("[data-attach-line]")!.hidden = false;
          }
          say(typeSwitch.checked ? "typing into its window" : "watching (read-only)");
        }
        if (m.paint !== undefined) {
          term.reset();
          if (m.cols && m.rows) term.resize(Math.min(m.cols, 1000), Math.min(m.rows, 1000));
          term.write(bytesOf(m.paint));
          if (!painted) {
            painted = true;
            // the window grew above a search hit the page had scrolled to: back to the hit
            requestAnimationFrame(() => document.getElementById("hit")?.scrollIntoView({ block: "center" }));
          }
        }
        if (m.out !== undefined) term.write(bytesOf(m.out));
        if (m.size) term.resize(Math.min(m.size.cols, 1000), Math.min(m.size.rows, 1000));
        if (m.closed !== undefined) {
          view = null;
          say(m.closed);
          const session = m.closed.match(/is session ([0-9a-f-]{36}) now/);
          if (session) location.assign(`/sessions/${session[1]}`);
          return "closed";
        }
      }
    }
  };
  const loop = async () => {
    let how: "closed" | "lost" = "lost";
    try {
      how = await read();
    } catch (err) {
      say(`the window's stream stopped: ${(err as Error).message}`);
    }
    // a lost stream (the server restarted, the laptop slept) opens again; a closed view opens again when its
    // session next says it runs (a RESUME from the page)
    if (how === "lost") setTimeout(loop, 2000);
    else if (section.dataset.session) addEventListener("asm:session-live", () => loop(), { once: true });
  };
  loop();
}

function startAll(): void {
  for (const section of document.querySelectorAll<HTMLElement>("[data-terminal]")) {
    if (!section.hidden) {
      start(section);
      continue;
    }
    // a session that was not running when the page loaded: its view starts once it runs (a RESUME here)
    addEventListener("asm:session-live", () => {
      if (!section.hidden) return;
      section.hidden = false;
      start(section);
    });
  }
}

if ((globalThis as unknown as { __asmKeyReady?: boolean }).__asmKeyReady) startAll();
else addEventListener("asm:key", startAll, { once: true });
