/**
 * Server-sent events, both halves: the fakes encode them, their tests parse them back.
 *
 * @module
 */

/** One parsed event: its `event:` name (null when absent) and its `data:` lines joined by "\n". */
export interface SseEvent {
  /** The `event:` name, null when absent. */
  event: string | null;
  /** The `data:` lines joined by "\n". */
  data: string;
}

/** Options of {@link encodeSse}. */
export interface EncodeSseOptions {
  /** The `event:` line; Anthropic and OpenAI send one, Gemini does not. */
  event?: string;
  /** End lines with "\r\n" as Google's API does. */
  crlf?: boolean;
}

/** Encodes one event whose data is `data` as one JSON line. */
export function encodeSse(data: unknown, options: EncodeSseOptions = {}): string {
  const nl = options.crlf ? "\r\n" : "\n";
  const head = options.event === undefined ? "" : `event: ${options.event}${nl}`;
  return `${head}data: ${JSON.stringify(data)}${nl}${nl}`;
}

/** Parses an SSE body into its events (comments and empty events are dropped). */
export function parseSse(body: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (event !== null || data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return events;
}

/** How a stream is held: `holdMs` after its first event (0: all at once), given up when `signal` aborts. */
export interface StreamHold {
  holdMs: number;
  signal: AbortSignal;
}

/**
 * A 200 response carrying already-encoded events, with the usual SSE headers plus `headers`. With a `hold`, the
 * first event goes out at once and the rest after `holdMs`: the answer has begun (the agent saw its 200) but is
 * not over, as a model that is still writing.
 */
export function sseResponse(
  chunks: string[],
  headers: Record<string, string> = {},
  hold: StreamHold | null = null,
): Response {
  const init = {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers },
  };
  if (!hold || hold.holdMs <= 0 || chunks.length < 2) return new Response(chunks.join(""), init);
  const encoder = new TextEncoder();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    cancel() {
      cancelled = true;
    },
    start(controller) {
      controller.enqueue(encoder.encode(chunks[0]));
      const rest = () => {
        if (cancelled) return;
        try {
          controller.enqueue(encoder.encode(chunks.slice(1).join("")));
          controller.close();
        } catch {
          // the agent hung up during the hold (a turn interrupted, its process killed): nobody is left to answer
        }
      };
      const timer = setTimeout(() => {
        hold.signal.removeEventListener("abort", stop);
        rest();
      }, hold.holdMs);
      // the server is closing: end the body now rather than hold its shutdown
      function stop() {
        clearTimeout(timer);
        try {
          controller.close();
        } catch {
          // already closed by the agent hanging up
        }
      }
      hold.signal.addEventListener("abort", stop, { once: true });
    },
  });
  return new Response(body, init);
}
