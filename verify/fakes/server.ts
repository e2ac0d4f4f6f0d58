/**
 * The HTTP shell every fake shares: listen on 127.0.0.1, record each request (credentials removed), append
 * it to a JSON-lines log, hand it to the fake's route, and close without waiting on a reply that is still
 * sleeping.
 *
 * @module
 */

/** One request as a fake saw it. */
export interface RecordedRequest {
  /** ISO-8601 UTC time of arrival. */
  t: string;
  /** HTTP method. */
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Lower-cased header names; `authorization`, `x-api-key` and `x-goog-api-key` are never kept. */
  headers: Record<string, string>;
  /** The parsed JSON body, the raw text when it is not JSON, or null when empty. */
  body: unknown;
}

/** A request handed to a fake's route. */
export interface FakeCall {
  /** HTTP method. */
  method: string;
  /** The full request URL (path, query). */
  url: URL;
  /** Parsed JSON body, raw text when not JSON, null when empty. */
  body: unknown;
  /** The body as received. */
  raw: string;
  /** Aborted when the server closes, so a sleeping reply gives up instead of holding `close()`. */
  signal: AbortSignal;
}

/** Answers one request. */
export type FakeRoute = (call: FakeCall) => Response | Promise<Response>;

/** Options of {@link serveRecorded}. */
export interface ServeOptions {
  /** 0 or absent: any free port. */
  port?: number;
  /** Append every recorded request to this file as one JSON line. */
  logPath?: string;
}

/** A listening server that records what it receives. */
export interface RecordingServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Every recorded request so far, oldest first. */
  requests(): RecordedRequest[];
  /** Every request body as received, joined by "\n". */
  bodyText(): string;
  /** Stops listening, ends sleeping replies and resolves once the port is free. */
  close(): Promise<void>;
}

const CREDENTIAL_HEADERS = new Set(["authorization", "x-api-key", "x-goog-api-key"]);

/** Headers as a plain object, without the ones that carry credentials. */
export function withoutCredentials(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers) if (!CREDENTIAL_HEADERS.has(name)) kept[name] = value;
  return kept;
}

/**
 * Starts a recording server on 127.0.0.1 that answers with `route`.
 * `GET /health` is answered and not recorded, so readiness polls do not show up in `requests()`.
 * Throws a plain sentence when the port is taken.
 */
export function serveRecorded(route: FakeRoute, options: ServeOptions = {}): RecordingServer {
  const recorded: RecordedRequest[] = [];
  const bodies: string[] = [];
  const closing = new AbortController();

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/health") return jsonResponse(200, { ok: true });
    const raw = await request.text();
    const entry: RecordedRequest = {
      t: new Date().toISOString(),
      method: request.method,
      path: url.pathname + url.search,
      headers: withoutCredentials(request.headers),
      body: parseBody(raw),
    };
    recorded.push(entry);
    bodies.push(raw);
    if (options.logPath) {
      Deno.writeTextFileSync(options.logPath, JSON.stringify(entry) + "\n", { append: true });
    }
    try {
      return await route({ method: request.method, url, body: entry.body, raw, signal: closing.signal });
    } catch (err) {
      if (closing.signal.aborted) return jsonResponse(503, { error: "the fake server is closing" });
      throw err;
    }
  }

  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      onListen() {}, // silence Deno's "Listening on" line: the caller prints the url it wants
    }, handle);
  } catch (err) {
    if (!(err instanceof Deno.errors.AddrInUse)) throw err;
    throw new Error(`port ${options.port} on 127.0.0.1 is already in use; pick another port or omit it`);
  }
  const port = server.addr.port;
  let closed: Promise<void> | null = null;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: () => [...recorded],
    bodyText: () => bodies.join("\n"),
    close() {
      closed ??= (async () => {
        closing.abort();
        await server.shutdown();
      })();
      return closed;
    },
  };
}

/** JSON when it parses, the raw text when it does not, null when empty. */
function parseBody(raw: string): unknown {
  if (raw === "") return null;
  try {
    return JSON.parse(raw);
  } catch (err) {
    if (err instanceof SyntaxError) return raw;
    throw err;
  }
}

/** A JSON response with `status`. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Waits `ms`; rejects as soon as `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    function stop() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", stop, { once: true });
  });
}
