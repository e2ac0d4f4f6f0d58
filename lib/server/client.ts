/**
 * The command line's way to the running server: the writer lock names the server's port (only a process holding
 * it in `serve` mode answers requests) and `$ASM_HOME/token` is the key every API call carries as its Bearer.
 * `asm open`, `asm launch` and its siblings, and `asm import` all call the server through this.
 *
 * Never through a proxy: `fetch` sends a request to any `HTTP_PROXY`, `http_proxy` or `ALL_PROXY` the shell has
 * (and `NO_PROXY=localhost` does not name 127.0.0.1), which would hand the token, prompts and folders to the
 * proxy and break every command behind one. {@link directFetch} connects to 127.0.0.1:<port> itself whatever the
 * variables say.
 * @module
 */
import { join } from "node:path";
import { currentHolder } from "./lock.ts";

/** A server this user can call. */
export interface ServerAddress {
  port: number;
  token: string;
}

/** The running server of `asmHome` with its token, or null when none serves it. */
export function runningServer(asmHome: string): ServerAddress | null {
  const holder = currentHolder(asmHome);
  if (!holder || holder.port === null || holder.mode !== "serve") return null;
  let token: string;
  try {
    token = Deno.readTextFileSync(join(asmHome, "token")).trim();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  return token ? { port: holder.port, token } : null;
}

/** A request to the server with its token as the Bearer, never through a proxy. */
export function callServer(server: ServerAddress, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${server.token}`);
  return directFetch(server.port, path, { ...init, headers });
}

/**
 * `fetch` of `http://127.0.0.1:<port><path>` over a connection made straight to that address: the client's
 * "proxy" is a plain TCP connection to the server itself, which no proxy variable can redirect. The client is
 * closed once the answer's body is read or cancelled (or the request fails).
 */
export async function directFetch(port: number, path: string, init: RequestInit = {}): Promise<Response> {
  const client = Deno.createHttpClient({ proxy: { transport: "tcp", hostname: "127.0.0.1", port } });
  let open = true;
  const close = () => {
    if (open) client.close();
    open = false;
  };
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, client });
  } catch (err) {
    close();
    throw err;
  }
  if (res.body === null) {
    close();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        controller.close();
        close();
      } catch (err) {
        close();
        controller.error(err);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => {});
      close();
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
